//! One configured server over its lifetime: started in the background, started again after its
//! connection died, and stopped with its whole process group.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rmcp::Peer;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use rmcp::service::{RoleClient, ServiceError};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::config::{ServerConfig, ServerTransport};
use crate::connect::{Connection, ToolsChanged, connect};
use crate::names::qualified_name;
use crate::progress::{ProgressRoutes, call_tool_with_progress};
use crate::stdio::TOO_LARGE_MARKER;
use crate::{CallError, CallResult, McpHost, McpTool, ServerStatus, StartOptions, StartupState};

/// How long a closing connection may take before its process group is killed.
const CLOSE_GRACE: Duration = Duration::from_secs(2);

/// One server: its configuration, its live connection (if any) and what it reported.
pub struct ServerSlot {
    pub config: ServerConfig,
    host: Arc<dyn McpHost>,
    shutdown: CancellationToken,
    /// Where stdio servers without their own `cwd` run, and their base environment.
    options: Arc<StartOptions>,
    /// The connection, held across a start so that concurrent callers wait for one start.
    live: tokio::sync::Mutex<Option<Live>>,
    /// What `status` and `tools` report, readable without waiting for a start.
    snapshot: Mutex<Snapshot>,
    /// The startup state, for waiters.
    state: watch::Sender<StartupState>,
    /// The process group of the running stdio server, for the synchronous kill on drop.
    process_group: Mutex<Option<u32>>,
    /// The calls waiting for progress, shared with each connection's handler.
    progress: Arc<ProgressRoutes>,
}

struct Live {
    connection: Connection,
    pid: Option<u32>,
}

struct Snapshot {
    error: Option<String>,
    tools: Vec<McpTool>,
}

impl ServerSlot {
    /// A slot in the `starting` state; nothing runs until [`ServerSlot::ensure_started`].
    pub fn new(
        config: ServerConfig,
        host: Arc<dyn McpHost>,
        shutdown: CancellationToken,
        options: Arc<StartOptions>,
    ) -> Arc<ServerSlot> {
        let (state, _) = watch::channel(StartupState::Starting);
        Arc::new(ServerSlot {
            config,
            host,
            shutdown,
            options,
            live: tokio::sync::Mutex::new(None),
            snapshot: Mutex::new(Snapshot {
                error: None,
                tools: Vec::new(),
            }),
            state,
            process_group: Mutex::new(None),
            progress: Arc::new(ProgressRoutes::default()),
        })
    }

    /// Waits until the server is no longer starting.
    pub async fn wait_not_starting(&self) {
        let mut receiver = self.state.subscribe();
        // The sender lives as long as `self`, so this only ends when the state changes.
        let _ = receiver
            .wait_for(|state| *state != StartupState::Starting)
            .await;
    }

    /// The tools offered, after the configuration's filters: those of the last successful
    /// start, so that a server whose connection died keeps its tools and the next call to one
    /// of them starts it again.
    pub fn tools(&self) -> Vec<McpTool> {
        lock(&self.snapshot).tools.clone()
    }

    /// The status for `mcpServerStatus/list`.
    pub fn status(&self) -> ServerStatus {
        let snapshot = lock(&self.snapshot);
        let (http, bearer_token) = match &self.config.transport {
            ServerTransport::Stdio { .. } => (false, false),
            ServerTransport::Http {
                bearer_token_env_var,
                ..
            } => (true, bearer_token_env_var.is_some()),
        };
        ServerStatus {
            name: self.config.name.clone(),
            state: *self.state.borrow(),
            error: snapshot.error.clone(),
            tools: snapshot
                .tools
                .iter()
                .map(|tool| (tool.name.clone(), tool.definition.clone()))
                .collect::<BTreeMap<_, _>>(),
            bearer_token,
            http,
        }
    }

    /// Returns a peer of the live connection, starting the server first when it is not running.
    pub async fn ensure_started(self: &Arc<Self>) -> Result<Peer<RoleClient>, String> {
        let mut live = self.live.lock().await;
        if let Some(current) = live.as_ref() {
            if !current.connection.is_closed() {
                return Ok(current.connection.peer().clone());
            }
            // It died since the last call: clean up what is left of it.
            if let Some(dead) = live.take() {
                self.close(dead).await;
            }
        }
        if self.shutdown.is_cancelled() {
            return Err("the MCP servers were shut down".into());
        }
        self.set_state(StartupState::Starting, None).await;
        let started = tokio::select! {
            _ = self.shutdown.cancelled() => {
                self.set_state(StartupState::Cancelled, None).await;
                return Err("the MCP servers were shut down".into());
            }
            started = tokio::time::timeout(self.config.startup_timeout, self.start()) => started,
        };
        let started = match started {
            Ok(started) => started,
            Err(_) => Err(format!(
                "MCP server `{}` did not start within {} s (startup_timeout_sec)",
                self.config.name,
                self.config.startup_timeout.as_secs_f64()
            )),
        };
        match started {
            Ok((new_live, tools)) => {
                let peer = new_live.connection.peer().clone();
                *lock(&self.process_group) = new_live.pid;
                *live = Some(new_live);
                lock(&self.snapshot).tools = tools;
                self.set_state(StartupState::Ready, None).await;
                Ok(peer)
            }
            Err(error) => {
                tracing::warn!(server = %self.config.name, "{error}");
                self.set_state(StartupState::Failed, Some(error.clone()))
                    .await;
                Err(error)
            }
        }
    }

    /// Calls `tool`, starting the server first if needed.
    pub async fn call(
        self: &Arc<Self>,
        tool: &str,
        arguments: Option<serde_json::Map<String, Value>>,
        cancel: &CancellationToken,
        progress: Option<mpsc::Sender<String>>,
    ) -> Result<CallResult, CallError> {
        let peer = tokio::select! {
            _ = cancel.cancelled() => return Err(CallError::Cancelled),
            peer = self.ensure_started() => peer,
        }
        .map_err(|message| CallError::Unavailable {
            server: self.config.name.clone(),
            message,
        })?;
        if !self.config.offers(tool) || !self.tools().iter().any(|known| known.name == tool) {
            return Err(CallError::UnknownTool {
                server: self.config.name.clone(),
                tool: tool.to_string(),
            });
        }
        let params: CallToolRequestParams = serde_json::from_value(
            json!({"name": tool, "arguments": arguments}),
        )
        .map_err(|error| CallError::Server {
            server: self.config.name.clone(),
            message: format!("invalid arguments: {error}"),
        })?;
        // Dropping the call future (timeout, cancellation) sends `notifications/cancelled`.
        let outcome = tokio::select! {
            _ = cancel.cancelled() => return Err(CallError::Cancelled),
            _ = self.shutdown.cancelled() => return Err(CallError::Cancelled),
            outcome = tokio::time::timeout(self.config.tool_timeout, async {
                match progress {
                    Some(progress) => {
                        call_tool_with_progress(&peer, params, &self.progress, progress).await
                    }
                    None => peer.call_tool(params).await,
                }
            }) => outcome,
        };
        let result = match outcome {
            Err(_) => return Err(CallError::Timeout(self.config.tool_timeout)),
            Ok(Ok(result)) => result,
            Ok(Err(ServiceError::McpError(error))) => {
                if let Some(data) = error.data.as_ref().filter(|data| {
                    data.get("tandem").and_then(Value::as_str) == Some(TOO_LARGE_MARKER)
                }) {
                    return Err(CallError::MessageTooLarge {
                        server: self.config.name.clone(),
                        bytes: data.get("bytes").and_then(Value::as_u64),
                        limit: data
                            .get("limit")
                            .and_then(Value::as_u64)
                            .unwrap_or_default(),
                    });
                }
                return Err(CallError::Server {
                    server: self.config.name.clone(),
                    message: error.message.to_string(),
                });
            }
            Ok(Err(error)) => {
                let message = error.to_string();
                self.connection_lost(&message).await;
                return Err(CallError::ConnectionLost {
                    server: self.config.name.clone(),
                    message,
                });
            }
        };
        let value = serde_json::to_value(&result).unwrap_or(Value::Null);
        Ok(CallResult {
            content: value
                .get("content")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            structured_content: value
                .get("structuredContent")
                .filter(|content| !content.is_null())
                .cloned(),
            is_error: result.is_error.unwrap_or(false),
            meta: value.get("_meta").cloned(),
        })
    }

    /// Reads the resource `uri`, starting the server first if needed, bounded by the tool
    /// timeout; the contents as the server sent them.
    pub async fn read_resource(
        self: &Arc<Self>,
        uri: &str,
        cancel: &CancellationToken,
    ) -> Result<Vec<Value>, CallError> {
        let peer = tokio::select! {
            _ = cancel.cancelled() => return Err(CallError::Cancelled),
            peer = self.ensure_started() => peer,
        }
        .map_err(|message| CallError::Unavailable {
            server: self.config.name.clone(),
            message,
        })?;
        let params: ReadResourceRequestParams = serde_json::from_value(json!({"uri": uri}))
            .map_err(|error| CallError::Server {
                server: self.config.name.clone(),
                message: format!("invalid resource URI: {error}"),
            })?;
        let outcome = tokio::select! {
            _ = cancel.cancelled() => return Err(CallError::Cancelled),
            _ = self.shutdown.cancelled() => return Err(CallError::Cancelled),
            outcome = tokio::time::timeout(self.config.tool_timeout, peer.read_resource(params)) => outcome,
        };
        match outcome {
            Err(_) => Err(CallError::Timeout(self.config.tool_timeout)),
            Ok(Ok(result)) => Ok(serde_json::to_value(&result)
                .ok()
                .and_then(|value| value.get("contents").and_then(Value::as_array).cloned())
                .unwrap_or_default()),
            Ok(Err(ServiceError::McpError(error))) => Err(CallError::Server {
                server: self.config.name.clone(),
                message: error.message.to_string(),
            }),
            Ok(Err(error)) => {
                let message = error.to_string();
                self.connection_lost(&message).await;
                Err(CallError::ConnectionLost {
                    server: self.config.name.clone(),
                    message,
                })
            }
        }
    }

    /// Closes the connection and kills the process group.
    pub async fn stop(&self) {
        let live = self.live.lock().await.take();
        if let Some(live) = live {
            self.close(live).await;
        }
        if *self.state.borrow() == StartupState::Starting {
            self.set_state(StartupState::Cancelled, None).await;
        }
    }

    /// Kills the process group at once, for drops outside any runtime guarantee.
    pub fn kill_now(&self) {
        if let Some(pid) = lock(&self.process_group).take() {
            kill_group(pid);
        }
    }

    async fn start(self: &Arc<Self>) -> Result<(Live, Vec<McpTool>), String> {
        let weak = Arc::downgrade(self);
        let tools_changed: ToolsChanged = Arc::new(move || {
            if let Some(slot) = weak.upgrade() {
                tokio::spawn(async move { slot.refresh_tools().await });
            }
        });
        let connected = connect(
            &self.config,
            self.host.clone(),
            self.options.cwd.as_deref(),
            &self.options.base_environment,
            tools_changed,
            self.progress.clone(),
        )
        .await?;
        let live = Live {
            connection: connected.connection,
            pid: connected.pid,
        };
        let tools = match self.list_tools(live.connection.peer()).await {
            Ok(tools) => tools,
            Err(message) => {
                self.close(live).await;
                return Err(message);
            }
        };
        Ok((live, tools))
    }

    /// Lists the tools again after `notifications/tools/list_changed`.
    async fn refresh_tools(&self) {
        let peer = match self.live.lock().await.as_ref() {
            Some(live) => live.connection.peer().clone(),
            None => return,
        };
        match self.list_tools(&peer).await {
            Ok(tools) => lock(&self.snapshot).tools = tools,
            Err(message) => tracing::warn!(server = %self.config.name, "{message}"),
        }
    }

    async fn list_tools(&self, peer: &Peer<RoleClient>) -> Result<Vec<McpTool>, String> {
        let listed = peer
            .list_all_tools()
            .await
            .map_err(|error| format!("tools/list failed: {error}"))?;
        let tools = listed
            .into_iter()
            .filter(|tool| self.config.offers(&tool.name))
            .map(|tool| {
                let definition = serde_json::to_value(&tool).unwrap_or(Value::Null);
                McpTool {
                    server: self.config.name.clone(),
                    qualified_name: qualified_name(&self.config.name, &tool.name),
                    name: tool.name.to_string(),
                    description: tool.description.as_deref().map(str::to_string),
                    input_schema: Value::Object((*tool.input_schema).clone()),
                    read_only: tool
                        .annotations
                        .as_ref()
                        .and_then(|annotations| annotations.read_only_hint)
                        .unwrap_or(false),
                    definition,
                }
            })
            .collect();
        Ok(tools)
    }

    async fn connection_lost(&self, message: &str) {
        tracing::warn!(server = %self.config.name, "connection lost: {message}");
        let dead = self.live.lock().await.take();
        if let Some(dead) = dead {
            self.close(dead).await;
        }
        self.set_state(
            StartupState::Failed,
            Some(format!("connection lost: {message}")),
        )
        .await;
    }

    async fn close(&self, live: Live) {
        let _ = tokio::time::timeout(CLOSE_GRACE, live.connection.cancel()).await;
        if let Some(pid) = live.pid {
            kill_group(pid);
            let mut group = lock(&self.process_group);
            if *group == Some(pid) {
                *group = None;
            }
        }
    }

    async fn set_state(&self, state: StartupState, error: Option<String>) {
        if state != StartupState::Failed {
            lock(&self.snapshot).error = None;
        } else {
            lock(&self.snapshot).error = error.clone();
        }
        self.state.send_replace(state);
        self.host
            .status_changed(&self.config.name, state, error)
            .await;
    }
}

/// Kills a whole process group; a group that is already gone is fine.
fn kill_group(pid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pid) else {
        return;
    };
    // SAFETY: `killpg` has no memory-safety preconditions.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Locks `mutex`, recovering it from a panicked holder.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
