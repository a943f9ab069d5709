//! What every MCP session of one server shares (`McpOptions`, set from the command line) and
//! what `initialize` fixes for one session (`Negotiated`).

use std::sync::Arc;
use std::time::Duration;

use crate::mcp::elicitation::ApprovalFallback;
use crate::mcp::protocol::ClientCapabilities;

/// Settings shared by every session of one server.
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// The process's audit trail.
    pub audit: tandem_core::audit::AuditLog,
    /// The front end's name in the audit trail (`mcp-server stdio`, `mcp-server http`).
    pub front_end: &'static str,
    /// What approvals become when the client cannot be asked.
    pub approval_fallback: ApprovalFallback,
    /// How long an elicitation may stay unanswered.
    pub approval_timeout: Duration,
    /// Serve the conformance suite's fixtures too.
    #[cfg(feature = "conformance-fixtures")]
    pub conformance_fixtures: bool,
    /// The history backend behind `search` and `open` (absent when `--tools` leaves them out).
    pub history: Option<Arc<tandem_history::service::HistoryService>>,
    /// `--tools`: the tools offered (all when `None`).
    pub tools: Option<Vec<String>>,
    /// The app-server methods served besides MCP's own (see [`tandem_core::families`]); a method
    /// outside them is `-32601` and reaches no handler.
    pub families: tandem_core::families::Families,
    /// The operator's ceiling on what this server's clients may obtain (`[clients]`, with
    /// the defaults of `mcp-server` on stdio or HTTP), given to every session's engine.
    pub access: tandem_core::access::ClientPolicy,
}

/// What `initialize` fixed.
#[derive(Debug, Clone)]
pub struct Negotiated {
    /// The protocol version in use.
    pub version: &'static str,
    /// What the client can do.
    pub capabilities: ClientCapabilities,
}
