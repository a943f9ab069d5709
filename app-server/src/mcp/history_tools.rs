//! The history tools, `search` and `open`, on the MCP side: their registered [`Tool`]s and
//! `tools/list` listings. They are offered only when the history backend is connected (`--tools`
//! may leave both out); the call runs on a blocking thread for the calling principal
//! (`crate::history`), and undecodable arguments are a JSON-RPC invalid-params error.

use tandem_core::tools::{Tool, ToolFuture};
use tandem_history::service::{OPEN_TOOL, OpenArgs, SEARCH_TOOL, SearchArgs};

use crate::mcp::tools::{Listing, McpCall, McpOutcome};

/// `search`: BM25 search over past conversations.
pub struct SearchTool;

impl Tool for SearchTool {
    const NAME: &'static str = SEARCH_TOOL;
    const DESCRIPTION: &'static str = "BM25 search over every indexed past conversation event (user and agent messages, reasoning, commands with output, file changes, errors; tool calls on request). Each hit names the event_uid to pass to `open`.";
    type Args = SearchArgs;
    type Context<'a> = McpCall<'a>;
    type Output = McpOutcome;

    fn run<'a>(call: Self::Context<'a>, args: SearchArgs) -> ToolFuture<'a, McpOutcome> {
        Box::pin(async move {
            // The registry offers the tool only with a history backend.
            let Some(service) = call.session.shared.options.history.clone() else {
                return Some(Err(crate::rpc_error::invalid_params(format!(
                    "unknown tool: {SEARCH_TOOL}"
                ))));
            };
            let caller = call.session.engine.principal();
            Some(Ok(crate::history::search_tool(service, args, caller).await))
        })
    }
}

/// `open`: the events around one search hit.
pub struct OpenTool;

impl Tool for OpenTool {
    const NAME: &'static str = OPEN_TOOL;
    const DESCRIPTION: &'static str = "The events around one event (from `search`), in conversation order, with their payloads and token usage. An unknown event_uid gives found: false.";
    type Args = OpenArgs;
    type Context<'a> = McpCall<'a>;
    type Output = McpOutcome;

    fn run<'a>(call: Self::Context<'a>, args: OpenArgs) -> ToolFuture<'a, McpOutcome> {
        Box::pin(async move {
            // The registry offers the tool only with a history backend.
            let Some(service) = call.session.shared.options.history.clone() else {
                return Some(Err(crate::rpc_error::invalid_params(format!(
                    "unknown tool: {OPEN_TOOL}"
                ))));
            };
            let caller = call.session.engine.principal();
            Some(Ok(crate::history::open_tool(service, args, caller).await))
        })
    }
}

/// How `tools/list` shows `search`.
pub const SEARCH_LISTING: Listing = Listing {
    title: "Search past conversations",
    output_schema: None,
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// How `tools/list` shows `open`.
pub const OPEN_LISTING: Listing = Listing {
    title: "Open a past conversation event",
    output_schema: None,
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};
