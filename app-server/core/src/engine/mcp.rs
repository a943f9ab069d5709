//! The MCP servers of a thread (`[mcp_servers]`), seen from the engine.
//!
//! Each loaded thread runs its own servers, started in the background when the thread is
//! registered (start, resume or fork), so that `thread/start` and `initialize` never wait for
//! them, and stopped when it is unloaded. Per-thread servers keep a server's questions
//! (elicitations) unambiguous: they belong to that thread's running turn. The first model
//! request of a turn waits for servers still starting (each bounded by its
//! `startup_timeout_sec`), so that their tools are offered from the first turn.
//!
//! A stdio server starts with a minimal environment taken from the one commands get
//! (`[shell_environment_policy]`), plus its own `env` and `env_vars`.
//!
//! The client subsystem is the `tandem-mcp-client` crate; the engine implements its
//! [`McpHost`] trait (status changes become `mcpServer/startupStatus/updated`, elicitations go
//! through the engine's [`Approver`]) and sees servers, tools and results as typed values.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, OnceLock, Weak};

use app_server_protocol::mcp_servers::{
    ListMcpServerStatusParams, ListMcpServerStatusResponse, McpAuthStatus,
    McpServerElicitationAction, McpServerElicitationRequest, McpServerElicitationRequestParams,
    McpServerStartupState, McpServerStatus, McpServerStatusUpdatedNotification,
};
use app_server_protocol::policy::AskForApproval;
use app_server_protocol::tables::ServerNotification;
use tandem_mcp_client::names::sanitize_schema;
use tandem_mcp_client::{
    ElicitationAction, ElicitationMode, ElicitationRequest, ElicitationResponse, McpHost,
    McpServers, ServerStatus, StartOptions, StartupState,
};
use tokio_util::sync::CancellationToken;

use crate::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest, Approver};
use crate::engine::thread::LoadedThread;
use crate::engine::{Engine, EngineError, EventSink};
use crate::model::ToolSpec;
use crate::sync::lock;

/// The engine side of one thread's servers.
pub struct ThreadMcpHost {
    thread_id: String,
    sink: Arc<dyn EventSink>,
    approver: Arc<dyn Approver>,
    /// The thread, set once it is registered; used to find the running turn.
    thread: OnceLock<Weak<LoadedThread>>,
}

impl ThreadMcpHost {
    /// The running turn of the thread: its id and cancellation token.
    fn running_turn(&self) -> Option<(String, CancellationToken)> {
        let thread = self.thread.get()?.upgrade()?;
        let state = lock(&thread.state);
        state
            .active
            .as_ref()
            .map(|active| (active.id.clone(), active.cancel.clone()))
    }
}

impl ThreadMcpHost {
    /// Whether the thread's approval policy lets MCP elicitations reach the user.
    fn elicitations_allowed(&self) -> bool {
        let Some(thread) = self.thread.get().and_then(Weak::upgrade) else {
            return true;
        };
        let policy = lock(&thread.state).meta.approval_policy;
        !matches!(
            policy,
            AskForApproval::Granular(config) if !config.mcp_elicitations
        )
    }
}

impl McpHost for ThreadMcpHost {
    fn status_changed(
        &self,
        server: &str,
        state: StartupState,
        error: Option<String>,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        let notification =
            ServerNotification::McpServerStatusUpdated(McpServerStatusUpdatedNotification {
                thread_id: Some(self.thread_id.clone()),
                name: server.to_string(),
                status: startup_state(state),
                error,
                failure_reason: None,
            });
        Box::pin(async move { self.sink.emit(notification).await })
    }

    fn elicit(
        &self,
        server: &str,
        request: ElicitationRequest,
    ) -> Pin<Box<dyn Future<Output = ElicitationResponse> + Send + '_>> {
        let server = server.to_string();
        Box::pin(async move {
            // Without a running turn nobody is waiting for the server's answer to reach a
            // user: refuse rather than leave the server hanging.
            let Some((turn_id, cancel)) = self.running_turn() else {
                return ElicitationResponse::decline();
            };
            // A granular policy may keep MCP questions from the user: decline for them.
            if !self.elicitations_allowed() {
                return ElicitationResponse::decline();
            }
            let request = match request.mode {
                ElicitationMode::Form { requested_schema } => McpServerElicitationRequest::Form {
                    meta: request.meta,
                    message: request.message,
                    requested_schema,
                },
                ElicitationMode::Url {
                    url,
                    elicitation_id,
                } => McpServerElicitationRequest::Url {
                    meta: request.meta,
                    message: request.message,
                    url,
                    elicitation_id,
                },
            };
            let params = McpServerElicitationRequestParams {
                thread_id: self.thread_id.clone(),
                turn_id: Some(turn_id),
                server_name: server,
                request,
            };
            let reply = self
                .approver
                .request(ApprovalRequest::McpElicitation(params), cancel)
                .await;
            match reply {
                ApprovalReply::Answered(ApprovalAnswer::McpElicitation(answer)) => {
                    ElicitationResponse {
                        action: match answer.action {
                            McpServerElicitationAction::Accept => ElicitationAction::Accept,
                            McpServerElicitationAction::Decline => ElicitationAction::Decline,
                            McpServerElicitationAction::Cancel => ElicitationAction::Cancel,
                        },
                        content: answer.content,
                        meta: answer.meta,
                    }
                }
                ApprovalReply::Answered(_) | ApprovalReply::Failed(_) => {
                    ElicitationResponse::decline()
                }
                ApprovalReply::Withdrawn => ElicitationResponse {
                    action: ElicitationAction::Cancel,
                    content: None,
                    meta: None,
                },
            }
        })
    }
}

/// Starts the configured servers of a new loaded thread in the background.
pub fn start_thread_servers(
    engine: &Engine,
    thread_id: &str,
    cwd: PathBuf,
) -> (McpServers, Arc<ThreadMcpHost>) {
    let host = Arc::new(ThreadMcpHost {
        thread_id: thread_id.to_string(),
        sink: engine.inner.sink.clone(),
        approver: engine.inner.approver.clone(),
        thread: OnceLock::new(),
    });
    let configs = engine.inner.config().mcp_servers.clone();
    if configs.is_empty() {
        return (McpServers::empty(), host);
    }
    // Stdio servers take their few inherited variables from what commands may see.
    let options = StartOptions {
        cwd: Some(cwd),
        base_environment: engine
            .inner
            .config()
            .shell_environment_policy
            .apply(std::env::vars_os()),
    };
    let servers = McpServers::start(configs, host.clone(), options);
    (servers, host)
}

/// Lets the host find its thread once it is registered.
pub fn attach_thread(host: &ThreadMcpHost, thread: &Arc<LoadedThread>) {
    let _ = host.thread.set(Arc::downgrade(thread));
}

/// The model-facing definitions of the ready servers' tools.
pub fn tool_specs(servers: &McpServers) -> Vec<ToolSpec> {
    servers
        .tools()
        .into_iter()
        .map(|tool| ToolSpec {
            description: tool.description.clone().unwrap_or_else(|| {
                format!("Tool `{}` of the MCP server `{}`.", tool.name, tool.server)
            }),
            parameters: sanitize_schema(&tool.input_schema),
            name: tool.qualified_name,
        })
        .collect()
}

impl Engine {
    /// `mcpServerStatus/list`: the servers of the given (or most recently started) loaded
    /// thread, or the configured servers with no tools when no thread runs them.
    pub fn list_mcp_server_status(
        &self,
        params: ListMcpServerStatusParams,
    ) -> Result<ListMcpServerStatusResponse, EngineError> {
        let thread = match &params.thread_id {
            Some(thread_id) => Some(self.thread(thread_id).ok_or_else(|| {
                EngineError::InvalidRequest(format!("thread not loaded: {thread_id}"))
            })?),
            None => self.inner.threads.latest(self.principal()),
        };
        let mut data: Vec<McpServerStatus> = match &thread {
            Some(thread) => thread.mcp.status().into_iter().map(wire_status).collect(),
            None => self
                .inner
                .config()
                .mcp_servers
                .iter()
                .filter(|server| server.enabled)
                .map(|server| McpServerStatus {
                    name: server.name.clone(),
                    tools: Default::default(),
                    resources: Vec::new(),
                    resource_templates: Vec::new(),
                    auth_status: McpAuthStatus::Unsupported,
                    startup_status: None,
                    error: None,
                })
                .collect(),
        };
        let start = match &params.cursor {
            Some(cursor) => cursor
                .parse::<usize>()
                .map_err(|_| EngineError::InvalidRequest(format!("invalid cursor: {cursor}")))?,
            None => 0,
        };
        let limit = params
            .limit
            .map_or(usize::MAX, |limit| limit.max(1) as usize);
        let end = start.saturating_add(limit).min(data.len());
        let next_cursor = (end < data.len()).then(|| end.to_string());
        data = data.drain(start.min(end)..end).collect();
        Ok(ListMcpServerStatusResponse { data, next_cursor })
    }
}

fn wire_status(status: ServerStatus) -> McpServerStatus {
    McpServerStatus {
        name: status.name,
        tools: status.tools,
        resources: Vec::new(),
        resource_templates: Vec::new(),
        auth_status: if status.bearer_token {
            McpAuthStatus::BearerToken
        } else {
            McpAuthStatus::Unsupported
        },
        startup_status: Some(startup_state(status.state)),
        error: status.error,
    }
}

fn startup_state(state: StartupState) -> McpServerStartupState {
    match state {
        StartupState::Starting => McpServerStartupState::Starting,
        StartupState::Ready => McpServerStartupState::Ready,
        StartupState::Failed => McpServerStartupState::Failed,
        StartupState::Cancelled => McpServerStartupState::Cancelled,
    }
}
