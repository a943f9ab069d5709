//! Configuration: `$TANDEM_HOME/config.toml`, profiles and `-c dotted.key=value` overrides.
//!
//! Key names follow Codex's where the concept is the same (`model`, `model_provider`,
//! `approval_policy`, `sandbox_mode`, `[model_providers.NAME]`, `[profiles.NAME]`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use app_server_protocol::policy::{AskForApproval, ReasoningEffort, ReasoningSummary, SandboxMode};

mod load;
pub mod write;

pub use load::{
    CLIENT_CONFIG_KEYS, ConfigError, config_read_response, json_version, refused_client_key,
    table_version,
};

/// Default of `project_doc_max_bytes`: the AGENTS.md text loaded for a thread.
pub const DEFAULT_PROJECT_DOC_MAX_BYTES: usize = 32 * 1024;

/// The effective configuration of the server.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// `TANDEM_HOME` (default `~/.tandem`), absolute.
    pub home: PathBuf,
    /// Path of the user config file (`$TANDEM_HOME/config.toml`), whether or not it exists.
    pub config_file: PathBuf,
    /// Active profile (`profile = "…"` or `-c profile=…`).
    pub profile: Option<String>,
    /// Default model slug; `None` means the provider's default.
    pub model: Option<String>,
    /// Default provider id (a key of `model_providers`); default `openai`.
    pub model_provider: String,
    /// Default approval policy; default `on-request`.
    pub approval_policy: AskForApproval,
    /// Default sandbox mode; default `read-only`.
    pub sandbox_mode: SandboxMode,
    /// `[sandbox_workspace_write]` settings.
    pub sandbox_workspace_write: WorkspaceWriteConfig,
    /// `model_reasoning_effort`.
    pub model_reasoning_effort: Option<ReasoningEffort>,
    /// `model_reasoning_summary`.
    pub model_reasoning_summary: Option<ReasoningSummary>,
    /// `instructions`: replaces the built-in base instructions.
    pub base_instructions: Option<String>,
    /// `developer_instructions`: appended to the instructions.
    pub developer_instructions: Option<String>,
    /// `project_doc_max_bytes`: cap on the AGENTS.md text loaded for a thread (default 32 KiB;
    /// 0 turns project instructions off).
    pub project_doc_max_bytes: usize,
    /// `compact_prompt`: replaces the built-in prompt that asks for a compaction summary.
    pub compact_prompt: Option<String>,
    /// `model_context_window`: the model's context window in tokens, when known.
    pub model_context_window: Option<u64>,
    /// `model_auto_compact_token_limit`: compact before a request whose estimated input
    /// exceeds this many tokens (default 90% of the context window).
    pub model_auto_compact_token_limit: Option<u64>,
    /// Every provider: the built-ins (`openai`, `ollama`, `demo`) merged with `[model_providers.*]`.
    pub model_providers: BTreeMap<String, ProviderConfig>,
    /// `ask_user` (default true): offer the model the free-text `ask_user` tool (plan mode,
    /// clients with `experimentalApi`). `tandem run --yes` and non-interactive runs set it false.
    pub ask_user: bool,
    /// `request_permissions_tool` (default false): offer the model the `request_permissions`
    /// tool, which asks the client for more than the thread's sandbox gives
    /// (`item/permissions/requestApproval`), within `[clients]`.
    pub request_permissions_tool: bool,
    /// `[app_server]` transport settings.
    pub app_server: AppServerConfig,
    /// `[query_project_index]`: the project index behind `query_project`.
    pub query_project_index: QueryProjectIndexConfig,
    /// `[mcp_servers.NAME]`: MCP servers whose tools the agent is offered, in name order.
    pub mcp_servers: Vec<tandem_mcp_client::ServerConfig>,
    /// `mcp_tool_output_max_bytes`: an MCP tool result larger than this (its content blocks
    /// and structured content as JSON) is cut to it, with a marker saying how much was cut,
    /// before the model, the client or the rollout sees it (default 1 MiB).
    pub mcp_tool_output_max_bytes: usize,
    /// `[shell_environment_policy]`: how the environment of commands (and the variables MCP
    /// servers may take from it) is built from the server's.
    pub shell_environment_policy: crate::tools::exec::environment::ShellEnvironmentPolicy,
    /// `[clients]`: the operator's ceiling on what a client may obtain (applied by
    /// [`crate::access::ClientPolicy`]).
    pub clients: ClientsConfig,
    /// The effective config as a TOML table with every key set by a layer (for `config/read`).
    pub effective: toml::Table,
    /// Where each dotted key's value came from (for `config/read`).
    pub origins: BTreeMap<String, ConfigOrigin>,
    /// The `-c key=value` flags this config was loaded with, applied again when `config.toml`
    /// is read anew after a write.
    pub flags: Vec<String>,
    /// The version of `config.toml` as loaded ([`table_version`] of its table; that of an
    /// empty table when there is no file): `config/read` reports it for the user layer, and a
    /// config write with an `expectedVersion` compares it with the file's.
    pub user_version: String,
}

/// Which layer set a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigOrigin {
    /// The user's config.toml (with the active profile).
    User,
    /// A `-c` flag or a per-request override.
    SessionFlags,
}

/// `[sandbox_workspace_write]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkspaceWriteConfig {
    /// Extra writable directories.
    pub writable_roots: Vec<PathBuf>,
    /// Allow network access.
    pub network_access: bool,
    /// Do not make `$TMPDIR` writable.
    pub exclude_tmpdir_env_var: bool,
    /// Do not make `/tmp` writable.
    pub exclude_slash_tmp: bool,
}

/// `[clients]`: what the operator lets a client obtain. Unset keys take the front end's
/// default (see `docs/configuration.md`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientsConfig {
    /// `max_sandbox`: the widest sandbox a client may obtain for a thread, a turn or a
    /// command; `None` means the front end's default.
    pub max_sandbox: Option<SandboxMode>,
    /// `allow_client_config`: which config keys a client may set through `config` overrides.
    pub allow_client_config: ClientConfigAccess,
    /// `reveal_credentials`: whether a stored secret may be returned to a client; `None`
    /// means the front end's default. Never honoured on a network listener.
    pub reveal_credentials: Option<bool>,
    /// `fs_roots`: directories the `fs/*` methods may reach besides the server's working
    /// directory and the working directories of the caller's loaded threads (absolute).
    pub fs_roots: Vec<PathBuf>,
    /// `allow_config_writes`: whether a client may write `config.toml` (`config/value/write`,
    /// `config/batchWrite`, `modelProvider/*` writes, `setDefaultModel`); `None` means the
    /// front end's default: on for local front ends, off on a network listener.
    pub allow_config_writes: Option<bool>,
    /// `allow_mcp_server_calls`: whether a client may call a thread's MCP servers directly
    /// (`mcpServer/tool/call`, `mcpServer/resource/read`); `None` means the front end's
    /// default: on for local front ends, off on a network listener.
    pub allow_mcp_server_calls: Option<bool>,
}

/// `clients.allow_client_config`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClientConfigAccess {
    /// Only the keys of [`CLIENT_CONFIG_KEYS`] (`"listed"`, the default).
    #[default]
    Listed,
    /// Every key but `clients.*` (`"all"`).
    All,
}

/// `[query_project_index]`, with the server's index state.
#[derive(Clone, Debug)]
pub struct QueryProjectIndexConfig {
    /// Whether MCP `notifications/initialized` starts a background refresh of the server's
    /// working directory (default true).
    pub auto_warm: bool,
    /// Whether the agent is offered the `query_project` model tool in threads whose cwd is a
    /// project (default true).
    pub model_tool: bool,
    /// Directories besides the server's working directory (a thread's cwd for the model tool)
    /// whose repositories a client or model may index and query (`roots`, absolute paths).
    pub roots: Vec<std::path::PathBuf>,
    /// Everything the index engine needs.
    pub settings: tandem_index::IndexSettings,
    /// The in-process state of the index (refresh locks, cached vectors, loaded models), not
    /// configuration: created once when the server loads its config and shared by every
    /// engine, session and call of that server through it (a thread's config keeps it).
    pub state: tandem_index::IndexState,
}

/// Equal settings: the state is the server's runtime, not part of what was configured.
impl PartialEq for QueryProjectIndexConfig {
    fn eq(&self, other: &Self) -> bool {
        self.auto_warm == other.auto_warm
            && self.model_tool == other.model_tool
            && self.roots == other.roots
            && self.settings == other.settings
    }
}

/// `[app_server]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppServerConfig {
    /// Longest accepted input line in bytes (`max_line_bytes`, default 16 MiB).
    pub max_line_bytes: usize,
    /// Requests that may wait for a worker before the server answers "overloaded"
    /// (`request_queue_capacity`, default 128).
    pub request_queue_capacity: usize,
}

/// Which wire protocol a provider speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireApi {
    /// OpenAI Responses API (`POST {base_url}/responses`).
    Responses,
    /// Chat Completions (`POST {base_url}/chat/completions`).
    Chat,
    /// The built-in offline scripted demo.
    Demo,
}

/// `[model_providers.NAME]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderConfig {
    /// The provider id (the table key).
    pub id: String,
    /// Display name.
    pub name: String,
    /// Base URL, such as `https://api.openai.com/v1`.
    pub base_url: String,
    /// Wire protocol.
    pub wire_api: WireApi,
    /// Environment variable holding the API key, if the provider needs one.
    pub env_key: Option<String>,
    /// Extra HTTP headers sent with every request.
    pub http_headers: BTreeMap<String, String>,
    /// Retries of a request that failed before streaming (default 4).
    pub request_max_retries: u32,
    /// Retries of a stream that dropped before any output (default 5).
    pub stream_max_retries: u32,
    /// Fail the stream after this long without an event (default 300000 ms).
    pub stream_idle_timeout_ms: u64,
    /// `stream`: request streamed responses (default true). With `false` every model call is
    /// one plain request whose whole answer arrives at once, for servers that cannot stream
    /// tool calls.
    pub stream: bool,
    /// Model slugs for `model/list` when the provider has no models endpoint.
    pub models: Vec<String>,
    /// Default model slug of this provider.
    pub default_model: String,
}

impl ProviderConfig {
    /// The API key from `env_key`, if set and present.
    pub fn api_key(&self) -> Option<String> {
        self.env_key
            .as_ref()
            .and_then(|name| std::env::var(name).ok())
            .filter(|key| !key.is_empty())
    }
}
