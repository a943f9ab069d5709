//! What every MCP session of one server shares (`McpOptions`, set from the command line) and
//! what `initialize` fixes for one session (`Negotiated`).

use std::sync::Arc;
use std::time::Duration;

use crate::mcp::elicitation::ApprovalFallback;
use crate::mcp::protocol::ClientCapabilities;

/// Settings shared by every session of one server.
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// The stored login and rate limits of the home, loaded once at startup and shared by
    /// every session's engine, so that a login in one session applies to all.
    pub account: Arc<tandem_core::account::AccountState>,
    /// The operating system named in the user agent (read once at startup).
    pub os_release: crate::compat::requests::OsRelease,
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
    pub history: Option<Arc<crate::history::History>>,
    /// `--tools`: the tools offered (all when `None`).
    pub tools: Option<Vec<String>>,
    /// The app-server methods served besides MCP's own (see [`tandem_core::families`]); a method
    /// outside them is `-32601` and reaches no handler.
    pub families: tandem_core::families::Families,
    /// Set by the first session that starts the auto-warm of the server's working directory,
    /// so that later sessions of this server do not rescan it.
    pub warm_up_started: Arc<std::sync::atomic::AtomicBool>,
    /// The operator's ceiling on what this server's clients may obtain (`[clients]`, with
    /// the defaults of `mcp-server` on stdio or HTTP), given to every session's engine.
    pub access: tandem_core::access::ClientPolicy,
    /// Issues and redeems the signed `requestState` of 2026 `input_required` results.
    pub request_states: Arc<crate::mcp::request_state::RequestStates>,
    /// The 2026 `codex` / `codex-reply` calls waiting for an answer given in a retry.
    pub parked_calls: Arc<crate::mcp::mrtr::ParkedCalls>,
    /// The open 2026 `subscriptions/listen` streams that take the principal's call messages.
    pub listeners: Arc<crate::mcp::listen::Listeners>,
    /// The tasks of 2026 calls run with the Tasks extension.
    pub tasks: Arc<crate::mcp::tasks::Tasks>,
}

/// What `initialize` fixed.
#[derive(Debug, Clone)]
pub struct Negotiated {
    /// The protocol version in use.
    pub version: &'static str,
    /// What the client can do.
    pub capabilities: ClientCapabilities,
}
