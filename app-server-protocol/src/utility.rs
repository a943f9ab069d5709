//! Params and responses of the utility methods: models, config, standalone commands, file
//! search and git diffs.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::policy::{ReasoningEffort, SandboxPolicy};

/// Parameters of `model/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ModelListParams {
    /// Opaque cursor: the `nextCursor` of the previous page (a stringified offset); anything
    /// else is refused with `-32600 "invalid cursor: <cursor>"`.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Page size (at least 1; every model when absent).
    #[serde(default)]
    pub limit: Option<u32>,
    /// Tandem extension: the first-generation name of `limit`, accepted as its alias; when
    /// both are sent, `limit` wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_size: Option<u32>,
    /// Include hidden models.
    #[serde(default)]
    pub include_hidden: Option<bool>,
    /// List this provider's models instead of the configured one's.
    #[serde(default)]
    pub model_provider: Option<String>,
}

/// Result of `model/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelListResponse {
    /// One page of models.
    pub data: Vec<Model>,
    /// Cursor of the next page; `null` on the last page.
    #[serde(default)]
    pub next_cursor: Option<String>,
}

/// A model the client can choose.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// Model id.
    pub id: String,
    /// Model slug sent to the provider.
    pub model: String,
    /// Slug of the model this one upgrades to; always `null` in Tandem, which knows no
    /// upgrade paths.
    #[serde(default)]
    pub upgrade: Option<String>,
    /// Upgrade details; always `null` in Tandem.
    #[serde(default)]
    pub upgrade_info: Option<serde_json::Value>,
    /// Availability notice.
    #[serde(default)]
    pub availability_nux: Option<ModelAvailabilityNux>,
    /// Display name.
    pub display_name: String,
    /// Short description.
    pub description: String,
    /// Specialty label.
    #[serde(default)]
    pub model_specialty: Option<String>,
    /// Hidden models are listed only with `includeHidden`.
    pub hidden: bool,
    /// Reasoning efforts the model supports, each with a description (`low`, `medium` and
    /// `high` in Tandem, which does not know a provider's model limits).
    pub supported_reasoning_efforts: Vec<ReasoningEffortOption>,
    /// Reasoning effort used when none is chosen (`medium` in Tandem).
    pub default_reasoning_effort: ReasoningEffort,
    /// Input modalities (`text`, `image`).
    #[serde(default)]
    pub input_modalities: Vec<InputModality>,
    /// Whether the model takes a `personality` (`friendly`, `pragmatic`); always `false` in
    /// Tandem, whose instructions have no personality text.
    #[serde(default)]
    pub supports_personality: bool,
    /// Multi-agent protocol version.
    #[serde(default)]
    pub multi_agent_version: Option<String>,
    /// Extra speed tiers.
    #[serde(default)]
    pub additional_speed_tiers: Vec<String>,
    /// Service tiers.
    #[serde(default)]
    pub service_tiers: Vec<ModelServiceTier>,
    /// Default service tier.
    #[serde(default)]
    pub default_service_tier: Option<String>,
    /// Access programs; always `null` in Tandem.
    #[serde(default)]
    pub available_access_programs: Option<serde_json::Value>,
    /// Whether this is the default model: `model` from config, else the provider's default
    /// model.
    pub is_default: bool,
}

/// An availability notice for a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ModelAvailabilityNux {
    /// The notice.
    pub message: String,
}

/// A reasoning effort with its description.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningEffortOption {
    /// The effort.
    pub reasoning_effort: ReasoningEffort,
    /// What it means.
    pub description: String,
}

/// An input modality.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum InputModality {
    /// Text input.
    Text,
    /// Image input.
    Image,
}

/// A service tier of a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ModelServiceTier {
    /// Tier id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Description.
    pub description: String,
}

/// Parameters of `config/read`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ConfigReadParams {
    /// Also return each config layer.
    #[serde(default)]
    pub include_layers: Option<bool>,
    /// Resolve project-specific settings for this directory.
    #[serde(default)]
    pub cwd: Option<String>,
}

/// Result of `config/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConfigReadResponse {
    /// The effective config with its snake_case config.toml keys.
    pub config: serde_json::Value,
    /// Where each dotted key's value came from.
    pub origins: BTreeMap<String, ConfigLayerMetadata>,
    /// Each layer, lowest precedence first; omitted unless `includeLayers`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub layers: Option<Vec<ConfigLayer>>,
    /// Tandem extension: the AGENTS.md files a thread started in `cwd` (or the server's
    /// working directory) would load, in the order they are read (global file first, nearest
    /// directory last); omitted when none applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub instruction_sources: Option<Vec<String>>,
}

/// Identification of a config layer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ConfigLayerMetadata {
    /// Which layer.
    pub name: ConfigLayerSource,
    /// The layer's version: `sha256:` and the hex SHA-256 of its table as compact JSON with
    /// sorted keys (for the user layer, of `config.toml` as it is on disk).
    pub version: String,
}

/// A config layer's origin (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ConfigLayerSource {
    /// The user's `config.toml` (with the active profile, if any).
    User {
        /// Path of the file.
        file: String,
        /// Active profile.
        #[serde(default)]
        profile: Option<String>,
    },
    /// `-c key=value` flags and per-request overrides.
    SessionFlags,
    /// Built-in defaults.
    Default,
}

/// One config layer with its raw values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ConfigLayer {
    /// Which layer.
    pub name: ConfigLayerSource,
    /// Content hash of the layer.
    pub version: String,
    /// The layer's values, as JSON.
    pub config: serde_json::Value,
}

/// Parameters of `command/exec`: run an argv vector without a thread or turn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct CommandExecParams {
    /// The argv vector; must not be empty.
    pub command: Vec<String>,
    /// Client-chosen id, required for `tty` and streaming, used by write/resize/terminate.
    #[serde(default)]
    pub process_id: Option<String>,
    /// Run in a pseudo-terminal.
    #[serde(default)]
    pub tty: Option<bool>,
    /// Accept stdin through `command/exec/write`.
    #[serde(default)]
    pub stream_stdin: Option<bool>,
    /// Stream output as `command/exec/outputDelta` instead of buffering it.
    #[serde(default)]
    pub stream_stdout_stderr: Option<bool>,
    /// Cap on buffered output bytes per stream.
    #[serde(default)]
    pub output_bytes_cap: Option<u64>,
    /// Disable the output cap.
    #[serde(default)]
    pub disable_output_cap: Option<bool>,
    /// Timeout in milliseconds; on timeout the exit code is 124.
    #[serde(default)]
    pub timeout_ms: Option<i64>,
    /// Disable the timeout.
    #[serde(default)]
    pub disable_timeout: Option<bool>,
    /// Working directory.
    #[serde(default)]
    pub cwd: Option<String>,
    /// Environment changes; `null` removes a variable.
    #[serde(default)]
    pub env: Option<BTreeMap<String, Option<String>>>,
    /// Initial terminal size for `tty`.
    #[serde(default)]
    pub size: Option<CommandExecTerminalSize>,
    /// Sandbox for the command (default: the configured sandbox).
    #[serde(default)]
    pub sandbox_policy: Option<SandboxPolicy>,
}

/// A terminal size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct CommandExecTerminalSize {
    /// Rows.
    pub rows: u16,
    /// Columns.
    pub cols: u16,
}

/// Result of `command/exec`, once the process exits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct CommandExecResponse {
    /// Exit code (124 on timeout).
    pub exit_code: i32,
    /// Buffered stdout (empty when streamed).
    pub stdout: String,
    /// Buffered stderr (empty when streamed).
    pub stderr: String,
}

/// Parameters of `command/exec/write`: send stdin bytes to a running command.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct CommandExecWriteParams {
    /// The command's `processId`.
    pub process_id: String,
    /// Bytes to write, base64-encoded.
    #[serde(default)]
    pub delta_base64: Option<String>,
    /// Close stdin after writing.
    #[serde(default)]
    pub close_stdin: Option<bool>,
}

/// Parameters of `command/exec/resize`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct CommandExecResizeParams {
    /// The command's `processId`.
    pub process_id: String,
    /// New terminal size.
    pub size: CommandExecTerminalSize,
}

/// Parameters of `command/exec/terminate`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct CommandExecTerminateParams {
    /// The command's `processId`.
    pub process_id: String,
}

/// Which output stream a chunk came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum CommandExecOutputStream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Parameters of `fuzzyFileSearch`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct FuzzyFileSearchParams {
    /// What to look for.
    pub query: String,
    /// Directories to search (gitignore-aware).
    pub roots: Vec<String>,
    /// A later search with the same token cancels this one.
    #[serde(default)]
    pub cancellation_token: Option<String>,
}

/// Result of `fuzzyFileSearch`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct FuzzyFileSearchResponse {
    /// Matches, best first.
    pub files: Vec<FuzzyFileSearchResult>,
}

/// One fuzzy-search match (snake_case on the wire).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct FuzzyFileSearchResult {
    /// The search root the match is under.
    pub root: String,
    /// Path relative to `root`.
    pub path: String,
    /// File or directory.
    pub match_type: FuzzyFileSearchMatchType,
    /// Last path component.
    pub file_name: String,
    /// Match score; higher is better.
    pub score: u32,
    /// Matched character indices in `path`.
    #[serde(default)]
    pub indices: Option<Vec<u32>>,
}

/// Whether a match is a file or a directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum FuzzyFileSearchMatchType {
    /// A file.
    File,
    /// A directory.
    Directory,
}

/// Parameters of `gitDiffToRemote`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct GitDiffToRemoteParams {
    /// A directory inside the repository.
    pub cwd: String,
}

/// Result of `gitDiffToRemote`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct GitDiffToRemoteResponse {
    /// The remote-tracking commit the diff is against.
    pub sha: String,
    /// Diff of the working tree (untracked files included) against `sha`.
    pub diff: String,
}

/// Parameters of `getAuthStatus` (legacy).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct GetAuthStatusParams {
    /// Whether to include the stored API key as `authToken`; honoured only where the operator
    /// lets the server reveal stored credentials (`clients.reveal_credentials`).
    #[serde(default)]
    pub include_token: Option<bool>,
    /// Whether to refresh the token first. Accepted and ignored.
    #[serde(default)]
    pub refresh_token: Option<bool>,
}

/// Result of `getAuthStatus` (legacy): the same login state as `account/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct GetAuthStatusResponse {
    /// How the user is logged in: `apikey` when a key is stored in `auth.json` or the default
    /// provider's key variable is set, `null` otherwise.
    pub auth_method: Option<crate::account::AuthMode>,
    /// The API key in use, when `includeToken` is true and the server reveals stored
    /// credentials (`clients.reveal_credentials`: on by default only for `tandem app-server`
    /// on stdio, never on a network listener); `null` otherwise.
    pub auth_token: Option<String>,
    /// Whether the default provider needs an API key (it declares `env_key`).
    pub requires_openai_auth: Option<bool>,
}
