//! Conformance fixtures of 2026-07-28 multi-round-trip requests (cargo feature
//! `conformance-fixtures`): the `test_input_required_result_*` tools and the
//! `test_input_required_result_prompt` prompt answer `resultType: "input_required"` with
//! `inputRequests` and a signed `requestState` ([`crate::mcp::request_state`]) until the
//! client's retry carries every `inputResponses` key the current round asks for.
//!
//! A retry's `requestState` is redeemed (checked and used up) before anything else; without
//! one, a fixture starts again at its first round. `inputResponses` that is not an object, or
//! an entry that is not an object, is `-32602`; keys that are not asked for are ignored.
//! The stateless-lifecycle scenario's one-round fixtures (`test_missing_capability`,
//! `test_logging_tool`) are here too. Nothing here is part of the product.

use app_server_protocol::jsonrpc::JsonRpcErrorBody;
use serde_json::{Map, Value, json};

use crate::mcp::modern::CAPABILITIES_KEY;
use crate::mcp::session::McpSession;
use crate::rpc_error;

/// The prompt of the non-tool scenario.
pub const PROMPT: &str = "test_input_required_result_prompt";

/// The fixture tools for `tools/list`.
pub fn tools() -> Vec<Value> {
    const ASKING: &str = "Asks for input through an input_required result";
    [
        ("test_input_required_result_elicitation", ASKING),
        ("test_input_required_result_sampling", ASKING),
        ("test_input_required_result_list_roots", ASKING),
        ("test_input_required_result_request_state", ASKING),
        ("test_input_required_result_tampered_state", ASKING),
        ("test_input_required_result_multiple_inputs", ASKING),
        ("test_input_required_result_multi_round", ASKING),
        ("test_input_required_result_capabilities", ASKING),
        ("test_streaming_elicitation", ASKING),
        (
            "test_missing_capability",
            "Needs the sampling capability; without it, -32021",
        ),
        (
            "test_logging_tool",
            "Logs at info, only to a request that asked for a log level",
        ),
    ]
    .iter()
    .map(|(name, description)| {
        json!({
            "name": name,
            "description": description,
            "inputSchema": {"type": "object", "properties": {}},
        })
    })
    .collect()
}

fn elicit(message: &str, field: &str, kind: &str) -> Value {
    json!({"method": "elicitation/create", "params": {
        "message": message,
        "requestedSchema": {"type": "object", "properties": {field: {"type": kind}}, "required": [field]},
    }})
}

fn sample(text: &str, max_tokens: u64) -> Value {
    json!({"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        "maxTokens": max_tokens,
    }})
}

fn roots() -> Value {
    json!({"method": "roots/list", "params": {}})
}

/// The rounds of fixture `name` (each a list of `inputRequests` entries), or `None` for other
/// names. `capabilities` are the request's declared client capabilities.
fn rounds(name: &str, capabilities: &Value) -> Option<Vec<Vec<(&'static str, Value)>>> {
    Some(match name {
        "test_input_required_result_elicitation"
        | "test_streaming_elicitation"
        | "test_tool_with_task" => vec![vec![(
            "user_name",
            elicit("What is your name?", "name", "string"),
        )]],
        "test_input_required_result_sampling" => vec![vec![(
            "capital_question",
            sample("What is the capital of France?", 100),
        )]],
        "test_input_required_result_list_roots" => vec![vec![("client_roots", roots())]],
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => {
            vec![vec![("confirm", elicit("Please confirm", "ok", "boolean"))]]
        }
        "test_input_required_result_multiple_inputs" => vec![vec![
            ("user_name", elicit("What is your name?", "name", "string")),
            ("greeting", sample("Generate a greeting", 50)),
            ("client_roots", roots()),
        ]],
        "test_input_required_result_multi_round" => vec![
            vec![(
                "step1",
                elicit("Step 1: What is your name?", "name", "string"),
            )],
            vec![(
                "step2",
                elicit("Step 2: What is your favorite color?", "color", "string"),
            )],
        ],
        // Only what the request's capabilities allow.
        "test_input_required_result_capabilities" => {
            let mut round = Vec::new();
            if capabilities.get("elicitation").is_some() {
                round.push(("user_name", elicit("What is your name?", "name", "string")));
            }
            if capabilities.get("sampling").is_some() {
                round.push(("greeting", sample("Generate a greeting", 50)));
            }
            if capabilities.get("roots").is_some() {
                round.push(("client_roots", roots()));
            }
            vec![round]
        }
        PROMPT => vec![vec![(
            "user_context",
            elicit("What context should the prompt use?", "context", "string"),
        )]],
        _ => return None,
    })
}

/// The final text of fixture `name` from the answers of its rounds.
fn final_text(name: &str, answers: &Map<String, Value>) -> String {
    let field = |key: &str, pointer: &str| {
        answers
            .get(key)
            .and_then(|answer| answer.pointer(pointer))
            .map(|value| match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .unwrap_or_default()
    };
    match name {
        "test_input_required_result_elicitation" | "test_tool_with_task" => {
            format!("Hello, {}!", field("user_name", "/content/name"))
        }
        "test_input_required_result_sampling" => {
            format!("Sampled: {}", field("capital_question", "/content/text"))
        }
        "test_input_required_result_list_roots" => {
            format!("Roots: {}", field("client_roots", "/roots"))
        }
        "test_input_required_result_multi_round" => format!(
            "{} likes {}",
            field("step1", "/content/name"),
            field("step2", "/content/color")
        ),
        PROMPT => format!(
            "Use this context: {}",
            field("user_context", "/content/context")
        ),
        _ => "state-ok: every input arrived".to_string(),
    }
}

impl McpSession {
    /// Serves an input-required fixture `name` called as `method` (`tools/call` or
    /// `prompts/get`); `None` when `name` is not one.
    pub(crate) fn mrtr_fixture(
        &self,
        method: &str,
        name: &str,
        params: &Value,
    ) -> Option<Result<Value, JsonRpcErrorBody>> {
        let capabilities = params
            .pointer(&format!("/_meta/{}", CAPABILITIES_KEY.replace('/', "~1")))
            .cloned()
            .unwrap_or_else(|| json!({}));
        let rounds = rounds(name, &capabilities)?;
        Some(self.mrtr_round(method, name, params, &rounds))
    }

    /// Serves the fixtures of the stateless-lifecycle scenario that answer in one round:
    /// `test_missing_capability` (`-32021` naming `sampling` unless the request declares it)
    /// and `test_logging_tool` (an `info` log message only when the request asked for that
    /// level or a lower one); `None` for other names.
    pub(crate) async fn stateless_fixture(
        &self,
        id: &app_server_protocol::jsonrpc::RequestId,
        name: &str,
        params: &Value,
    ) -> Option<Result<Value, JsonRpcErrorBody>> {
        match name {
            "test_missing_capability" => {
                let declared = params
                    .pointer(&format!(
                        "/_meta/{}/sampling",
                        CAPABILITIES_KEY.replace('/', "~1")
                    ))
                    .is_some();
                Some(if declared {
                    Ok(json!({"content": [{"type": "text", "text": "sampling is declared"}]}))
                } else {
                    Err(JsonRpcErrorBody {
                        code: crate::mcp::modern::MISSING_CAPABILITY,
                        message: "Missing required client capability: sampling".to_string(),
                        data: Some(json!({"requiredCapabilities": {"sampling": {}}})),
                    })
                })
            }
            "test_logging_tool" => {
                let info = crate::mcp::protocol::log_level_rank("info").unwrap_or(0);
                let wanted = self
                    .shared
                    .log_level
                    .load(std::sync::atomic::Ordering::Relaxed);
                if wanted <= info {
                    let log = crate::mcp::protocol::notification(
                        "notifications/message",
                        json!({"level": "info", "logger": "tandem", "data": "test_logging_tool ran"}),
                    );
                    self.shared
                        .outbound
                        .send(crate::mcp::output::Route::Request(id.clone()), log)
                        .await;
                }
                Some(Ok(
                    json!({"content": [{"type": "text", "text": "test_logging_tool ran"}]}),
                ))
            }
            _ => None,
        }
    }

    fn mrtr_round(
        &self,
        method: &str,
        name: &str,
        params: &Value,
        rounds: &[Vec<(&'static str, Value)>],
    ) -> Result<Value, JsonRpcErrorBody> {
        let responses = match params.get("inputResponses") {
            None => Map::new(),
            Some(Value::Object(responses)) => responses.clone(),
            Some(_) => {
                return Err(rpc_error::invalid_params(
                    "inputResponses must be an object",
                ));
            }
        };
        if let Some((key, _)) = responses.iter().find(|(_, value)| !value.is_object()) {
            return Err(rpc_error::invalid_params(format!(
                "inputResponses.{key} must be an object"
            )));
        }
        let target = format!("{method}:{name}");
        let states = &self.shared.options.request_states;
        // The round the state continues and the answers of the rounds before it.
        let (round, mut answers) = match params.get("requestState") {
            None => (0, Map::new()),
            Some(Value::String(state)) => {
                let redeemed = states.redeem(state, &self.principal, &target)?;
                let round = redeemed.data["round"].as_u64().unwrap_or(0) as usize;
                let answers = redeemed.data["answers"]
                    .as_object()
                    .cloned()
                    .unwrap_or_default();
                (round, answers)
            }
            Some(_) => return Err(rpc_error::invalid_params("requestState must be a string")),
        };
        let Some(asked) = rounds.get(round) else {
            return Err(rpc_error::invalid_params(
                "requestState names no pending round",
            ));
        };
        let answered = asked.iter().all(|(key, _)| responses.contains_key(*key));
        let next = if answered {
            for (key, _) in asked {
                if let Some(answer) = responses.get(*key) {
                    answers.insert((*key).to_string(), answer.clone());
                }
            }
            round + 1
        } else {
            round
        };
        let Some(requests) = rounds.get(next) else {
            let text = final_text(name, &answers);
            return Ok(if method == "prompts/get" {
                json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}]})
            } else {
                json!({"content": [{"type": "text", "text": text}]})
            });
        };
        let question = crate::mcp::request_state::new_question_id().map_err(|error| {
            rpc_error::internal_error(format!("cannot draw a question id: {error}"))
        })?;
        let state = states.issue(
            &self.principal,
            &target,
            &question,
            json!({"round": next, "answers": answers}),
        );
        let input_requests: Map<String, Value> = requests
            .iter()
            .map(|(key, request)| ((*key).to_string(), request.clone()))
            .collect();
        Ok(json!({
            "resultType": "input_required",
            "inputRequests": input_requests,
            "requestState": state,
        }))
    }
}
