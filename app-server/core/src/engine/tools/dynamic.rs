//! Client-provided tools (`thread/start.dynamicTools`): checked when the thread starts, offered
//! to the model with every request of the thread, and run by the client when the model calls
//! one, as a `dynamicToolCall` item around an `item/tool/call` question to the client.
//!
//! A tool of a namespace is offered to the model as `<namespace>__<tool>`; the item and the
//! request name the namespace and the tool apart. The client's answer is untrusted: its
//! content is cut to [`DYNAMIC_TOOL_OUTPUT_MAX_BYTES`] (with a closing note) before the model,
//! the client's item or the rollout sees it.

use std::collections::HashSet;
use std::time::Instant;

use app_server_protocol::dynamic_tools::{
    DynamicToolCallParams, DynamicToolCallResponse, DynamicToolNamespaceTool, DynamicToolSpec,
    FunctionDynamicToolSpec,
};
use app_server_protocol::item::{
    DynamicToolCallOutputContentItem, DynamicToolCallStatus, ThreadItemDetails,
};
use serde_json::Value;

use crate::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest};
use crate::engine::tools::{ToolCall, ToolOutcome, registry};
use crate::engine::turn::TurnTask;
use crate::model::{ContentItem, ResponseItem, ToolSpec};
use crate::sync::lock;

/// At most this many tools (namespaced ones counted one by one) per thread.
pub const MAX_DYNAMIC_TOOLS: usize = 1_000;
/// The longest name of a tool or namespace, in bytes.
pub const MAX_DYNAMIC_TOOL_NAME_BYTES: usize = 128;
/// The longest description, in bytes.
pub const MAX_DYNAMIC_TOOL_DESCRIPTION_BYTES: usize = 64 * 1024;
/// The largest input schema, as JSON, in bytes.
pub const MAX_DYNAMIC_TOOL_SCHEMA_BYTES: usize = 256 * 1024;
/// The most of a client's answer (its texts and URLs) that reaches the model, the item and
/// the rollout.
pub const DYNAMIC_TOOL_OUTPUT_MAX_BYTES: usize = 1024 * 1024;

/// What separates a namespace from its tool in the name the model calls.
const NAMESPACE_SEPARATOR: &str = "__";
/// The prefix of MCP tools' names, which a client's tool may not take.
const RESERVED_PREFIX: &str = "mcp__";

/// Checks the tools a client declares at `thread/start`; the message is the `-32600` error.
pub fn validate(specs: &[DynamicToolSpec]) -> Result<(), String> {
    let mut model_names = HashSet::new();
    let mut count = 0usize;
    for spec in specs {
        match spec {
            DynamicToolSpec::Function(function) => {
                count += 1;
                check_function(function, None)?;
                if !model_names.insert(function.name.clone()) {
                    return Err(format!("duplicate dynamic tool name: {}", function.name));
                }
            }
            DynamicToolSpec::Namespace(namespace) => {
                check_name("dynamic tool namespace", &namespace.name)?;
                check_description(&namespace.name, &namespace.description)?;
                if namespace.tools.is_empty() {
                    return Err(format!(
                        "dynamic tool namespace must contain at least one tool: {}",
                        namespace.name
                    ));
                }
                let mut inner = HashSet::new();
                for DynamicToolNamespaceTool::Function(function) in &namespace.tools {
                    count += 1;
                    check_function(function, Some(&namespace.name))?;
                    if !inner.insert(function.name.as_str()) {
                        return Err(format!(
                            "duplicate dynamic tool name in namespace {}: {}",
                            namespace.name, function.name
                        ));
                    }
                    let model_name = namespaced(&namespace.name, &function.name);
                    if !model_names.insert(model_name.clone()) {
                        return Err(format!("duplicate dynamic tool name: {model_name}"));
                    }
                }
            }
        }
        if count > MAX_DYNAMIC_TOOLS {
            return Err(format!(
                "too many dynamic tools: at most {MAX_DYNAMIC_TOOLS} may be declared"
            ));
        }
    }
    Ok(())
}

/// The definitions sent to the model for `specs` (already validated).
pub fn tool_specs(specs: &[DynamicToolSpec]) -> Vec<ToolSpec> {
    let definition = |name: String, function: &FunctionDynamicToolSpec| ToolSpec {
        name,
        description: function.description.clone(),
        parameters: function.input_schema.clone(),
    };
    let mut tools = Vec::new();
    for spec in specs {
        match spec {
            DynamicToolSpec::Function(function) => {
                tools.push(definition(function.name.clone(), function));
            }
            DynamicToolSpec::Namespace(namespace) => {
                for DynamicToolNamespaceTool::Function(function) in &namespace.tools {
                    tools.push(definition(
                        namespaced(&namespace.name, &function.name),
                        function,
                    ));
                }
            }
        }
    }
    tools
}

/// The declared tool the model calls `model_name`: its namespace and its own name.
pub fn resolve(specs: &[DynamicToolSpec], model_name: &str) -> Option<(Option<String>, String)> {
    specs.iter().find_map(|spec| match spec {
        DynamicToolSpec::Function(function) => {
            (function.name == model_name).then(|| (None, function.name.clone()))
        }
        DynamicToolSpec::Namespace(namespace) => {
            namespace
                .tools
                .iter()
                .find_map(|DynamicToolNamespaceTool::Function(function)| {
                    (namespaced(&namespace.name, &function.name) == model_name)
                        .then(|| (Some(namespace.name.clone()), function.name.clone()))
                })
        }
    })
}

fn namespaced(namespace: &str, tool: &str) -> String {
    format!("{namespace}{NAMESPACE_SEPARATOR}{tool}")
}

fn check_function(
    function: &FunctionDynamicToolSpec,
    namespace: Option<&str>,
) -> Result<(), String> {
    check_name("dynamic tool name", &function.name)?;
    if namespace.is_none() && function.defer_loading == Some(true) {
        return Err(format!(
            "deferred dynamic tool must include a namespace: {}",
            function.name
        ));
    }
    let model_name = match namespace {
        Some(namespace) => namespaced(namespace, &function.name),
        None => function.name.clone(),
    };
    if model_name.starts_with(RESERVED_PREFIX) || registry::find(&model_name).is_some() {
        return Err(format!("dynamic tool name is reserved: {model_name}"));
    }
    check_description(&function.name, &function.description)?;
    if !function.input_schema.is_object() {
        return Err(format!(
            "dynamic tool input schema is not supported for {}: it must be a JSON object",
            function.name
        ));
    }
    let schema_bytes = serde_json::to_string(&function.input_schema)
        .map(|text| text.len())
        .unwrap_or(usize::MAX);
    if schema_bytes > MAX_DYNAMIC_TOOL_SCHEMA_BYTES {
        return Err(format!(
            "dynamic tool input schema of {} is too large: {schema_bytes} bytes, at most {MAX_DYNAMIC_TOOL_SCHEMA_BYTES}",
            function.name
        ));
    }
    Ok(())
}

fn check_name(what: &str, name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("{what} must not be empty"));
    }
    if name.len() > MAX_DYNAMIC_TOOL_NAME_BYTES {
        return Err(format!(
            "{what} is too long: {} bytes, at most {MAX_DYNAMIC_TOOL_NAME_BYTES}",
            name.len()
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!(
            "{what} must match ^[a-zA-Z0-9_-]+$ to match Responses API: {name}"
        ));
    }
    Ok(())
}

fn check_description(name: &str, description: &str) -> Result<(), String> {
    if description.len() > MAX_DYNAMIC_TOOL_DESCRIPTION_BYTES {
        return Err(format!(
            "dynamic tool description of {name} is too long: {} bytes, at most {MAX_DYNAMIC_TOOL_DESCRIPTION_BYTES}",
            description.len()
        ));
    }
    Ok(())
}

/// Cuts `items` to `max_bytes` of texts and URLs, in order: the item that does not fit is cut
/// (a text at a character boundary) or left out (a URL, which a cut would break), later ones
/// are left out, and a closing text says how much was cut.
pub fn capped(
    items: Vec<DynamicToolCallOutputContentItem>,
    max_bytes: usize,
) -> Vec<DynamicToolCallOutputContentItem> {
    let total: usize = items.iter().map(payload_len).sum();
    if total <= max_bytes {
        return items;
    }
    let mut budget = max_bytes;
    let mut kept = Vec::new();
    for item in items {
        let length = payload_len(&item);
        if length <= budget {
            budget -= length;
            kept.push(item);
            continue;
        }
        if let DynamicToolCallOutputContentItem::InputText { text } = &item {
            let end = crate::text::floor_char_boundary(text, budget);
            if end > 0 {
                kept.push(DynamicToolCallOutputContentItem::InputText {
                    text: text[..end].to_string(),
                });
                budget -= end;
            }
        }
        break;
    }
    let cut = total - (max_bytes - budget);
    kept.push(DynamicToolCallOutputContentItem::InputText {
        text: format!(
            "[the tool output was truncated: {cut} of its {total} bytes were cut (at most {max_bytes} are kept)]"
        ),
    });
    kept
}

fn payload_len(item: &DynamicToolCallOutputContentItem) -> usize {
    match item {
        DynamicToolCallOutputContentItem::InputText { text } => text.len(),
        DynamicToolCallOutputContentItem::InputImage { image_url } => image_url.len(),
        DynamicToolCallOutputContentItem::InputAudio { audio_url } => audio_url.len(),
    }
}

/// The call's output text for the model and the images that follow it.
fn model_output(items: &[DynamicToolCallOutputContentItem]) -> (String, Vec<ContentItem>) {
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for item in items {
        match item {
            DynamicToolCallOutputContentItem::InputText { text } => texts.push(text.clone()),
            DynamicToolCallOutputContentItem::InputImage { image_url } => {
                images.push(ContentItem::InputImage {
                    image_url: image_url.clone(),
                });
            }
            DynamicToolCallOutputContentItem::InputAudio { .. } => {
                texts.push(
                    "[the tool returned audio, which this model client cannot pass on]".into(),
                );
            }
        }
    }
    if !images.is_empty() {
        texts.push(format!(
            "[{} image(s) attached after this output]",
            images.len()
        ));
    }
    (texts.join("\n"), images)
}

impl TurnTask {
    /// Runs a call of a client-declared tool: `item/started`, the `item/tool/call` question,
    /// then `item/completed` with the client's (capped) answer, which is also the model's.
    pub(super) async fn dynamic_tool_call(
        &mut self,
        call: &ToolCall,
        namespace: Option<String>,
        tool: String,
    ) -> ToolOutcome {
        let arguments: Value = if call.payload.trim().is_empty() {
            Value::Object(serde_json::Map::new())
        } else {
            match serde_json::from_str(&call.payload) {
                Ok(arguments) => arguments,
                Err(error) => {
                    return call.reply(format!("failed to parse function arguments: {error}"));
                }
            }
        };
        let details =
            |status, content_items, success, duration_ms| ThreadItemDetails::DynamicToolCall {
                id: call.call_id.clone(),
                namespace: namespace.clone(),
                tool: tool.clone(),
                arguments: arguments.clone(),
                status,
                content_items,
                success,
                duration_ms,
            };
        let started = self
            .start_item(details(DynamicToolCallStatus::InProgress, None, None, None))
            .await;
        let clock = Instant::now();
        let request = ApprovalRequest::DynamicToolCall(DynamicToolCallParams {
            thread_id: self.thread.id.clone(),
            turn_id: self.turn_id.clone(),
            call_id: call.call_id.clone(),
            namespace: namespace.clone(),
            tool: tool.clone(),
            arguments: arguments.clone(),
        });
        let (response, interrupt) = match self.ask(request).await {
            ApprovalReply::Answered(ApprovalAnswer::DynamicToolCall(response)) => (response, false),
            ApprovalReply::Answered(other) => (
                failure(format!("the client answered with {}", other.kind())),
                false,
            ),
            ApprovalReply::Failed(message) => (
                failure(format!("the client could not run the tool: {message}")),
                false,
            ),
            ApprovalReply::Withdrawn => (failure("the tool call was interrupted".into()), true),
        };
        let content = capped(response.content_items, DYNAMIC_TOOL_OUTPUT_MAX_BYTES);
        let status = if response.success {
            DynamicToolCallStatus::Completed
        } else {
            DynamicToolCallStatus::Failed
        };
        let duration_ms = i64::try_from(clock.elapsed().as_millis()).unwrap_or(i64::MAX);
        let (text, images) = model_output(&content);
        let item = self
            .complete_item(
                &started,
                details(
                    status,
                    Some(content),
                    Some(response.success),
                    Some(duration_ms),
                ),
            )
            .await;
        let follow_up = if images.is_empty() {
            Vec::new()
        } else {
            vec![ResponseItem::Message {
                id: None,
                role: "user".into(),
                content: images,
            }]
        };
        ToolOutcome {
            output: call.output(text),
            items: vec![item],
            interrupt,
            follow_up,
        }
    }

    /// The tools the client declared for this thread.
    pub(super) fn declared_tools(&self) -> Vec<DynamicToolSpec> {
        lock(&self.thread.state).meta.dynamic_tools.clone()
    }
}

fn failure(message: String) -> DynamicToolCallResponse {
    DynamicToolCallResponse {
        content_items: vec![DynamicToolCallOutputContentItem::InputText { text: message }],
        success: false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn specs(value: Value) -> Vec<DynamicToolSpec> {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn refuses_what_the_model_could_not_be_offered() {
        let function = |name: &str| json!({"name": name, "description": "d", "inputSchema": {"type": "object"}});
        let cases = [
            (
                json!([function("lookup"), function("lookup")]),
                "duplicate dynamic tool name: lookup",
            ),
            (
                json!([function("bad name")]),
                "dynamic tool name must match ^[a-zA-Z0-9_-]+$ to match Responses API: bad name",
            ),
            (json!([function("")]), "dynamic tool name must not be empty"),
            (
                json!([function("exec_command")]),
                "dynamic tool name is reserved: exec_command",
            ),
            (
                json!([function("mcp__a__b")]),
                "dynamic tool name is reserved: mcp__a__b",
            ),
            (
                json!([{"name": "x", "description": "d", "inputSchema": 5}]),
                "dynamic tool input schema is not supported for x: it must be a JSON object",
            ),
            (
                json!([{"name": "x", "description": "d", "inputSchema": {}, "deferLoading": true}]),
                "deferred dynamic tool must include a namespace: x",
            ),
            (
                json!([{"type": "namespace", "name": "ns", "description": "d", "tools": []}]),
                "dynamic tool namespace must contain at least one tool: ns",
            ),
            (
                json!([{"type": "namespace", "name": "ns", "description": "d", "tools": [
                {"type": "function", "name": "a", "description": "d", "inputSchema": {}},
                {"type": "function", "name": "a", "description": "d", "inputSchema": {}}]}]),
                "duplicate dynamic tool name in namespace ns: a",
            ),
            (
                json!([function("ns__a"), {"type": "namespace", "name": "ns", "description": "d", "tools": [
                {"type": "function", "name": "a", "description": "d", "inputSchema": {}}]}]),
                "duplicate dynamic tool name: ns__a",
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(
                validate(&specs(value.clone())),
                Err(expected.to_string()),
                "{value}"
            );
        }
        let many: Vec<Value> = (0..=MAX_DYNAMIC_TOOLS)
            .map(|n| function(&format!("t{n}")))
            .collect();
        assert_eq!(
            validate(&specs(Value::Array(many))),
            Err("too many dynamic tools: at most 1000 may be declared".into())
        );
    }

    #[test]
    fn namespaced_tools_are_offered_with_their_prefix_and_resolved_back() {
        let declared = specs(json!([
            {"name": "lookup", "description": "Looks up", "inputSchema": {"type": "object"}},
            {"type": "namespace", "name": "crm", "description": "CRM", "tools": [
                {"type": "function", "name": "find", "description": "Finds", "inputSchema": {"type": "object"}, "deferLoading": true}]}
        ]));
        assert_eq!(validate(&declared), Ok(()));
        let names: Vec<String> = tool_specs(&declared)
            .into_iter()
            .map(|spec| spec.name)
            .collect();
        assert_eq!(names, ["lookup", "crm__find"]);
        assert_eq!(
            resolve(&declared, "crm__find"),
            Some((Some("crm".into()), "find".into()))
        );
        assert_eq!(resolve(&declared, "lookup"), Some((None, "lookup".into())));
        assert_eq!(resolve(&declared, "find"), None);
    }

    #[test]
    fn an_answer_over_the_cap_is_cut_with_a_note() {
        let text = |text: &str| DynamicToolCallOutputContentItem::InputText { text: text.into() };
        let image = DynamicToolCallOutputContentItem::InputImage {
            image_url: "data:xyz".into(),
        };
        assert_eq!(
            capped(vec![text("abc"), image.clone()], 11),
            vec![text("abc"), image.clone()]
        );
        assert_eq!(
            capped(vec![text("héllo"), image, text("later")], 3),
            vec![
                text("hé"),
                text(
                    "[the tool output was truncated: 16 of its 19 bytes were cut (at most 3 are kept)]"
                ),
            ]
        );
    }
}
