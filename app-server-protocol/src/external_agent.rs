//! Bringing over another agent's setup (`CLAUDE.md`, `.mcp.json`, `.claude/`): `externalAgentConfig/detect`,
//! `externalAgentConfig/import` and the import's progress notifications.
//!
//! `CLAUDE.md` becomes `AGENTS.md`, `.claude/skills/` skills become `.agents/skills/` skills,
//! and `.mcp.json` (or `~/.claude.json`) servers and `.claude/settings.json` hooks are added to
//! `$TANDEM_HOME/config.toml` disabled (MCP servers `enabled = false`, hooks untrusted and
//! `enabled = false`), only on a local connection, until the operator enables them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Parameters of `externalAgentConfig/detect`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ExternalAgentConfigDetectParams {
    /// Repositories to look in (at most 64); each must lie within the connection's file roots.
    #[serde(default)]
    pub cwds: Option<Vec<String>>,
    /// Whether to look in the user's home directory (`~/.claude/`, `~/.claude.json`).
    #[serde(default)]
    pub include_home: Option<bool>,
    /// Accepted for compatibility; sessions are not imported.
    #[serde(default)]
    pub max_session_age_days: Option<u32>,
    /// Accepted for compatibility; sessions are not imported.
    #[serde(default)]
    pub max_sessions: Option<u32>,
    /// Accepted for compatibility; the source is always the `CLAUDE.md` / `.mcp.json` / `.claude/` layout.
    #[serde(default)]
    pub migration_source: Option<String>,
    /// Accepted for compatibility and ignored.
    #[serde(default)]
    pub source: Option<String>,
}

/// Result of `externalAgentConfig/detect`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExternalAgentConfigDetectResponse {
    /// What could be imported: home-scoped items first, then each repository's.
    pub items: Vec<ExternalAgentConfigMigrationItem>,
    /// Always empty: Tandem has no connectors.
    pub connectors: Vec<serde_json::Value>,
}

/// One thing that can be imported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExternalAgentConfigMigrationItem {
    /// What kind of thing it is.
    pub item_type: ExternalAgentConfigMigrationItemType,
    /// What importing it does, for the user.
    pub description: String,
    /// The repository it belongs to; `null` (or empty) for the user's home.
    #[serde(default)]
    pub cwd: Option<String>,
    /// The names it covers (servers, hooks' events, skills), when it has several.
    #[serde(default)]
    pub details: Option<MigrationDetails>,
}

/// The kinds of things an import covers. Tandem imports `AGENTS_MD`, `SKILLS`,
/// `MCP_SERVER_CONFIG` and `HOOKS`; the others fail as not supported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ExternalAgentConfigMigrationItemType {
    /// `CLAUDE.md` as `AGENTS.md`.
    AgentsMd,
    /// Settings (not imported by Tandem).
    Config,
    /// Skills.
    Skills,
    /// Plugins (not imported by Tandem).
    Plugins,
    /// MCP servers, added disabled.
    McpServerConfig,
    /// Sub-agents (not imported by Tandem).
    Subagents,
    /// Hooks, added untrusted and disabled.
    Hooks,
    /// Commands (not imported by Tandem).
    Commands,
    /// Memory (not imported by Tandem).
    Memory,
    /// Sessions (not imported by Tandem).
    Sessions,
}

/// The names an item covers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct MigrationDetails {
    /// Plugins; always empty.
    #[serde(default)]
    pub plugins: Vec<serde_json::Value>,
    /// Skills, by name.
    #[serde(default)]
    pub skills: Vec<NamedMigration>,
    /// Sessions; always empty.
    #[serde(default)]
    pub sessions: Vec<serde_json::Value>,
    /// MCP servers, by name.
    #[serde(default)]
    pub mcp_servers: Vec<NamedMigration>,
    /// Hooks, by event name.
    #[serde(default)]
    pub hooks: Vec<NamedMigration>,
    /// Sub-agents; always empty.
    #[serde(default)]
    pub subagents: Vec<NamedMigration>,
    /// Commands; always empty.
    #[serde(default)]
    pub commands: Vec<NamedMigration>,
}

/// One named thing of an item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct NamedMigration {
    /// Its name.
    pub name: String,
}

/// Parameters of `externalAgentConfig/import`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ExternalAgentConfigImportParams {
    /// The items to import, as `externalAgentConfig/detect` gave them (at most 256).
    pub migration_items: Vec<ExternalAgentConfigMigrationItem>,
    /// Accepted for compatibility and ignored.
    #[serde(default)]
    pub migration_source: Option<String>,
    /// Accepted for compatibility and ignored.
    #[serde(default)]
    pub provider_id: Option<String>,
    /// Accepted for compatibility and ignored.
    #[serde(default)]
    pub source: Option<String>,
}

/// Result of `externalAgentConfig/import`; the outcome follows as
/// `externalAgentConfig/import/progress` (one per item) and
/// `externalAgentConfig/import/completed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExternalAgentConfigImportResponse {
    /// Names this import in its notifications.
    pub import_id: String,
}

/// `externalAgentConfig/import/progress` and `externalAgentConfig/import/completed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExternalAgentConfigImportNotification {
    /// The import.
    pub import_id: String,
    /// What happened: one item's outcome in a progress notification, every item's in the
    /// completion.
    pub item_type_results: Vec<ExternalAgentConfigImportTypeResult>,
}

/// The outcome of importing one item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExternalAgentConfigImportTypeResult {
    /// The item's kind.
    pub item_type: ExternalAgentConfigMigrationItemType,
    /// What was imported.
    pub successes: Vec<ExternalAgentConfigImportItemTypeSuccess>,
    /// What was not, and why.
    pub failures: Vec<ExternalAgentConfigImportItemTypeFailure>,
}

/// One thing imported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExternalAgentConfigImportItemTypeSuccess {
    /// Its kind.
    pub item_type: ExternalAgentConfigMigrationItemType,
    /// Its repository; `null` for the home.
    pub cwd: Option<String>,
    /// What was read (a file, or a server, skill or event name).
    pub source: Option<String>,
    /// What was written (a file, or the name in `config.toml`).
    pub target: Option<String>,
    /// Always `null` (sessions are not imported).
    pub title: Option<String>,
}

/// One thing not imported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExternalAgentConfigImportItemTypeFailure {
    /// Its kind.
    pub item_type: ExternalAgentConfigMigrationItemType,
    /// Its repository; `null` for the home.
    pub cwd: Option<String>,
    /// What was to be read.
    pub source: Option<String>,
    /// Where it failed: `read` or `write`.
    pub failure_stage: String,
    /// Why.
    pub message: String,
    /// Always `null`.
    pub error_type: Option<String>,
    /// Always `null`.
    pub sub_error_type: Option<String>,
}
