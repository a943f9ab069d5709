//! Tandem as an MCP client: the MCP servers of a thread, their tools and calls to them.
//!
//! [`McpServers::start`] starts every configured server in the background (a stdio child
//! process in its own process group, or a streamable HTTP session) and returns at once; each
//! server reports `starting` and then `ready` or `failed` through [`McpHost::status_changed`].
//! [`McpServers::tools`] lists the tools of the ready servers under the names offered to the
//! model (`mcp__<server>__<tool>`, see [`names`]), and [`McpServers::call`] runs one call with
//! the server's tool timeout. A server whose connection died (a crashed child, a closed HTTP
//! session) fails the call in flight and is started again by the next call.
//!
//! A server's elicitation requests go to [`McpHost::elicit`]; whoever owns the servers (the
//! engine, for one thread) decides how to ask the user.
//!
//! A stdio server gets a minimal environment ([`MINIMAL_ENVIRONMENT`], its `env` and its
//! `env_vars`), never Tandem's whole one, which holds credentials; its messages are lines of
//! at most [`MAX_MESSAGE_BYTES`], and an answer over that fails its call at once (see
//! [`stdio`]). [`CallResult::truncated`] cuts a result to the size the owner allows.
//!
//! The protocol itself is the official Rust SDK (`rmcp`); this crate adds the configuration,
//! the lifecycle (background start, restart, timeouts, no leftover processes) and typed values
//! at the boundary, so that nothing above it sees `rmcp` types.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod config;
mod connect;
pub mod names;
mod oversized;
pub mod progress;
mod server;
pub mod stdio;
mod truncate;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::server::ServerSlot;

pub use config::{ServerConfig, ServerTransport};
pub use stdio::MAX_MESSAGE_BYTES;

/// The variables of the owner's environment a stdio server gets (those that are set), before
/// its `env_vars` and `env`: what a program needs to find others, its user and home, a
/// temporary directory, and to print text in the user's language.
pub const MINIMAL_ENVIRONMENT: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ",
];

/// Where a server's startup stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartupState {
    /// The process or session is being started and initialized.
    Starting,
    /// Initialized, tools listed.
    Ready,
    /// The start failed (the message says why); the next call tries again.
    Failed,
    /// The start was abandoned because the servers were shut down.
    Cancelled,
}

/// A question a server asks the user in the middle of a call (`elicitation/create`).
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationRequest {
    /// What the server asks.
    pub message: String,
    /// What kind of answer it wants.
    pub mode: ElicitationMode,
    /// The request's `_meta`, passed through.
    pub meta: Option<Value>,
}

/// The two kinds of elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationMode {
    /// A form: the answer is an object conforming to `requested_schema`.
    Form {
        /// The restricted JSON Schema of the expected object.
        requested_schema: Value,
    },
    /// The user is sent to `url`; the answer carries no content.
    Url {
        /// Where the user should go.
        url: String,
        /// The server's id for this elicitation.
        elicitation_id: String,
    },
}

/// What the user chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitationAction {
    /// Submitted (the content is the form's data).
    Accept,
    /// Explicitly refused.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// The answer to an [`ElicitationRequest`].
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationResponse {
    /// What the user chose.
    pub action: ElicitationAction,
    /// The submitted data, for [`ElicitationAction::Accept`] on a form.
    pub content: Option<Value>,
    /// `_meta` for the server, passed through.
    pub meta: Option<Value>,
}

impl ElicitationResponse {
    /// A plain refusal, for questions nobody can answer.
    pub fn decline() -> Self {
        ElicitationResponse {
            action: ElicitationAction::Decline,
            content: None,
            meta: None,
        }
    }
}

/// The owner of the servers: receives their status changes and their questions for the user.
pub trait McpHost: Send + Sync + 'static {
    /// A server's startup state changed; `error` says why for [`StartupState::Failed`].
    fn status_changed(
        &self,
        server: &str,
        state: StartupState,
        error: Option<String>,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;

    /// `server` asks the user something; the returned answer goes back to the server.
    fn elicit(
        &self,
        server: &str,
        request: ElicitationRequest,
    ) -> Pin<Box<dyn Future<Output = ElicitationResponse> + Send + '_>>;
}

/// One tool of a ready server.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTool {
    /// The server's name in the configuration.
    pub server: String,
    /// The tool's name on the server.
    pub name: String,
    /// The name offered to the model: `mcp__<server>__<tool>`, made safe for providers.
    pub qualified_name: String,
    /// The tool's description, if any.
    pub description: Option<String>,
    /// The input schema as the server declared it.
    pub input_schema: Value,
    /// Whether the server marks the tool as read-only (`annotations.readOnlyHint`).
    pub read_only: bool,
    /// The whole tool definition as the server sent it (`tools/list` entry).
    pub definition: Value,
}

/// A completed call: the server's `CallToolResult`.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    /// The content blocks, as sent.
    pub content: Vec<Value>,
    /// The structured result, if any.
    pub structured_content: Option<Value>,
    /// Whether the server reports the call as failed (`isError`).
    pub is_error: bool,
    /// The result's `_meta`, if any.
    pub meta: Option<Value>,
}

/// Why a call produced no result.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum CallError {
    /// No server of that name is configured (or it is disabled).
    #[error("unknown MCP server `{0}`")]
    UnknownServer(String),
    /// The tool is not offered by the server or is filtered out by the configuration.
    #[error("tool `{tool}` is not available on MCP server `{server}`")]
    UnknownTool {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
    },
    /// The server could not be started.
    #[error("MCP server `{server}` is not available: {message}")]
    Unavailable {
        /// The server.
        server: String,
        /// Why.
        message: String,
    },
    /// No answer within the server's `tool_timeout_sec`.
    #[error("MCP tool call timed out after {} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// The connection died during the call (a crashed process, a closed session); the next
    /// call starts the server again.
    #[error("MCP server `{server}` closed the connection during the call: {message}")]
    ConnectionLost {
        /// The server.
        server: String,
        /// What the transport reported.
        message: String,
    },
    /// The server's answer was larger than a message may be ([`MAX_MESSAGE_BYTES`]); it was
    /// discarded unread.
    #[error("MCP server `{server}` sent an answer over the {limit}-byte limit of a message{}; the call failed without reading it", bytes.map(|bytes| format!(" ({bytes} bytes)")).unwrap_or_default())]
    MessageTooLarge {
        /// The server.
        server: String,
        /// The answer's size, when it was read to its end before the call failed.
        bytes: Option<u64>,
        /// The limit.
        limit: u64,
    },
    /// The server answered with a JSON-RPC error.
    #[error("MCP server `{server}` returned an error: {message}")]
    Server {
        /// The server.
        server: String,
        /// The error's message.
        message: String,
    },
    /// The caller gave up (turn interrupted).
    #[error("the MCP tool call was cancelled")]
    Cancelled,
}

/// A server's state for `mcpServerStatus/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerStatus {
    /// The server's name in the configuration.
    pub name: String,
    /// Where its startup stands.
    pub state: StartupState,
    /// The last startup error, if any.
    pub error: Option<String>,
    /// Its tools (after `enabled_tools`/`disabled_tools`), by tool name.
    pub tools: BTreeMap<String, Value>,
    /// Whether a bearer token is configured (HTTP servers).
    pub bearer_token: bool,
    /// Whether it is an HTTP server (no auth concept for stdio).
    pub http: bool,
}

/// The MCP servers of one owner (one thread).
pub struct McpServers {
    slots: Vec<Arc<ServerSlot>>,
    shutdown: CancellationToken,
}

/// What [`McpServers::start`] needs besides the configurations.
pub struct StartOptions {
    /// Where stdio servers without a `cwd` of their own run.
    pub cwd: Option<PathBuf>,
    /// The environment the [`MINIMAL_ENVIRONMENT`] variables of a stdio server are taken
    /// from: the owner's, after its own filtering (Tandem's commands' environment).
    pub base_environment: BTreeMap<OsString, OsString>,
}

impl McpServers {
    /// Starts every enabled server of `configs` in the background and returns at once. Must be
    /// called inside a tokio runtime.
    pub fn start(
        configs: Vec<ServerConfig>,
        host: Arc<dyn McpHost>,
        options: StartOptions,
    ) -> McpServers {
        let shutdown = CancellationToken::new();
        let options = Arc::new(options);
        let slots: Vec<Arc<ServerSlot>> = configs
            .into_iter()
            .filter(|config| config.enabled)
            .map(|config| {
                ServerSlot::new(
                    config,
                    host.clone(),
                    shutdown.child_token(),
                    options.clone(),
                )
            })
            .collect();
        for slot in &slots {
            let slot = slot.clone();
            tokio::spawn(async move {
                // A failure is reported through the host and retried by the next call.
                let _ = slot.ensure_started().await;
            });
        }
        McpServers { slots, shutdown }
    }

    /// No servers.
    pub fn empty() -> McpServers {
        McpServers {
            slots: Vec::new(),
            shutdown: CancellationToken::new(),
        }
    }

    /// Whether no server is configured.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Waits until no server is still starting (each start is bounded by its
    /// `startup_timeout_sec`), or until `cancel` fires.
    pub async fn wait_started(&self, cancel: &CancellationToken) {
        for slot in &self.slots {
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = slot.wait_not_starting() => {}
            }
        }
    }

    /// The tools of the ready servers, server by server in configuration order.
    pub fn tools(&self) -> Vec<McpTool> {
        self.slots.iter().flat_map(|slot| slot.tools()).collect()
    }

    /// The status of every enabled server, in configuration order.
    pub fn status(&self) -> Vec<ServerStatus> {
        self.slots.iter().map(|slot| slot.status()).collect()
    }

    /// The server and tool behind a qualified tool name, when it is one of ours.
    pub fn resolve(&self, qualified_name: &str) -> Option<McpTool> {
        self.tools()
            .into_iter()
            .find(|tool| tool.qualified_name == qualified_name)
    }

    /// Whether `server` (or its tool `tool`) is marked trusted in the configuration.
    pub fn is_trusted(&self, server: &str, tool: &str) -> bool {
        self.slots
            .iter()
            .find(|slot| slot.config.name == server)
            .is_some_and(|slot| slot.config.is_trusted(tool))
    }

    /// Calls `tool` on `server` with `arguments`, bounded by the server's tool timeout;
    /// `cancel` abandons the call (the server is told with `notifications/cancelled`).
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        cancel: &CancellationToken,
    ) -> Result<CallResult, CallError> {
        let Some(slot) = self.slots.iter().find(|slot| slot.config.name == server) else {
            return Err(CallError::UnknownServer(server.to_string()));
        };
        slot.call(tool, arguments, cancel, None).await
    }

    /// Calls `tool` as [`McpServers::call`] does, asking the server for progress: each of its
    /// progress notifications for this call becomes a message on `progress` (cut to
    /// [`progress::PROGRESS_MESSAGE_MAX_BYTES`]; dropped when the queue is full).
    pub async fn call_with_progress(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        cancel: &CancellationToken,
        progress: tokio::sync::mpsc::Sender<String>,
    ) -> Result<CallResult, CallError> {
        let Some(slot) = self.slots.iter().find(|slot| slot.config.name == server) else {
            return Err(CallError::UnknownServer(server.to_string()));
        };
        slot.call(tool, arguments, cancel, Some(progress)).await
    }

    /// Reads the resource `uri` of `server`, bounded by the server's tool timeout; `cancel`
    /// abandons the read.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
        cancel: &CancellationToken,
    ) -> Result<Vec<Value>, CallError> {
        let Some(slot) = self.slots.iter().find(|slot| slot.config.name == server) else {
            return Err(CallError::UnknownServer(server.to_string()));
        };
        slot.read_resource(uri, cancel).await
    }

    /// Stops every server: closes the connections and kills the process groups.
    pub async fn shutdown(&self) {
        self.shutdown.cancel();
        for slot in &self.slots {
            slot.stop().await;
        }
    }
}

impl Drop for McpServers {
    fn drop(&mut self) {
        self.shutdown.cancel();
        for slot in &self.slots {
            slot.kill_now();
        }
    }
}
