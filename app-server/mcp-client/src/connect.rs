//! Opening one connection: spawning a stdio server (with a minimal environment, not ours) or
//! opening an HTTP session, then the MCP handshake through `rmcp`, with this crate's client
//! handler answering the server's requests.

use std::collections::{BTreeMap, HashMap};
use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;

use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::ClientHandler;
use rmcp::model::{
    ClientConfig, ElicitRequestParams, ElicitResult, ErrorData, ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient, RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

use crate::config::{ServerConfig, ServerTransport};
use crate::progress::ProgressRoutes;
use crate::stdio::StdioTransport;
use crate::{ElicitationAction, ElicitationMode, ElicitationRequest, MINIMAL_ENVIRONMENT, McpHost};

/// A live connection to one server.
pub type Connection = RunningService<RoleClient, Handler>;

/// Answers the server's requests to us: elicitations go to the host.
pub struct Handler {
    server: String,
    host: Arc<dyn McpHost>,
    info: ClientConfig,
    tools_changed: ToolsChanged,
    /// The server's calls waiting for progress.
    progress: Arc<ProgressRoutes>,
}

/// Called when the server says its tool list changed.
pub type ToolsChanged = Arc<dyn Fn() + Send + Sync>;

impl ClientHandler for Handler {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        // The request's wire form is the stable interface (the SDK's enum is non-exhaustive).
        let value = serde_json::to_value(&request).unwrap_or(Value::Null);
        let Some(request) = elicitation_request(&value) else {
            return serde_json::from_value(json!({"action": "decline"})).map_err(|error| {
                ErrorData::internal_error(format!("invalid result: {error}"), None)
            });
        };
        let response = self.host.elicit(&self.server, request).await;
        let action = match response.action {
            ElicitationAction::Accept => "accept",
            ElicitationAction::Decline => "decline",
            ElicitationAction::Cancel => "cancel",
        };
        let mut result = json!({"action": action});
        if let Some(content) = response.content {
            result["content"] = content;
        }
        if let Some(meta) = response.meta {
            result["_meta"] = meta;
        }
        serde_json::from_value(result).map_err(|error| {
            ErrorData::internal_error(format!("the answer is not a valid result: {error}"), None)
        })
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.deliver(&params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        (self.tools_changed)();
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}

/// The typed form of an `elicitation/create` request's params; `None` for unknown modes.
fn elicitation_request(value: &Value) -> Option<ElicitationRequest> {
    let message = value.get("message")?.as_str()?.to_string();
    let meta = value.get("_meta").filter(|meta| !meta.is_null()).cloned();
    let mode = match value.get("mode").and_then(Value::as_str).unwrap_or("form") {
        "form" => ElicitationMode::Form {
            requested_schema: value.get("requestedSchema").cloned().unwrap_or(Value::Null),
        },
        "url" => ElicitationMode::Url {
            url: value.get("url")?.as_str()?.to_string(),
            elicitation_id: value.get("elicitationId")?.as_str()?.to_string(),
        },
        _ => return None,
    };
    Some(ElicitationRequest {
        message,
        mode,
        meta,
    })
}

/// What connecting produced: the connection and, for stdio, the child's process id.
pub struct Connected {
    pub connection: Connection,
    pub pid: Option<u32>,
}

/// Spawns or opens the server of `config` and runs the MCP handshake; a stdio server's
/// environment is built by [`server_environment`] from `base_environment`.
pub async fn connect(
    config: &ServerConfig,
    host: Arc<dyn McpHost>,
    default_cwd: Option<&Path>,
    base_environment: &BTreeMap<OsString, OsString>,
    tools_changed: ToolsChanged,
    progress: Arc<ProgressRoutes>,
) -> Result<Connected, String> {
    let handler = Handler {
        server: config.name.clone(),
        host,
        info: client_info()?,
        tools_changed,
        progress,
    };
    match &config.transport {
        ServerTransport::Stdio {
            command,
            args,
            env,
            env_vars,
            cwd,
        } => {
            let environment = server_environment(base_environment, env_vars, env);
            let mut wrap = CommandWrap::with_new(command, |child| {
                child
                    .args(args)
                    .env_clear()
                    .envs(&environment)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                if let Some(dir) = cwd.as_deref().or(default_cwd) {
                    child.current_dir(dir);
                }
                child.kill_on_drop(true);
            });
            die_with_parent(wrap.command_mut());
            wrap.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
            let mut child = wrap
                .spawn()
                .map_err(|error| format!("failed to start `{command}`: {error}"))?;
            let pid = child.id();
            let stderr = child.stderr().take();
            let transport = StdioTransport::new(child)
                .map_err(|error| format!("failed to start `{command}`: {error}"))?;
            if let Some(stderr) = stderr {
                // The server's stderr is its log: forward it to ours, line by line.
                let server = config.name.clone();
                tokio::spawn(async move {
                    let mut lines = tokio::io::BufReader::new(stderr).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        tracing::debug!(target: "mcp_server_stderr", server = %server, "{line}");
                    }
                });
            }
            let connection = handler
                .serve(transport)
                .await
                .map_err(|error| format!("MCP handshake failed: {error}"))?;
            Ok(Connected { connection, pid })
        }
        ServerTransport::Http {
            url,
            bearer_token_env_var,
            headers,
        } => {
            let mut custom_headers = HashMap::new();
            for (name, value) in headers {
                let name = HeaderName::try_from(name.as_str())
                    .map_err(|error| format!("invalid header name `{name}`: {error}"))?;
                let value = HeaderValue::try_from(value.as_str())
                    .map_err(|error| format!("invalid value for header `{name}`: {error}"))?;
                custom_headers.insert(name, value);
            }
            let mut transport_config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .custom_headers(custom_headers);
            if let Some(variable) = bearer_token_env_var {
                let token = std::env::var(variable).map_err(|_| {
                    format!(
                        "the environment variable `{variable}` (bearer_token_env_var) is not set"
                    )
                })?;
                transport_config = transport_config.auth_header(token);
            }
            let client = reqwest::Client::builder()
                .build()
                .map_err(|error| format!("failed to build the HTTP client: {error}"))?;
            let transport = StreamableHttpClientTransport::with_client(client, transport_config);
            let connection = handler
                .serve(transport)
                .await
                .map_err(|error| format!("MCP handshake with {url} failed: {error}"))?;
            Ok(Connected {
                connection,
                pid: None,
            })
        }
    }
}

/// A stdio server's whole environment: the [`MINIMAL_ENVIRONMENT`] variables present in
/// `base`, the `env_vars` variables of this process's own environment (present ones only), and
/// the configured `env`, each later one overriding the earlier.
pub fn server_environment(
    base: &BTreeMap<OsString, OsString>,
    env_vars: &[String],
    env: &BTreeMap<String, String>,
) -> BTreeMap<OsString, OsString> {
    let mut environment: BTreeMap<OsString, OsString> = MINIMAL_ENVIRONMENT
        .iter()
        .filter_map(|name| {
            let value = base.get(OsStr::new(name))?;
            Some((OsString::from(name), value.clone()))
        })
        .collect();
    for name in env_vars {
        if let Some(value) = std::env::var_os(name) {
            environment.insert(OsString::from(name), value);
        }
    }
    for (name, value) in env {
        environment.insert(OsString::from(name), OsString::from(value));
    }
    environment
}

/// Our `initialize` params: we answer form and URL elicitations.
fn client_info() -> Result<ClientConfig, String> {
    serde_json::from_value(json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "tandem", "version": env!("CARGO_PKG_VERSION")}
    }))
    .map_err(|error| format!("invalid client info: {error}"))
}

/// Asks the kernel to kill the child when this process dies, so that even a `SIGKILL`ed
/// Tandem leaves no server behind (the process group is killed on every orderly path).
fn die_with_parent(command: &mut tokio::process::Command) {
    // SAFETY: the closure runs in the forked child before `exec` and only calls `prctl`,
    // which is async-signal-safe; it allocates nothing.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}
