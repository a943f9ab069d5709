//! Approvals and questions as `elicitation/create` requests.
//!
//! Each engine question ([`ApprovalRequest`]) becomes a spec-valid form elicitation: a
//! message, a flat `requestedSchema` (a `decision` enum for approvals, one string per question
//! for user input) and Codex-style details under `_meta`. Answers are accepted in the spec's
//! shape (`{action, content}`) and in Codex's (`{decision}`). A client that did not declare
//! the elicitation capability is never asked: the configured [`ApprovalFallback`] decides and
//! the tool result says so.

use std::collections::BTreeMap;

use app_server_protocol::dialogs::{QuestionAnswer, QuestionAnswersResponse};
use app_server_protocol::dynamic_tools::DynamicToolCallResponse;
use app_server_protocol::item::DynamicToolCallOutputContentItem;
use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::mcp_servers::{
    McpServerElicitationAction, McpServerElicitationRequest, McpServerElicitationRequestResponse,
};
use app_server_protocol::permissions::{
    GrantedPermissionProfile, PermissionGrantScope, PermissionsRequestApprovalParams,
    PermissionsRequestApprovalResponse, RequestPermissionProfile,
};
use app_server_protocol::server_requests::{
    CommandExecutionApprovalDecision, FileChangeApprovalDecision, ToolRequestUserInputAnswer,
    ToolRequestUserInputResponse,
};
use serde_json::{Map, Value, json};

use tandem_core::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest};

/// Decision values offered to the user, Codex's `ReviewDecision` names.
const DECISIONS: [(&str, &str); 4] = [
    ("approved", "Approve"),
    (
        "approved_for_session",
        "Approve for the rest of this conversation",
    ),
    ("denied", "Deny (the agent goes on without it)"),
    ("abort", "Deny and stop the turn"),
];

/// What happens to approvals when the client cannot be asked (no elicitation capability).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ApprovalFallback {
    /// Decline: commands do not run, patches are not written, questions get no answer.
    Decline,
    /// Approve everything the agent asks for.
    Approve,
}

impl ApprovalFallback {
    /// The name used on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            ApprovalFallback::Decline => "decline",
            ApprovalFallback::Approve => "approve",
        }
    }
}

/// `elicitation/create` params for `request`, asked on behalf of the tool call `call`.
///
/// `announced` is the `codex/event` notification that announced the question
/// (`exec_approval_request`, `apply_patch_approval_request`), if any: for those two questions
/// Codex's own fields also go at the top level of the params, with the types `codex
/// mcp-server` sent them (see [`codex_top_level`]).
pub fn elicitation_params(
    request: &ApprovalRequest,
    call: Option<&RequestId>,
    protocol_version: &str,
    announced: Option<&Value>,
) -> Value {
    let mut meta = Map::new();
    meta.insert("threadId".into(), json!(request.thread_id()));
    if let Some(call) = call {
        meta.insert("codex_mcp_tool_call_id".into(), json!(call));
    }
    let (message, schema) = match request {
        ApprovalRequest::Command(params) => {
            meta.insert("codex_elicitation".into(), json!("exec-approval"));
            meta.insert("turnId".into(), json!(params.turn_id));
            meta.insert("codex_call_id".into(), json!(params.item_id));
            let command = params.command.clone().unwrap_or_default();
            let argv = shlex::split(&command).unwrap_or_else(|| vec![command.clone()]);
            meta.insert("codex_command".into(), json!(argv));
            if let Some(cwd) = &params.cwd {
                meta.insert("codex_cwd".into(), json!(cwd));
            }
            if let Some(reason) = &params.reason {
                meta.insert("codex_reason".into(), json!(reason));
            }
            let mut message = format!("Allow Tandem to run `{command}`");
            if let Some(cwd) = &params.cwd {
                message.push_str(&format!(" in {cwd}"));
            }
            message.push('?');
            if let Some(reason) = &params.reason {
                message.push_str(&format!(" Reason: {reason}"));
            }
            (message, decision_schema(protocol_version))
        }
        ApprovalRequest::FileChange(params) => {
            meta.insert("codex_elicitation".into(), json!("patch-approval"));
            meta.insert("turnId".into(), json!(params.turn_id));
            meta.insert("codex_call_id".into(), json!(params.item_id));
            if let Some(reason) = &params.reason {
                meta.insert("codex_reason".into(), json!(reason));
            }
            if let Some(root) = &params.grant_root {
                meta.insert("codex_grant_root".into(), json!(root));
            }
            let mut message = "Allow Tandem to apply the proposed file changes?".to_string();
            if let Some(reason) = &params.reason {
                message.push_str(&format!(" Reason: {reason}"));
            }
            if let Some(root) = &params.grant_root {
                message.push_str(&format!(" It also asks to write under {root}."));
            }
            (message, decision_schema(protocol_version))
        }
        ApprovalRequest::UserInput(params) => {
            meta.insert("codex_elicitation".into(), json!("user-input"));
            meta.insert("turnId".into(), json!(params.turn_id));
            meta.insert("codex_call_id".into(), json!(params.item_id));
            let mut properties = Map::new();
            let mut required = Vec::new();
            let mut message = "Tandem has a question for you.".to_string();
            for question in &params.questions {
                message.push_str(&format!("\n{}: {}", question.header, question.question));
                let mut property = json!({
                    "type": "string",
                    "title": question.header,
                    "description": question.question,
                });
                if let Some(options) = &question.options
                    && !question.is_other
                    && !options.is_empty()
                {
                    let labels: Vec<&str> =
                        options.iter().map(|option| option.label.as_str()).collect();
                    property["enum"] = json!(labels);
                }
                properties.insert(question.id.clone(), property);
                required.push(question.id.clone());
            }
            let schema = json!({"type": "object", "properties": properties, "required": required});
            (message, schema)
        }
        ApprovalRequest::FreeText(params) => {
            meta.insert("codex_elicitation".into(), json!("user-input"));
            meta.insert("turnId".into(), json!(params.turn_id));
            meta.insert("codex_call_id".into(), json!(params.tool_call_id));
            let schema = json!({
                "type": "object",
                "properties": {"answer": {"type": "string", "title": "Answer"}},
                "required": ["answer"],
            });
            (params.prompt.clone(), schema)
        }
        ApprovalRequest::Choices(params) => {
            meta.insert("codex_elicitation".into(), json!("user-input"));
            meta.insert("turnId".into(), json!(params.turn_id));
            meta.insert("codex_call_id".into(), json!(params.tool_call_id));
            let mut properties = Map::new();
            let mut message = "Tandem has a question for you.".to_string();
            for (index, question) in params.questions.iter().enumerate() {
                message.push_str(&format!("\n{}", question.text));
                let mut property = json!({"type": "string", "title": question.text});
                if !question.allow_other {
                    property["enum"] = json!(question.options);
                }
                properties.insert(format!("q{index}"), property);
            }
            let required: Vec<&String> = properties.keys().collect();
            let schema = json!({"type": "object", "properties": properties, "required": required});
            (message, schema)
        }
        ApprovalRequest::Permissions(params) => {
            meta.insert("codex_elicitation".into(), json!("permissions-approval"));
            meta.insert("turnId".into(), json!(params.turn_id));
            meta.insert("codex_call_id".into(), json!(params.item_id));
            meta.insert(
                "permissions".into(),
                serde_json::to_value(&params.permissions).unwrap_or(Value::Null),
            );
            let mut message = format!(
                "Allow Tandem's commands more access than their sandbox gives, in {}: {}?",
                params.cwd,
                permissions_summary(&params.permissions)
            );
            if let Some(reason) = &params.reason {
                message.push_str(&format!(" Reason: {reason}"));
            }
            (message, decision_schema(protocol_version))
        }
        ApprovalRequest::DynamicToolCall(params) => {
            meta.insert("codex_elicitation".into(), json!("dynamic-tool-call"));
            meta.insert("turnId".into(), json!(params.turn_id));
            meta.insert("codex_call_id".into(), json!(params.call_id));
            let tool = match &params.namespace {
                Some(namespace) => format!("{namespace}/{}", params.tool),
                None => params.tool.clone(),
            };
            let message = format!(
                "The agent calls the client tool `{tool}` with {}. Give the tool's output.",
                params.arguments
            );
            let schema = json!({
                "type": "object",
                "properties": {"output": {"type": "string", "title": "Output"}},
                "required": ["output"],
            });
            (message, schema)
        }
        ApprovalRequest::McpElicitation(params) => {
            meta.insert("codex_elicitation".into(), json!("mcp-server-elicitation"));
            meta.insert("turnId".into(), json!(params.turn_id));
            meta.insert("serverName".into(), json!(params.server_name));
            match &params.request {
                McpServerElicitationRequest::Form {
                    meta: inner,
                    message,
                    requested_schema,
                } => {
                    if let Some(inner) = inner {
                        meta.insert("request".into(), inner.clone());
                    }
                    (
                        format!(
                            "{} (asked by the MCP server `{}`)",
                            message, params.server_name
                        ),
                        requested_schema.clone(),
                    )
                }
                McpServerElicitationRequest::Url { message, url, .. } => (
                    format!(
                        "{message} Open {url} (asked by the MCP server `{}`)",
                        params.server_name
                    ),
                    json!({"type": "object", "properties": {}}),
                ),
            }
        }
    };
    let mut params = json!({
        "message": message,
        "requestedSchema": schema,
    });
    if let (Value::Object(params), Some(announced)) = (&mut params, announced) {
        params.extend(codex_top_level(request, call, announced));
    }
    params["_meta"] = Value::Object(meta);
    if protocol_version >= "2025-11-25" {
        params["mode"] = json!("form");
    }
    params
}

/// The fields `codex mcp-server` put at the top level of an approval's `elicitation/create`
/// params, beside `message` and `requestedSchema`, in its order and with its types:
/// `threadId`, `codex_elicitation` (`exec-approval` / `patch-approval`),
/// `codex_mcp_tool_call_id` (the tool call's request id as a string), `codex_event_id` (the
/// id of the announcing event, the turn id), `codex_call_id`, then for commands
/// `codex_command` (argv), `codex_cwd` and `codex_parsed_cmd`, and for patches `codex_reason`
/// and `codex_grant_root` (when set) and `codex_changes` (by absolute path). They are read
/// from the announcing `codex/event` (`announced`), so both say the same thing. Other
/// questions have no such fields.
pub fn codex_top_level(
    request: &ApprovalRequest,
    call: Option<&RequestId>,
    announced: &Value,
) -> Map<String, Value> {
    let mut fields = Map::new();
    let msg = &announced["params"]["msg"];
    let (kind, item_id) = match request {
        ApprovalRequest::Command(params) => ("exec-approval", &params.item_id),
        ApprovalRequest::FileChange(params) => ("patch-approval", &params.item_id),
        ApprovalRequest::UserInput(_)
        | ApprovalRequest::FreeText(_)
        | ApprovalRequest::Choices(_)
        | ApprovalRequest::McpElicitation(_)
        | ApprovalRequest::DynamicToolCall(_)
        | ApprovalRequest::Permissions(_) => return fields,
    };
    fields.insert("threadId".into(), json!(request.thread_id()));
    fields.insert("codex_elicitation".into(), json!(kind));
    if let Some(call) = call {
        let call = match call {
            RequestId::String(id) => id.clone(),
            RequestId::Integer(id) => id.to_string(),
        };
        fields.insert("codex_mcp_tool_call_id".into(), json!(call));
    }
    if let Some(event_id) = announced["params"]["id"].as_str() {
        fields.insert("codex_event_id".into(), json!(event_id));
    }
    fields.insert("codex_call_id".into(), json!(item_id));
    let copy = |fields: &mut Map<String, Value>, from: &str, to: &str| {
        if let Some(value) = msg.get(from).filter(|value| !value.is_null()) {
            fields.insert(to.into(), value.clone());
        }
    };
    match request {
        ApprovalRequest::Command(_) => {
            copy(&mut fields, "command", "codex_command");
            copy(&mut fields, "cwd", "codex_cwd");
            copy(&mut fields, "parsed_cmd", "codex_parsed_cmd");
        }
        ApprovalRequest::FileChange(_) => {
            copy(&mut fields, "reason", "codex_reason");
            copy(&mut fields, "grant_root", "codex_grant_root");
            copy(&mut fields, "changes", "codex_changes");
        }
        // Returned above.
        ApprovalRequest::UserInput(_)
        | ApprovalRequest::FreeText(_)
        | ApprovalRequest::Choices(_)
        | ApprovalRequest::McpElicitation(_)
        | ApprovalRequest::DynamicToolCall(_)
        | ApprovalRequest::Permissions(_) => {}
    }
    fields
}

/// The flat schema with one required `decision` property.
fn decision_schema(protocol_version: &str) -> Value {
    let values: Vec<&str> = DECISIONS.iter().map(|(value, _)| *value).collect();
    let decision = if protocol_version >= "2025-11-25" {
        let variants: Vec<Value> = DECISIONS
            .iter()
            .map(|(value, title)| json!({"const": value, "title": title}))
            .collect();
        json!({"type": "string", "title": "Decision", "oneOf": variants, "default": "approved"})
    } else {
        let names: Vec<&str> = DECISIONS.iter().map(|(_, title)| *title).collect();
        json!({"type": "string", "title": "Decision", "enum": values, "enumNames": names})
    };
    json!({
        "type": "object",
        "properties": {"decision": decision},
        "required": ["decision"],
    })
}

/// Maps the client's answer (`Ok(result)` or `Err(error object)`) to the engine's reply.
pub fn reply_from_answer(
    request: &ApprovalRequest,
    outcome: Result<Value, Value>,
) -> ApprovalReply {
    let result = match outcome {
        Ok(result) => result,
        Err(error) => {
            // An error answer means the question could not be put to the user: stop the turn
            // rather than guess.
            tracing::info!(%error, "elicitation answered with an error; aborting");
            return match request {
                ApprovalRequest::UserInput(_) => ApprovalReply::Withdrawn,
                ApprovalRequest::FreeText(_)
                | ApprovalRequest::Choices(_)
                | ApprovalRequest::DynamicToolCall(_) => ApprovalReply::Failed(error_text(&error)),
                ApprovalRequest::Command(_)
                | ApprovalRequest::FileChange(_)
                | ApprovalRequest::McpElicitation(_)
                | ApprovalRequest::Permissions(_) => decision_reply(request, ReviewDecision::Abort),
            };
        }
    };
    match request {
        ApprovalRequest::UserInput(_) => return user_input_reply(&result),
        ApprovalRequest::FreeText(_) | ApprovalRequest::Choices(_) => {
            return dialog_reply(request, &result);
        }
        ApprovalRequest::DynamicToolCall(_) => return tool_output_reply(&result),
        ApprovalRequest::Command(_)
        | ApprovalRequest::FileChange(_)
        | ApprovalRequest::McpElicitation(_)
        | ApprovalRequest::Permissions(_) => {}
    }
    if let ApprovalRequest::McpElicitation(_) = request {
        return match serde_json::from_value::<McpServerElicitationRequestResponse>(result) {
            Ok(response) => ApprovalReply::Answered(ApprovalAnswer::McpElicitation(response)),
            Err(error) => ApprovalReply::Failed(format!("unreadable elicitation answer: {error}")),
        };
    }
    let action = result.get("action").and_then(Value::as_str);
    let decision = match action {
        Some("accept") => result
            .pointer("/content/decision")
            .and_then(Value::as_str)
            .unwrap_or("approved"),
        Some("decline") => "denied",
        Some("cancel") => "abort",
        Some(other) => {
            return ApprovalReply::Failed(format!("unknown elicitation action `{other}`"));
        }
        None => match result.get("decision").and_then(Value::as_str) {
            Some(decision) => decision,
            None => {
                return ApprovalReply::Failed(
                    "elicitation answer has neither `action` nor `decision`".into(),
                );
            }
        },
    };
    match ReviewDecision::from_name(decision) {
        Some(decision) => decision_reply(request, decision),
        None => ApprovalReply::Failed(format!("unknown decision `{decision}`")),
    }
}

/// The four answers an MCP client can give to an approval (Codex's `ReviewDecision`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReviewDecision {
    Approved,
    ApprovedForSession,
    Denied,
    Abort,
}

impl ReviewDecision {
    /// Parses a decision name, Codex's or the app-server protocol's.
    fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "approved" | "accept" | "approve" => ReviewDecision::Approved,
            "approved_for_session" | "acceptForSession" => ReviewDecision::ApprovedForSession,
            "denied" | "decline" | "deny" => ReviewDecision::Denied,
            "abort" | "cancel" => ReviewDecision::Abort,
            _ => return None,
        })
    }
}

/// The engine's typed answer to `request` for an MCP decision.
fn decision_reply(request: &ApprovalRequest, decision: ReviewDecision) -> ApprovalReply {
    let answer = match request {
        ApprovalRequest::Command(_) => ApprovalAnswer::Command(match decision {
            ReviewDecision::Approved => CommandExecutionApprovalDecision::Accept,
            ReviewDecision::ApprovedForSession => {
                CommandExecutionApprovalDecision::AcceptForSession
            }
            ReviewDecision::Denied => CommandExecutionApprovalDecision::Decline,
            ReviewDecision::Abort => CommandExecutionApprovalDecision::Cancel,
        }),
        ApprovalRequest::FileChange(_) => ApprovalAnswer::FileChange(match decision {
            ReviewDecision::Approved => FileChangeApprovalDecision::Accept,
            ReviewDecision::ApprovedForSession => FileChangeApprovalDecision::AcceptForSession,
            ReviewDecision::Denied => FileChangeApprovalDecision::Decline,
            ReviewDecision::Abort => FileChangeApprovalDecision::Cancel,
        }),
        // Questions are not decided; an approval-style answer leaves them unanswered.
        ApprovalRequest::UserInput(_) => ApprovalAnswer::UserInput(no_answers()),
        ApprovalRequest::FreeText(_) | ApprovalRequest::Choices(_) => {
            return ApprovalReply::Failed("the question was left unanswered".into());
        }
        // Approval grants what the model asked for (the engine bounds it by the ceiling), for
        // the turn or the rest of the thread; a refusal grants nothing.
        ApprovalRequest::Permissions(params) => {
            let (permissions, scope) = match decision {
                ReviewDecision::Approved => (granted_as_asked(params), PermissionGrantScope::Turn),
                ReviewDecision::ApprovedForSession => {
                    (granted_as_asked(params), PermissionGrantScope::Session)
                }
                ReviewDecision::Denied | ReviewDecision::Abort => (
                    GrantedPermissionProfile::default(),
                    PermissionGrantScope::Turn,
                ),
            };
            ApprovalAnswer::Permissions(PermissionsRequestApprovalResponse {
                permissions,
                scope,
                strict_auto_review: None,
            })
        }
        // Nobody ran the tool: the call fails, whatever the fallback.
        ApprovalRequest::DynamicToolCall(_) => {
            return ApprovalReply::Failed("nobody could run the client's tool".into());
        }
        ApprovalRequest::McpElicitation(_) => {
            ApprovalAnswer::McpElicitation(McpServerElicitationRequestResponse {
                action: match decision {
                    ReviewDecision::Approved | ReviewDecision::ApprovedForSession => {
                        McpServerElicitationAction::Accept
                    }
                    ReviewDecision::Denied => McpServerElicitationAction::Decline,
                    ReviewDecision::Abort => McpServerElicitationAction::Cancel,
                },
                content: None,
                meta: None,
            })
        }
    };
    ApprovalReply::Answered(answer)
}

/// The message of a JSON-RPC error object, or the whole object.
fn error_text(error: &Value) -> String {
    match error.get("message").and_then(Value::as_str) {
        Some(message) => message.to_string(),
        None => error.to_string(),
    }
}

/// The answer to `ask_user` or `ask_user_question` from an elicitation result.
fn dialog_reply(request: &ApprovalRequest, result: &Value) -> ApprovalReply {
    match result.get("action").and_then(Value::as_str) {
        Some("accept") => {}
        Some(action) => return ApprovalReply::Failed(format!("the user chose `{action}`")),
        None => return ApprovalReply::Failed("elicitation answer has no `action`".into()),
    }
    let content = result.get("content").cloned().unwrap_or(Value::Null);
    let answer = match request {
        ApprovalRequest::Choices(params) => ApprovalAnswer::Choices(QuestionAnswersResponse {
            answers: (0..params.questions.len())
                .filter_map(|index| {
                    let value = content.get(format!("q{index}"))?;
                    let selected = match value {
                        Value::Array(items) => items.iter().map(value_text).collect(),
                        other => vec![value_text(other)],
                    };
                    Some(QuestionAnswer {
                        question_index: index,
                        selected,
                    })
                })
                .collect(),
        }),
        // Only dialogs come here (see `reply_from_answer`); every other question reads as free
        // text, the form's one `answer` field.
        ApprovalRequest::FreeText(_)
        | ApprovalRequest::Command(_)
        | ApprovalRequest::FileChange(_)
        | ApprovalRequest::UserInput(_)
        | ApprovalRequest::McpElicitation(_)
        | ApprovalRequest::DynamicToolCall(_)
        | ApprovalRequest::Permissions(_) => {
            ApprovalAnswer::FreeText(content.get("answer").map(value_text).unwrap_or_default())
        }
    };
    ApprovalReply::Answered(answer)
}

/// The output of a client tool from an elicitation result: the form's `output` text on
/// `accept`, a failed call otherwise.
fn tool_output_reply(result: &Value) -> ApprovalReply {
    let (text, success) = match result.get("action").and_then(Value::as_str) {
        Some("accept") => (
            result
                .pointer("/content/output")
                .map(value_text)
                .unwrap_or_default(),
            true,
        ),
        Some(action) => (format!("the user chose `{action}`"), false),
        None => ("elicitation answer has no `action`".to_string(), false),
    };
    ApprovalReply::Answered(ApprovalAnswer::DynamicToolCall(DynamicToolCallResponse {
        content_items: vec![DynamicToolCallOutputContentItem::InputText { text }],
        success,
    }))
}

fn no_answers() -> ToolRequestUserInputResponse {
    ToolRequestUserInputResponse {
        answers: BTreeMap::new(),
    }
}

fn user_input_reply(result: &Value) -> ApprovalReply {
    let answers = match result.get("action").and_then(Value::as_str) {
        Some("accept") => {
            let mut answers = BTreeMap::new();
            if let Some(Value::Object(content)) = result.get("content") {
                for (id, value) in content {
                    let values: Vec<String> = match value {
                        Value::Array(items) => items.iter().map(value_text).collect(),
                        other => vec![value_text(other)],
                    };
                    answers.insert(id.clone(), ToolRequestUserInputAnswer { answers: values });
                }
            }
            ToolRequestUserInputResponse { answers }
        }
        Some("decline") => no_answers(),
        Some("cancel") => return ApprovalReply::Withdrawn,
        _ => match result.get("answers") {
            Some(answers) => {
                match serde_json::from_value::<ToolRequestUserInputResponse>(
                    json!({"answers": answers}),
                ) {
                    Ok(response) => response,
                    Err(error) => {
                        return ApprovalReply::Failed(format!("unreadable `answers`: {error}"));
                    }
                }
            }
            None => return ApprovalReply::Failed("elicitation answer has no `action`".into()),
        },
    };
    ApprovalReply::Answered(ApprovalAnswer::UserInput(answers))
}

fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// The reply when the client cannot be asked, and the note for the tool result.
pub fn fallback_reply(
    request: &ApprovalRequest,
    fallback: ApprovalFallback,
) -> (ApprovalReply, String) {
    let what = match request {
        ApprovalRequest::Command(params) => format!(
            "running `{}`",
            params.command.as_deref().unwrap_or("a command")
        ),
        ApprovalRequest::FileChange(_) => "applying file changes".to_string(),
        ApprovalRequest::UserInput(_)
        | ApprovalRequest::FreeText(_)
        | ApprovalRequest::Choices(_) => "answering the agent's questions".to_string(),
        ApprovalRequest::McpElicitation(params) => {
            format!("answering the MCP server `{}`", params.server_name)
        }
        ApprovalRequest::DynamicToolCall(params) => {
            format!("running the client tool `{}`", params.tool)
        }
        ApprovalRequest::Permissions(params) => format!(
            "granting commands {}",
            permissions_summary(&params.permissions)
        ),
    };
    let reply = match fallback {
        ApprovalFallback::Decline => decision_reply(request, ReviewDecision::Denied),
        ApprovalFallback::Approve => decision_reply(request, ReviewDecision::Approved),
    };
    let outcome = match (request, fallback) {
        (
            ApprovalRequest::UserInput(_)
            | ApprovalRequest::FreeText(_)
            | ApprovalRequest::Choices(_),
            _,
        ) => "left unanswered",
        (ApprovalRequest::DynamicToolCall(_), _) => "not run",
        (_, ApprovalFallback::Decline) => "declined",
        (_, ApprovalFallback::Approve) => "approved",
    };
    let note = format!(
        "Approval was required for {what}; this MCP client does not support elicitation, so it was {outcome} (approval fallback: {}).",
        fallback.name()
    );
    (reply, note)
}

/// Everything `params` asks for, as a grant.
fn granted_as_asked(params: &PermissionsRequestApprovalParams) -> GrantedPermissionProfile {
    GrantedPermissionProfile {
        network: params.permissions.network.clone(),
        file_system: params.permissions.file_system.clone(),
    }
}

/// What a permission request asks for, in words.
fn permissions_summary(permissions: &RequestPermissionProfile) -> String {
    let mut parts = Vec::new();
    if permissions
        .network
        .as_ref()
        .is_some_and(|network| network.enabled == Some(true))
    {
        parts.push("network access".to_string());
    }
    if let Some(file_system) = &permissions.file_system {
        for (verb, paths) in [("read", &file_system.read), ("write", &file_system.write)] {
            if let Some(paths) = paths.as_ref().filter(|paths| !paths.is_empty()) {
                parts.push(format!("{verb} {}", paths.join(", ")));
            }
        }
        if file_system
            .entries
            .as_ref()
            .is_some_and(|entries| !entries.is_empty())
        {
            parts.push("file-system entries".to_string());
        }
    }
    if parts.is_empty() {
        "nothing".to_string()
    } else {
        parts.join("; ")
    }
}

#[cfg(test)]
#[path = "elicitation_tests.rs"]
mod tests;
