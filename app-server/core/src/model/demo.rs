//! The offline `demo` provider: a deterministic scripted agent.
//!
//! No network and no model: for each request the demo looks at the conversation since the last
//! user message, picks the first rule of [`SCRIPT`] that applies, and streams that rule's
//! steps as the events a Responses stream would produce.
//!
//! When the request offers tools, one turn is a guided tour of every item and request type:
//! a plan (`update_plan`), a command (`exec_command uname -srm`, which needs approval under
//! `untrusted`), a patch adding `tandem-demo.txt` (a file-change approval unless the sandbox
//! allows it), the plan again, a question (`request_user_input`, answered in plan mode only),
//! in plan mode with a client that answers the structured dialogs, a choice question
//! (`ask_user_question`) and an open one (`ask_user`), and a closing message that reports what
//! happened to each. A thread whose client declared tools (`dynamicTools`) also gets a call of
//! the first of them, right after the plan, with the request as `{"request": …}`; where the
//! operator offers `request_permissions`, the demo then asks for network access once.

use std::collections::VecDeque;
use std::time::Duration;

use app_server_protocol::thread::TokenUsageBreakdown;

use crate::model::{
    ContentItem, ModelClient, ModelError, ModelEvent, ModelListFuture, ModelRequest, ModelStream,
    ReasoningSummaryPart, ResponseItem,
};

/// Pause before each streamed delta, so clients see the answer arrive.
const DELTA_DELAY: Duration = Duration::from_millis(10);

/// Roughly how many deltas the answer is streamed in.
const MESSAGE_DELTAS: usize = 10;

/// Roughly how many deltas the reasoning summary is streamed in.
const REASONING_DELTAS: usize = 3;

/// Longest echo of the user's request, in characters.
const MAX_ECHO_CHARS: usize = 200;

/// The scripted demo model.
pub struct DemoClient {
    /// Pause before each delta ([`DELTA_DELAY`]; zero in tests).
    delta_delay: Duration,
}

/// What the demo sees of a request.
struct DemoContext<'a> {
    /// The text of the last user message (without the environment context).
    request_text: &'a str,
    /// Whether the request offers tools (the tour needs them).
    has_tools: bool,
    /// Names of the offered tools.
    tools: Vec<&'a str>,
    /// Outputs of the demo's own tool calls since the last user message, by call id.
    outputs: Vec<(String, String)>,
    /// The first offered tool that the client declared (`dynamicTools`): neither one of
    /// Tandem's own tools nor an MCP server's.
    client_tool: Option<&'a str>,
}

impl DemoContext<'_> {
    fn offers(&self, tool: &str) -> bool {
        self.tools.contains(&tool)
    }

    fn output(&self, call_id: &str) -> Option<&str> {
        self.outputs
            .iter()
            .find(|(id, _)| id == call_id)
            .map(|(_, output)| output.as_str())
    }
}

/// Call ids of the tour's steps, in order.
const PLAN_CALL: &str = "call_demo_plan";
const COMMAND_CALL: &str = "call_demo_command";
const PATCH_CALL: &str = "call_demo_patch";
const PLAN_DONE_CALL: &str = "call_demo_plan_done";
const QUESTION_CALL: &str = "call_demo_question";
const CHOICE_CALL: &str = "call_demo_choice";
const TEXT_CALL: &str = "call_demo_text";
const CLIENT_TOOL_CALL: &str = "call_demo_client_tool";
const PERMISSIONS_CALL: &str = "call_demo_permissions";

/// The command the tour runs: harmless, but not on the known-safe list.
pub const DEMO_COMMAND: &str = "uname -srm";
/// The file the tour's patch adds, relative to the thread's cwd.
pub const DEMO_FILE: &str = "tandem-demo.txt";

/// One step of a scripted response.
enum DemoStep {
    /// A reasoning item with this summary.
    Reasoning {
        /// The summary text.
        summary: String,
    },
    /// An assistant message.
    Message {
        /// The answer text.
        text: String,
    },
    /// A function call.
    ToolCall {
        /// The call id (also the item id of what it produces).
        call_id: &'static str,
        /// The tool.
        name: String,
        /// The arguments object.
        arguments: serde_json::Value,
    },
}

/// A rule of the script: when it applies, and what the demo then does.
struct DemoRule {
    /// Whether the rule handles this request.
    applies: fn(&DemoContext<'_>) -> bool,
    /// The steps of the response.
    steps: fn(&DemoContext<'_>) -> Vec<DemoStep>,
}

/// The script, tried in order; the last rule always applies.
const SCRIPT: &[DemoRule] = &[
    DemoRule {
        applies: |context| !context.has_tools,
        steps: plain_reply,
    },
    DemoRule {
        applies: |context| context.output(PLAN_CALL).is_none(),
        steps: |context| {
            let echo = echo(context.request_text);
            vec![
                DemoStep::Reasoning {
                    summary: format!("Planning a tour for: {echo}"),
                },
                DemoStep::Message {
                    text: format!(
                        "This is Tandem's scripted demo provider: no model is involved. You asked: \u{201c}{echo}\u{201d}. Instead of an answer, here is a tour: I will keep a plan, run a command, propose a patch and ask you a question."
                    ),
                },
                DemoStep::ToolCall {
                    call_id: PLAN_CALL,
                    name: "update_plan".into(),
                    arguments: plan_arguments(["in_progress", "pending", "pending"]),
                },
            ]
        },
    },
    DemoRule {
        // Only when the client declared tools: the first one is called once, with the request.
        applies: |context| {
            context.client_tool.is_some() && context.output(CLIENT_TOOL_CALL).is_none()
        },
        steps: |context| {
            vec![DemoStep::ToolCall {
                call_id: CLIENT_TOOL_CALL,
                name: context.client_tool.unwrap_or_default().to_string(),
                arguments: serde_json::json!({"request": echo(context.request_text)}),
            }]
        },
    },
    DemoRule {
        // Only where the operator offers `request_permissions`: network access is asked once.
        applies: |context| {
            context.offers("request_permissions") && context.output(PERMISSIONS_CALL).is_none()
        },
        steps: |_| {
            vec![DemoStep::ToolCall {
                call_id: PERMISSIONS_CALL,
                name: "request_permissions".into(),
                arguments: serde_json::json!({
                    "reason": "The demo would like to show a permission request.",
                    "permissions": {"network": {"enabled": true}},
                }),
            }]
        },
    },
    DemoRule {
        applies: |context| context.output(COMMAND_CALL).is_none(),
        steps: |_| {
            vec![DemoStep::ToolCall {
                call_id: COMMAND_CALL,
                name: "exec_command".into(),
                arguments: serde_json::json!({"cmd": DEMO_COMMAND, "login": false, "yield_time_ms": 5000}),
            }]
        },
    },
    DemoRule {
        applies: |context| context.output(PATCH_CALL).is_none(),
        steps: |_| {
            vec![DemoStep::ToolCall {
                call_id: PATCH_CALL,
                name: "apply_patch".into(),
                arguments: serde_json::json!({"input": format!(
                    "*** Begin Patch\n*** Add File: {DEMO_FILE}\n+Hello from the Tandem demo.\n*** End Patch\n"
                )}),
            }]
        },
    },
    DemoRule {
        applies: |context| context.output(PLAN_DONE_CALL).is_none(),
        steps: |_| {
            vec![
                DemoStep::ToolCall {
                    call_id: PLAN_DONE_CALL,
                    name: "update_plan".into(),
                    arguments: plan_arguments(["completed", "completed", "in_progress"]),
                },
                DemoStep::ToolCall {
                    call_id: QUESTION_CALL,
                    name: "request_user_input".into(),
                    arguments: serde_json::json!({"questions": [{
                        "id": "next_step",
                        "header": "Next step",
                        "question": "What should the demo do next?",
                        "options": [
                            {"label": "Finish (Recommended)", "description": "End the tour here."},
                            {"label": "Explain", "description": "Say what each step showed."}
                        ]
                    }]}),
                },
            ]
        },
    },
    DemoRule {
        // Only with `ask_user` (plan mode, an interactive client): the dialogs are part of the
        // plan-mode tour.
        applies: |context| {
            context.offers("ask_user")
                && context.offers("ask_user_question")
                && context.output(CHOICE_CALL).is_none()
        },
        steps: |_| {
            vec![DemoStep::ToolCall {
                call_id: CHOICE_CALL,
                name: "ask_user_question".into(),
                arguments: serde_json::json!({"questions": [
                    {"type": "multi_choice", "text": "Which parts of the tour were useful?", "options": ["The plan", "The command", "The patch"], "allow_other": true},
                    {"type": "single_choice", "text": "Would you try Tandem with a real model?", "options": ["Yes", "Not yet"], "allow_other": false}
                ]}),
            }]
        },
    },
    DemoRule {
        applies: |context| context.offers("ask_user") && context.output(TEXT_CALL).is_none(),
        steps: |_| {
            vec![DemoStep::ToolCall {
                call_id: TEXT_CALL,
                name: "ask_user".into(),
                arguments: serde_json::json!({"prompt": "Anything you would like the demo to know?"}),
            }]
        },
    },
    DemoRule {
        applies: |_| true,
        steps: tour_summary,
    },
];

/// `update_plan` arguments for the tour's three steps.
fn plan_arguments(statuses: [&str; 3]) -> serde_json::Value {
    let steps = ["Run a command", "Propose a patch", "Ask a question"];
    serde_json::json!({
        "explanation": "The demo's tour of Tandem's items and requests.",
        "plan": steps.iter().zip(statuses).map(|(step, status)| serde_json::json!({"step": step, "status": status})).collect::<Vec<_>>(),
    })
}

/// The closing message: what happened to the command, the patch and the question.
fn tour_summary(context: &DemoContext<'_>) -> Vec<DemoStep> {
    let command = match context.output(COMMAND_CALL) {
        Some(output) if output.contains("Rejected(") => "you declined the command".to_string(),
        Some(output) => match output.split("Output:\n").nth(1) {
            Some(printed) if output.contains("exited with code 0") => {
                format!("the command printed \u{201c}{}\u{201d}", printed.trim())
            }
            _ => "the command did not succeed".to_string(),
        },
        None => "the command did not run".to_string(),
    };
    let patch = match context.output(PATCH_CALL) {
        Some(output) if output.contains("Success.") => format!("I created {DEMO_FILE}"),
        Some(output) if output.contains("rejected by user") => "you declined the patch".to_string(),
        _ => "the patch was not applied".to_string(),
    };
    let question = match context.output(QUESTION_CALL) {
        Some(output) if output.starts_with('{') => format!("you answered {output}"),
        Some(output) if output.contains("unavailable") => {
            "questions need plan mode, so I could not ask".to_string()
        }
        _ => "the question got no answer".to_string(),
    };
    let mut dialogs = String::new();
    if let (Some(tool), Some(output)) = (context.client_tool, context.output(CLIENT_TOOL_CALL)) {
        dialogs.push_str(&format!(
            "; your tool `{tool}` answered \u{201c}{}\u{201d}",
            echo(output)
        ));
    }
    if let Some(output) = context.output(CHOICE_CALL) {
        dialogs.push_str(&format!("; to the choice questions: {output}"));
    }
    if let Some(output) = context.output(TEXT_CALL) {
        dialogs.push_str(&format!("; to the open question: {output}"));
    }
    vec![DemoStep::Message {
        text: format!(
            "Tour finished (scripted demo): {command}; {patch}; {question}{dialogs}. Configure a real model provider in config.toml to get actual answers."
        ),
    }]
}

impl DemoClient {
    /// Builds the demo client.
    pub fn new() -> Self {
        Self {
            delta_delay: DELTA_DELAY,
        }
    }
}

impl Default for DemoClient {
    fn default() -> Self {
        Self::new()
    }
}

impl ModelClient for DemoClient {
    fn stream(&self, request: ModelRequest) -> ModelStream {
        let events = scripted_events(&request, self.delta_delay);
        Box::pin(futures::stream::unfold(events, |mut events| async move {
            let (delay, event) = events.pop_front()?;
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            Some((Ok::<_, ModelError>(event), events))
        }))
    }

    fn list_models(&self) -> ModelListFuture<'_> {
        Box::pin(async { Ok(vec!["demo".to_string()]) })
    }
}

/// The plain answer: a short plan, then a message that says what the demo is.
fn plain_reply(context: &DemoContext<'_>) -> Vec<DemoStep> {
    let echo = echo(context.request_text);
    vec![
        DemoStep::Reasoning {
            summary: format!("Planning a reply to: {echo}"),
        },
        DemoStep::Message {
            text: format!(
                "This is Tandem's scripted demo provider: no model is involved, so I can only echo your request. You asked: \u{201c}{echo}\u{201d}. Configure a real model provider in config.toml to get actual answers."
            ),
        },
    ]
}

/// The events of the scripted response to `request`, each with the pause before it.
fn scripted_events(
    request: &ModelRequest,
    delta_delay: Duration,
) -> VecDeque<(Duration, ModelEvent)> {
    let request_text = last_user_text(&request.input);
    let context = DemoContext {
        request_text: &request_text,
        has_tools: !request.tools.is_empty(),
        tools: request
            .tools
            .iter()
            .map(|tool| tool.name.as_str())
            .collect(),
        outputs: demo_outputs(&request.input),
        client_tool: request
            .tools
            .iter()
            .map(|tool| tool.name.as_str())
            .find(|name| {
                !name.starts_with("mcp__") && crate::engine::tools::registry::find(name).is_none()
            }),
    };
    let steps = SCRIPT
        .iter()
        .find(|rule| (rule.applies)(&context))
        .map(|rule| (rule.steps)(&context))
        .unwrap_or_default();
    // Ids come from the request's position in the conversation: deterministic, and distinct
    // between the requests of one thread.
    let position = request.input.len();
    let mut events = VecDeque::new();
    let mut output_tokens = 0;
    let mut reasoning_tokens = 0;
    for step in steps {
        match step {
            DemoStep::Reasoning { summary } => {
                let id = format!("rs_demo_{position}");
                events.push_back((
                    Duration::ZERO,
                    ModelEvent::OutputItemAdded(ResponseItem::Reasoning {
                        id: id.clone(),
                        summary: Vec::new(),
                        content: None,
                        encrypted_content: None,
                    }),
                ));
                events.push_back((
                    Duration::ZERO,
                    ModelEvent::ReasoningSummaryPartAdded {
                        item_id: id.clone(),
                        summary_index: 0,
                    },
                ));
                for delta in word_chunks(&summary, REASONING_DELTAS) {
                    reasoning_tokens += 1;
                    events.push_back((
                        delta_delay,
                        ModelEvent::ReasoningSummaryTextDelta {
                            item_id: id.clone(),
                            summary_index: 0,
                            delta,
                        },
                    ));
                }
                events.push_back((
                    Duration::ZERO,
                    ModelEvent::OutputItemDone(ResponseItem::Reasoning {
                        id,
                        summary: vec![ReasoningSummaryPart::SummaryText { text: summary }],
                        content: None,
                        encrypted_content: None,
                    }),
                ));
            }
            DemoStep::ToolCall {
                call_id,
                name,
                arguments,
            } => {
                output_tokens += 1;
                events.push_back((
                    delta_delay,
                    ModelEvent::OutputItemDone(ResponseItem::FunctionCall {
                        id: Some(format!("fc_demo_{position}_{call_id}")),
                        call_id: call_id.to_string(),
                        name: name.to_string(),
                        arguments: arguments.to_string(),
                    }),
                ));
            }
            DemoStep::Message { text } => {
                let id = format!("msg_demo_{position}");
                events.push_back((
                    Duration::ZERO,
                    ModelEvent::OutputItemAdded(ResponseItem::Message {
                        id: Some(id.clone()),
                        role: "assistant".to_string(),
                        content: Vec::new(),
                    }),
                ));
                for delta in word_chunks(&text, MESSAGE_DELTAS) {
                    output_tokens += 1;
                    events.push_back((
                        delta_delay,
                        ModelEvent::OutputTextDelta {
                            item_id: id.clone(),
                            delta,
                        },
                    ));
                }
                events.push_back((
                    Duration::ZERO,
                    ModelEvent::OutputItemDone(ResponseItem::Message {
                        id: Some(id),
                        role: "assistant".to_string(),
                        content: vec![ContentItem::OutputText { text }],
                    }),
                ));
            }
        }
    }
    let input_tokens = estimated_tokens(request);
    let output_tokens = output_tokens + reasoning_tokens;
    events.push_back((
        Duration::ZERO,
        ModelEvent::Completed {
            response_id: format!("resp_demo_{position}"),
            usage: Some(TokenUsageBreakdown {
                total_tokens: input_tokens + output_tokens,
                input_tokens,
                cached_input_tokens: 0,
                cache_write_input_tokens: 0,
                output_tokens,
                reasoning_output_tokens: reasoning_tokens,
            }),
        },
    ));
    events
}

/// Outputs of tool calls after the last user message (the demo's own calls), by call id.
fn demo_outputs(input: &[ResponseItem]) -> Vec<(String, String)> {
    let start = input
        .iter()
        .rposition(|item| match item {
            ResponseItem::Message { role, content, .. } if role == "user" => {
                content.iter().any(|part| match part {
                    ContentItem::InputText { text } => {
                        !text.trim_start().starts_with("<environment_context>")
                    }
                    _ => false,
                })
            }
            _ => false,
        })
        .unwrap_or(0);
    input[start..]
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCallOutput { call_id, output }
            | ResponseItem::CustomToolCallOutput { call_id, output } => {
                Some((call_id.clone(), output.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The text of the last user message that is not the environment context.
fn last_user_text(input: &[ResponseItem]) -> String {
    input
        .iter()
        .rev()
        .filter_map(|item| match item {
            ResponseItem::Message { role, content, .. } if role == "user" => {
                let texts: Vec<&str> = content
                    .iter()
                    .filter_map(|part| match part {
                        ContentItem::InputText { text } => Some(text.as_str()),
                        _ => None,
                    })
                    .collect();
                Some(texts.join(" "))
            }
            _ => None,
        })
        .find(|text| !text.trim_start().starts_with("<environment_context>"))
        .unwrap_or_default()
}

/// The request on one line, shortened.
fn echo(request_text: &str) -> String {
    let line = request_text
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if line.is_empty() {
        return "(an empty message)".to_string();
    }
    match line.char_indices().nth(MAX_ECHO_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// `text` cut at word boundaries into about `count` pieces that concatenate back to it.
fn word_chunks(text: &str, count: usize) -> Vec<String> {
    let words: Vec<&str> = text.split_inclusive(' ').collect();
    let per_chunk = words.len().div_ceil(count.max(1)).max(1);
    words
        .chunks(per_chunk)
        .map(|chunk| chunk.concat())
        .collect()
}

/// About four characters per token, like the usual rule of thumb.
fn estimated_tokens(request: &ModelRequest) -> i64 {
    let characters: usize = request.instructions.len()
        + request
            .input
            .iter()
            .map(|item| serde_json::to_string(item).map_or(0, |json| json.len()))
            .sum::<usize>();
    i64::try_from(characters / 4).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use pretty_assertions::assert_eq;

    use super::*;

    fn request(input: Vec<ResponseItem>) -> ModelRequest {
        ModelRequest {
            model: "demo".to_string(),
            instructions: "be nice".to_string(),
            input,
            tools: Vec::new(),
            effort: None,
            summary: None,
            output_schema: None,
            thread_id: "thread".to_string(),
            turn_id: "turn".to_string(),
        }
    }

    fn user(text: &str) -> ResponseItem {
        ResponseItem::Message {
            id: None,
            role: "user".to_string(),
            content: vec![ContentItem::InputText {
                text: text.to_string(),
            }],
        }
    }

    #[tokio::test]
    async fn scripted_reply_echoes_the_request() {
        let input = vec![
            user("<environment_context>\n  <cwd>/tmp</cwd>\n</environment_context>"),
            user("Say hello."),
        ];
        let events: Vec<ModelEvent> = DemoClient {
            delta_delay: Duration::ZERO,
        }
        .stream(request(input))
        .map(|event| event.unwrap())
        .collect()
        .await;

        let summary: String = events
            .iter()
            .filter_map(|event| match event {
                ModelEvent::ReasoningSummaryTextDelta { item_id, delta, .. } => {
                    assert_eq!(item_id, "rs_demo_2");
                    Some(delta.as_str())
                }
                _ => None,
            })
            .collect();
        assert_eq!(summary, "Planning a reply to: Say hello.");

        let deltas: Vec<&str> = events
            .iter()
            .filter_map(|event| match event {
                ModelEvent::OutputTextDelta { item_id, delta } => {
                    assert_eq!(item_id, "msg_demo_2");
                    Some(delta.as_str())
                }
                _ => None,
            })
            .collect();
        assert!((8..=12).contains(&deltas.len()), "{deltas:?}");
        let text = deltas.concat();
        assert!(text.contains("scripted demo provider"), "{text}");
        assert!(text.contains("no model is involved"), "{text}");
        assert!(text.contains("\u{201c}Say hello.\u{201d}"), "{text}");

        assert_eq!(
            events.iter().find(|event| matches!(
                event,
                ModelEvent::OutputItemDone(ResponseItem::Message { .. })
            )),
            Some(&ModelEvent::OutputItemDone(ResponseItem::Message {
                id: Some("msg_demo_2".to_string()),
                role: "assistant".to_string(),
                content: vec![ContentItem::OutputText { text }],
            }))
        );
        assert!(matches!(
            events.first(),
            Some(ModelEvent::OutputItemAdded(ResponseItem::Reasoning { .. }))
        ));
        assert!(matches!(
            events.last(),
            Some(ModelEvent::Completed { usage: Some(usage), .. }) if usage.input_tokens > 0 && usage.output_tokens > 0
        ));
    }

    #[tokio::test]
    async fn scripted_reply_is_deterministic() {
        let input = vec![user("one"), user("two three")];
        let first: Vec<_> = DemoClient::new()
            .stream(request(input.clone()))
            .collect()
            .await;
        let second: Vec<_> = DemoClient::new().stream(request(input)).collect().await;
        assert_eq!(first, second);
    }

    #[test]
    fn chunks_concatenate_back() {
        let text = "a b c d e f g h i j k l m n o p q r s t u v w";
        let chunks = word_chunks(text, 10);
        assert_eq!(chunks.concat(), text);
        assert!(chunks.len() <= 10);
        assert_eq!(word_chunks("", 10), Vec::<String>::new());
    }
}
