//! The tools this server offers: their `tools/list` entries (descriptions, input and output
//! schemas), argument decoding, and the `CallToolResult` shapes.

use std::collections::BTreeMap;

use app_server_protocol::policy::{AskForApproval, SandboxMode};
use serde::Deserialize;
use serde_json::{Value, json};

/// Name of the tool that starts a new conversation.
pub const CODEX_TOOL: &str = "codex";
/// Name of the tool that continues a conversation.
pub const CODEX_REPLY_TOOL: &str = "codex-reply";

/// Arguments of `codex`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct CodexArgs {
    /// The first user message.
    pub prompt: String,
    /// Model override.
    #[serde(default)]
    pub model: Option<String>,
    /// A `[profiles.NAME]` of config.toml to apply.
    #[serde(default)]
    pub profile: Option<String>,
    /// Working directory of the thread.
    #[serde(default)]
    pub cwd: Option<String>,
    /// `untrusted`, `on-request` or `never`.
    #[serde(default)]
    pub approval_policy: Option<AskForApproval>,
    /// `read-only`, `workspace-write` or `danger-full-access`, within `clients.max_sandbox`.
    #[serde(default)]
    pub sandbox: Option<SandboxMode>,
    /// Dotted config keys → values, applied over config.toml; only the keys the operator lets
    /// a client set (`clients.allow_client_config`).
    #[serde(default)]
    pub config: Option<BTreeMap<String, Value>>,
    /// Replaces the built-in instructions.
    #[serde(default)]
    pub base_instructions: Option<String>,
    /// Extra developer instructions.
    #[serde(default)]
    pub developer_instructions: Option<String>,
    /// Accepted for Codex compatibility; the plan tool is always offered to the model.
    #[serde(default)]
    pub include_plan_tool: Option<bool>,
    /// Prompt that asks for the summary when the thread's history is compacted, in place of
    /// `compact_prompt` from config; stored with the thread.
    #[serde(default)]
    pub compact_prompt: Option<String>,
}

/// Arguments of `codex-reply`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CodexReplyArgs {
    /// The thread to continue (`conversationId` is accepted as an older name).
    #[serde(alias = "conversationId")]
    pub thread_id: String,
    /// The next user message.
    pub prompt: String,
}

/// Decodes a tool's `arguments` (absent means `{}`); the error is a readable message for an
/// `isError` result.
pub fn decode_arguments<T: for<'de> Deserialize<'de>>(
    tool: &str,
    arguments: Option<&Value>,
) -> Result<T, String> {
    let arguments = arguments.cloned().unwrap_or_else(|| json!({}));
    if !arguments.is_object() {
        return Err(format!(
            "invalid arguments for `{tool}`: expected an object"
        ));
    }
    serde_json::from_value(arguments)
        .map_err(|error| format!("invalid arguments for `{tool}`: {error}"))
}

/// The `tools/list` result.
pub fn list_result() -> Value {
    let mut tools = vec![codex_tool(), codex_reply_tool()];
    tools.extend(crate::mcp::index_tools::tool_definitions());
    json!({"tools": tools})
}

fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "threadId": {"type": "string", "description": "The thread; pass it to `codex-reply` to continue."},
            "content": {"type": "string", "description": "The agent's final message of the turn."},
        },
        "required": ["threadId", "content"],
    })
}

fn codex_tool() -> Value {
    json!({
        "name": CODEX_TOOL,
        "title": "Tandem agent",
        "description": "Start a new conversation with the Tandem coding agent and run one turn. Returns the agent's final message and a threadId for `codex-reply`. Engine events stream as `codex/event` notifications; approvals arrive as elicitation requests.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "prompt": {"type": "string", "description": "The initial user prompt."},
                "model": {"type": "string", "description": "Model override, e.g. `gpt-5.1-codex`."},
                "profile": {"type": "string", "description": "Configuration profile from config.toml to apply."},
                "cwd": {"type": "string", "description": "Working directory of the conversation; relative paths resolve against the server's directory."},
                "approval-policy": {
                    "type": "string",
                    "enum": ["untrusted", "on-request", "never"],
                    "description": "When commands need approval.",
                },
                "sandbox": {
                    "type": "string",
                    "enum": ["read-only", "workspace-write", "danger-full-access"],
                    "description": "Sandbox for model-generated commands; the server refuses one wider than its operator allows (clients.max_sandbox, by default workspace-write).",
                },
                "config": {
                    "type": "object",
                    "additionalProperties": true,
                    "description": "Config overrides as dotted keys, e.g. {\"model_reasoning_effort\": \"high\"}. Only the keys the operator allows (by default: model, model_provider, profile, reasoning, instructions, approval and sandbox settings); any other key is refused.",
                },
                "base-instructions": {"type": "string", "description": "Instructions used instead of the built-in ones."},
                "developer-instructions": {"type": "string", "description": "Extra developer instructions."},
                "include-plan-tool": {"type": "boolean", "description": "Accepted for compatibility; the plan tool is always available."},
                "compact-prompt": {"type": "string", "description": "Prompt that asks for the summary when the thread's history is compacted (replaces compact_prompt from config for this thread)."},
            },
            "required": ["prompt"],
            "additionalProperties": false,
        },
        "outputSchema": output_schema(),
        "annotations": {
            "title": "Tandem agent",
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": false,
            "openWorldHint": true,
        },
    })
}

fn codex_reply_tool() -> Value {
    json!({
        "name": CODEX_REPLY_TOOL,
        "title": "Continue a Tandem conversation",
        "description": "Continue a conversation started by `codex` (in this or an earlier MCP session) with another prompt, and run one turn.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "threadId": {"type": "string", "description": "The threadId returned by `codex`."},
                "prompt": {"type": "string", "description": "The next user prompt."},
            },
            "required": ["threadId", "prompt"],
            "additionalProperties": false,
        },
        "outputSchema": output_schema(),
        "annotations": {
            "title": "Continue a Tandem conversation",
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": false,
            "openWorldHint": true,
        },
    })
}

/// A successful turn: the final message as text and as `structuredContent`.
pub fn success_result(thread_id: &str, content: &str) -> Value {
    json!({
        "content": [{"type": "text", "text": content}],
        "structuredContent": {"threadId": thread_id, "content": content},
        "isError": false,
    })
}

/// A failed call. `thread_id` is known once the thread exists, and is then also returned in
/// `structuredContent` so that the client can continue or inspect it.
pub fn error_result(thread_id: Option<&str>, message: &str) -> Value {
    let mut result = json!({
        "content": [{"type": "text", "text": message}],
        "isError": true,
    });
    if let Some(thread_id) = thread_id {
        result["structuredContent"] = json!({"threadId": thread_id, "content": message});
    }
    result
}

/// The app-server families an MCP server serves for its `--tools` selection (all tools when
/// `None`): the conversation API only beside an agent tool (`codex` or `codex-reply`), so a
/// server restricted to other tools (the history-only `--tools search,open`) answers none of it.
pub fn families_for(tools: Option<&[String]>) -> tandem_core::families::Families {
    let agent = [CODEX_TOOL, CODEX_REPLY_TOOL]
        .iter()
        .any(|tool| crate::history::tool_enabled(tools, tool));
    if agent {
        tandem_core::families::front_ends::mcp_agent()
    } else {
        tandem_core::families::front_ends::mcp_tools_only()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_arguments_decode_kebab_case_and_reject_unknown_keys() {
        let args: CodexArgs = decode_arguments(
            CODEX_TOOL,
            Some(&json!({"prompt": "hi", "approval-policy": "untrusted", "sandbox": "read-only", "config": {"model": "m"}})),
        )
        .expect("decodes");
        assert_eq!(args.prompt, "hi");
        assert_eq!(args.approval_policy, Some(AskForApproval::Untrusted));
        assert_eq!(args.sandbox, Some(SandboxMode::ReadOnly));

        let missing = decode_arguments::<CodexArgs>(CODEX_TOOL, Some(&json!({})));
        assert_eq!(
            missing,
            Err("invalid arguments for `codex`: missing field `prompt`".to_string())
        );
        let bad_policy = decode_arguments::<CodexArgs>(
            CODEX_TOOL,
            Some(&json!({"prompt": "x", "approval-policy": "sometimes"})),
        );
        assert!(bad_policy.is_err_and(|message| message.contains("sometimes")));
        let unknown =
            decode_arguments::<CodexArgs>(CODEX_TOOL, Some(&json!({"prompt": "x", "modle": "m"})));
        assert!(unknown.is_err_and(|message| message.contains("unknown field `modle`")));
        let not_object = decode_arguments::<CodexArgs>(CODEX_TOOL, Some(&json!([1])));
        assert!(not_object.is_err_and(|message| message.contains("expected an object")));
    }

    #[test]
    fn reply_accepts_the_older_conversation_id_name() {
        let args: CodexReplyArgs = decode_arguments(
            CODEX_REPLY_TOOL,
            Some(&json!({"conversationId": "t1", "prompt": "more"})),
        )
        .expect("decodes");
        assert_eq!(args.thread_id, "t1");
    }

    #[test]
    fn every_tool_has_a_description_and_object_schemas() {
        let list = list_result();
        let tools = list["tools"].as_array().expect("tools");
        assert_eq!(tools.len(), 4);
        for tool in tools {
            assert!(
                tool["description"]
                    .as_str()
                    .is_some_and(|text| !text.is_empty())
            );
            assert_eq!(tool["inputSchema"]["type"], "object");
            assert_eq!(tool["outputSchema"]["type"], "object");
        }
    }
}
