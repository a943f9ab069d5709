//! The tools this server offers: the registry ([`MCP_TOOLS`]) that `tools/list`, the `--tools`
//! selection and `tools/call` read, the `codex` and `codex-reply` tools, argument decoding, and
//! the `CallToolResult` shapes. Each tool is a [`Tool`] whose argument type derives the
//! `inputSchema` clients are shown; the project-index pair lives in `index_tools.rs`, the
//! history pair in `history_tools.rs`.

use std::collections::BTreeMap;

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::policy::{AskForApproval, SandboxMode};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use tandem_core::tools::{Tool, ToolFuture, input_schema};
use tokio_util::sync::CancellationToken;

use crate::mcp::history_tools::{OpenTool, SearchTool};
use crate::mcp::index_tools::{QueryProjectTool, RepoIndexRefreshTool};
use crate::mcp::session::McpSession;

/// Name of the tool that starts a new conversation.
pub const CODEX_TOOL: &str = "codex";
/// Name of the tool that continues a conversation.
pub const CODEX_REPLY_TOOL: &str = "codex-reply";

/// A call of an MCP tool: the session, the request, its progress token and its cancellation.
pub struct McpCall<'a> {
    /// The session the call came in on.
    pub session: &'a McpSession,
    /// The `tools/call` request.
    pub id: &'a RequestId,
    /// The call's `_meta.progressToken`, when it has one.
    pub progress_token: Option<Value>,
    /// Fires on the client's `notifications/cancelled` or the session's end.
    pub cancel: CancellationToken,
}

/// What a call answers: a tool result, a JSON-RPC error, or `None` when the client cancelled it.
pub type McpOutcome = Option<Result<Value, JsonRpcErrorBody>>;

/// What the server must have for a tool to be offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// The agent: a server offering one of these also serves the conversation API
    /// ([`families_for`]).
    Agent,
    /// The project index.
    ProjectIndex,
    /// The history backend, connected unless `--tools` leaves both history tools out.
    History,
}

/// How `tools/list` shows a tool beside its name, description and input schema.
pub struct Listing {
    /// `title`, also the annotations' title.
    pub title: &'static str,
    /// `outputSchema`, for tools that return `structuredContent` every time.
    pub output_schema: Option<fn() -> Value>,
    /// `annotations.readOnlyHint`.
    pub read_only: bool,
    /// `annotations.destructiveHint`.
    pub destructive: bool,
    /// `annotations.idempotentHint`.
    pub idempotent: bool,
    /// `annotations.openWorldHint`.
    pub open_world: bool,
}

/// What undecodable arguments answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadArguments {
    /// An `isError` tool result naming the problem.
    ToolError,
    /// A JSON-RPC invalid-params error naming the problem.
    InvalidParams,
}

/// One entry of the registry.
pub struct McpTool {
    /// The name clients call it by.
    pub name: &'static str,
    /// What the server must have to offer it.
    pub needs: Needs,
    description: &'static str,
    input_schema: fn() -> Value,
    listing: Listing,
    run: for<'a> fn(McpCall<'a>, Option<&'a Value>) -> ToolFuture<'a, McpOutcome>,
    #[cfg(test)]
    decodes: fn(&Value) -> Result<(), String>,
}

impl McpTool {
    /// The `tools/list` entry.
    pub fn definition(&self) -> Value {
        let listing = &self.listing;
        let mut tool = json!({
            "name": self.name,
            "title": listing.title,
            "description": self.description,
            "inputSchema": (self.input_schema)(),
            "annotations": {
                "title": listing.title,
                "readOnlyHint": listing.read_only,
                "destructiveHint": listing.destructive,
                "idempotentHint": listing.idempotent,
                "openWorldHint": listing.open_world,
            },
        });
        if let Some(output_schema) = listing.output_schema {
            tool["outputSchema"] = output_schema();
        }
        tool
    }

    /// Runs a call: decodes `arguments` (absent means `{}`) and runs the handler.
    pub fn call<'a>(
        &self,
        call: McpCall<'a>,
        arguments: Option<&'a Value>,
    ) -> ToolFuture<'a, McpOutcome> {
        (self.run)(call, arguments)
    }
}

/// Every tool the MCP server can offer, in `tools/list` order.
pub const MCP_TOOLS: &[McpTool] = &[
    mcp_tool::<CodexTool>(
        Needs::Agent,
        agent_listing("Tandem agent"),
        BadArguments::ToolError,
    ),
    mcp_tool::<CodexReplyTool>(
        Needs::Agent,
        agent_listing("Continue a Tandem conversation"),
        BadArguments::ToolError,
    ),
    mcp_tool::<QueryProjectTool>(
        Needs::ProjectIndex,
        crate::mcp::index_tools::QUERY_PROJECT_LISTING,
        BadArguments::ToolError,
    ),
    mcp_tool::<RepoIndexRefreshTool>(
        Needs::ProjectIndex,
        crate::mcp::index_tools::REPO_INDEX_REFRESH_LISTING,
        BadArguments::ToolError,
    ),
    mcp_tool::<SearchTool>(
        Needs::History,
        crate::mcp::history_tools::SEARCH_LISTING,
        BadArguments::InvalidParams,
    ),
    mcp_tool::<OpenTool>(
        Needs::History,
        crate::mcp::history_tools::OPEN_LISTING,
        BadArguments::InvalidParams,
    ),
];

/// Whether the MCP server offers `tool` under `--tools` (all tools when `None`).
pub fn tool_enabled(tools: Option<&[String]>, tool: &str) -> bool {
    tools.is_none_or(|tools| tools.iter().any(|name| name == tool))
}

/// Checks a `--tools` selection: every name must be a registered tool.
pub fn check_selection(tools: Option<&[String]>) -> anyhow::Result<()> {
    let Some(tools) = tools else {
        return Ok(());
    };
    if let Some(unknown) = tools
        .iter()
        .find(|tool| !MCP_TOOLS.iter().any(|known| known.name == tool.as_str()))
    {
        let known: Vec<&str> = MCP_TOOLS.iter().map(|tool| tool.name).collect();
        anyhow::bail!(
            "--tools: unknown tool `{unknown}` (known: {})",
            known.join(", ")
        );
    }
    Ok(())
}

/// The registered tool `name` when this server offers it: selected by `--tools` and, for the
/// history tools, with the history backend connected.
pub fn offered(name: &str, tools: Option<&[String]>, history: bool) -> Option<&'static McpTool> {
    MCP_TOOLS
        .iter()
        .find(|tool| tool.name == name)
        .filter(|tool| tool_enabled(tools, tool.name) && (tool.needs != Needs::History || history))
}

/// The `tools/list` result: the tools this server offers.
pub fn list_result(tools: Option<&[String]>, history: bool) -> Value {
    let list: Vec<Value> = MCP_TOOLS
        .iter()
        .filter(|tool| offered(tool.name, tools, history).is_some())
        .map(McpTool::definition)
        .collect();
    json!({"tools": list})
}

const fn agent_listing(title: &'static str) -> Listing {
    Listing {
        title,
        output_schema: Some(output_schema),
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: true,
    }
}

const fn mcp_tool<T>(needs: Needs, listing: Listing, bad_arguments: BadArguments) -> McpTool
where
    T: for<'a> Tool<Context<'a> = McpCall<'a>, Output = McpOutcome>,
{
    let run: for<'a> fn(McpCall<'a>, Option<&'a Value>) -> ToolFuture<'a, McpOutcome> =
        match bad_arguments {
            BadArguments::ToolError => run_tool::<T, false>,
            BadArguments::InvalidParams => run_tool::<T, true>,
        };
    McpTool {
        name: T::NAME,
        needs,
        description: T::DESCRIPTION,
        input_schema: input_schema::<T::Args>,
        listing,
        run,
        #[cfg(test)]
        decodes: decodes::<T>,
    }
}

#[cfg(test)]
fn decodes<T: Tool>(arguments: &Value) -> Result<(), String> {
    serde_json::from_value::<T::Args>(arguments.clone())
        .map(drop)
        .map_err(|error| error.to_string())
}

fn run_tool<'a, T, const INVALID_PARAMS: bool>(
    call: McpCall<'a>,
    arguments: Option<&'a Value>,
) -> ToolFuture<'a, McpOutcome>
where
    T: for<'b> Tool<Context<'b> = McpCall<'b>, Output = McpOutcome>,
{
    match decode_arguments::<T::Args>(T::NAME, arguments) {
        Ok(args) => T::run(call, args),
        Err(message) => {
            let answer = if INVALID_PARAMS {
                Err(crate::rpc_error::invalid_params(message))
            } else {
                Ok(error_result(None, &message))
            };
            Box::pin(async move { Some(answer) })
        }
    }
}

/// `codex`: a new conversation and its first turn.
pub struct CodexTool;

impl Tool for CodexTool {
    const NAME: &'static str = CODEX_TOOL;
    const DESCRIPTION: &'static str = "Start a new conversation with the Tandem coding agent and run one turn. Returns the agent's final message and a threadId for `codex-reply`. Engine events stream as `codex/event` notifications; approvals arrive as elicitation requests.";
    type Args = CodexArgs;
    type Context<'a> = McpCall<'a>;
    type Output = McpOutcome;

    fn run<'a>(call: Self::Context<'a>, args: CodexArgs) -> ToolFuture<'a, McpOutcome> {
        Box::pin(async move {
            call.session
                .run_codex(call.id, args, call.progress_token, call.cancel)
                .await
                .map(Ok)
        })
    }
}

/// `codex-reply`: the next turn of a conversation.
pub struct CodexReplyTool;

impl Tool for CodexReplyTool {
    const NAME: &'static str = CODEX_REPLY_TOOL;
    const DESCRIPTION: &'static str = "Continue a conversation started by `codex` (in this or an earlier MCP session) with another prompt, and run one turn.";
    type Args = CodexReplyArgs;
    type Context<'a> = McpCall<'a>;
    type Output = McpOutcome;

    fn run<'a>(call: Self::Context<'a>, args: CodexReplyArgs) -> ToolFuture<'a, McpOutcome> {
        Box::pin(async move {
            call.session
                .run_reply(call.id, args, call.progress_token, call.cancel)
                .await
                .map(Ok)
        })
    }
}

/// Arguments of `codex`; the field comments are the descriptions clients are shown.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct CodexArgs {
    /// The initial user prompt.
    pub prompt: String,
    /// Model override, e.g. `gpt-5.1-codex`.
    #[serde(default)]
    pub model: Option<String>,
    /// Configuration profile from config.toml to apply.
    #[serde(default)]
    pub profile: Option<String>,
    /// Working directory of the conversation; relative paths resolve against the server's directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// When commands need approval.
    #[serde(default)]
    #[schemars(with = "Option<String>", extend("enum" = ["untrusted", "on-request", "never"]))]
    pub approval_policy: Option<AskForApproval>,
    /// Sandbox for model-generated commands; the server refuses one wider than its operator allows (clients.max_sandbox, by default workspace-write).
    #[serde(default)]
    #[schemars(
        with = "Option<String>",
        extend("enum" = ["read-only", "workspace-write", "danger-full-access"])
    )]
    pub sandbox: Option<SandboxMode>,
    /// Config overrides as dotted keys, e.g. {"model_reasoning_effort": "high"}. Only the keys the operator allows (by default: model, model_provider, profile, reasoning, instructions, approval and sandbox settings); any other key is refused.
    #[serde(default)]
    pub config: Option<BTreeMap<String, Value>>,
    /// Instructions used instead of the built-in ones.
    #[serde(default)]
    pub base_instructions: Option<String>,
    /// Extra developer instructions.
    #[serde(default)]
    pub developer_instructions: Option<String>,
    /// Accepted for compatibility; the plan tool is always available.
    #[serde(default)]
    pub include_plan_tool: Option<bool>,
    /// Prompt that asks for the summary when the thread's history is compacted (replaces compact_prompt from config for this thread).
    #[serde(default)]
    pub compact_prompt: Option<String>,
}

/// Arguments of `codex-reply`; the field comments are the descriptions clients are shown.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CodexReplyArgs {
    /// The threadId returned by `codex`.
    #[serde(alias = "conversationId")]
    pub thread_id: String,
    /// The next user prompt.
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
/// `None`): the conversation API only beside an agent tool ([`Needs::Agent`]), so a
/// server restricted to other tools (the history-only `--tools search,open`) answers none of it.
pub fn families_for(tools: Option<&[String]>) -> tandem_core::families::Families {
    let agent = MCP_TOOLS
        .iter()
        .filter(|tool| tool.needs == Needs::Agent)
        .any(|tool| tool_enabled(tools, tool.name));
    if agent {
        tandem_core::families::front_ends::mcp_agent()
    } else {
        tandem_core::families::front_ends::mcp_tools_only()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tandem_core::tools::schema_samples::{samples, sorted_required};

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
    fn the_history_tools_are_listed_only_with_a_history_backend_and_tools_selects() {
        let names = |list: Value| -> Vec<String> {
            list["tools"]
                .as_array()
                .expect("tools")
                .iter()
                .map(|tool| tool["name"].as_str().unwrap_or_default().to_string())
                .collect()
        };
        assert_eq!(
            names(list_result(None, true)),
            [
                "codex",
                "codex-reply",
                "query_project",
                "repo_index_refresh",
                "search",
                "open"
            ]
        );
        assert_eq!(
            names(list_result(None, false)),
            [
                "codex",
                "codex-reply",
                "query_project",
                "repo_index_refresh"
            ]
        );
        let selection = ["search".to_string(), "open".to_string()];
        assert_eq!(
            names(list_result(Some(&selection), true)),
            ["search", "open"]
        );
        assert!(offered("codex", Some(&selection), true).is_none());
        assert!(offered("search", None, false).is_none());
        assert!(offered("nonexistent", None, true).is_none());
    }

    #[test]
    fn a_selection_naming_an_unknown_tool_is_refused_with_the_known_names() {
        assert!(check_selection(None).is_ok());
        assert!(check_selection(Some(&["search".to_string()])).is_ok());
        let error = check_selection(Some(&["serch".to_string()])).expect_err("refused");
        assert_eq!(
            error.to_string(),
            "--tools: unknown tool `serch` (known: codex, codex-reply, query_project, repo_index_refresh, search, open)"
        );
    }

    #[test]
    fn clients_are_shown_the_recorded_input_schemas() {
        let recorded: Value =
            serde_json::from_str(include_str!("testdata/mcp_tools.json")).expect("fixture");
        let listed: Vec<Value> = MCP_TOOLS
            .iter()
            .map(|tool| {
                let definition = tool.definition();
                json!({
                    "name": definition["name"],
                    "description": definition["description"],
                    "inputSchema": definition["inputSchema"],
                })
            })
            .collect();
        assert_eq!(
            sorted_required(Value::Array(listed)),
            sorted_required(recorded)
        );
        for tool in MCP_TOOLS {
            let definition = tool.definition();
            assert_eq!(definition["annotations"]["title"], definition["title"]);
        }
    }

    #[test]
    fn every_advertised_input_schema_decodes_into_its_argument_type() {
        for tool in MCP_TOOLS {
            let schema = (tool.input_schema)();
            assert_eq!(schema["type"], "object", "{}", tool.name);
            for arguments in samples(&schema) {
                assert_eq!(
                    (tool.decodes)(&arguments),
                    Ok(()),
                    "{}: {arguments}",
                    tool.name
                );
            }
        }
    }
}
