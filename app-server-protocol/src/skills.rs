//! Skills: directories holding a `SKILL.md` whose front matter names and describes them
//! (`skills/list`, `skills/config/write`, `skills/extraRoots/set`, `skills/changed`).
//!
//! A skill is found in `$TANDEM_HOME/skills/`, in a repository's `.agents/skills/` and
//! `.codex/skills/` (from the cwd up to the repository root) and in the extra roots a client
//! set; the enabled ones are listed to the model by name, description and path, and the model
//! reads a body when it uses the skill.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Parameters of `skills/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct SkillsListParams {
    /// The working directories whose skills to list, one entry each; omitted or empty lists
    /// the server's working directory.
    #[serde(default)]
    pub cwds: Option<Vec<String>>,
    /// Accepted for compatibility: skills are read from disk at every call, so there is no
    /// cache to bypass.
    #[serde(default)]
    pub force_reload: Option<bool>,
}

/// Result of `skills/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct SkillsListResponse {
    /// One entry per requested working directory, in the order asked.
    pub data: Vec<SkillsListEntry>,
}

/// The skills one working directory sees.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct SkillsListEntry {
    /// The working directory, as requested.
    pub cwd: String,
    /// Its skills: the repository's first, then the user's and the extra roots', each group in
    /// name order; a file reached through two roots is listed once.
    pub skills: Vec<SkillMetadata>,
    /// The `SKILL.md` files that could not be read as skills.
    pub errors: Vec<SkillErrorInfo>,
}

/// One skill.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct SkillMetadata {
    /// `name` of the front matter.
    pub name: String,
    /// `description` of the front matter.
    pub description: String,
    /// `metadata.short-description` of the front matter; absent when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub short_description: Option<String>,
    /// Absolute path of the `SKILL.md` file.
    pub path: String,
    /// Where the skill was found.
    pub scope: SkillScope,
    /// Whether the model is told about it (`[[skills.config]]` in `config.toml`; default on).
    pub enabled: bool,
    /// The plugin that ships the skill; always `null`, since Tandem loads no plugin skills.
    pub plugin_id: Option<String>,
}

/// Where a skill was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum SkillScope {
    /// `$TANDEM_HOME/skills/` or an extra root set with `skills/extraRoots/set`.
    User,
    /// A repository's `.agents/skills/` or `.codex/skills/`.
    Repo,
    /// Shipped with the server; Tandem ships none.
    System,
    /// Installed by an administrator; Tandem has no such location.
    Admin,
}

/// A `SKILL.md` file that is not a valid skill.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct SkillErrorInfo {
    /// Absolute path of the file.
    pub path: String,
    /// What is wrong with it, such as ``missing field `description` ``.
    pub message: String,
}

/// Parameters of `skills/config/write`: exactly one of `path` and `name`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct SkillsConfigWriteParams {
    /// The absolute path of the skill's `SKILL.md`: the setting applies to that file.
    #[serde(default)]
    pub path: Option<String>,
    /// A skill name: the setting applies to every skill of that name.
    #[serde(default)]
    pub name: Option<String>,
    /// Whether the skill is listed to the model.
    pub enabled: bool,
}

/// Result of `skills/config/write`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct SkillsConfigWriteResponse {
    /// Whether the skill is now enabled.
    pub effective_enabled: bool,
}

/// Parameters of `skills/extraRoots/set`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct SkillsExtraRootsSetParams {
    /// Absolute directories searched (recursively) for user skills besides
    /// `$TANDEM_HOME/skills/`, replacing the connection's previous list; each must lie within
    /// the connection's file roots.
    pub extra_roots: Vec<String>,
}

/// `skills/changed`: the skills a client would list changed (sent after
/// `skills/extraRoots/set` changed the roots); list them again to see how.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct SkillsChangedNotification {}
