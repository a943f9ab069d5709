//! Approval and sandbox policies, reasoning settings and other small enums shared by many
//! requests.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// When the agent must ask the client before acting.
///
/// Wire values are kebab-case (`"on-request"`), unlike most of the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub enum AskForApproval {
    /// Ask for everything that is not known to be safe.
    #[serde(rename = "untrusted")]
    Untrusted,
    /// The model decides when to ask (for example, to run outside the sandbox).
    #[serde(rename = "on-request")]
    OnRequest,
    /// Like `on-request`, with each kind of question switched on or off: a question whose
    /// flag is `false` is refused without asking the client. Experimental: a connection must
    /// set `capabilities.experimentalApi` to send it.
    #[serde(rename = "granular")]
    Granular(GranularApprovalConfig),
    /// Never ask; actions the sandbox blocks fail.
    #[serde(rename = "never")]
    Never,
}

/// Which questions `{"granular": {…}}` lets reach the client (snake_case on the wire). A flag
/// set to `false` turns that kind of question into a refusal the model sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct GranularApprovalConfig {
    /// Commands that need the user: running outside the sandbox (an escalation the model
    /// requests, or the retry of a command the sandbox blocked), and patches that write
    /// outside the writable roots.
    pub sandbox_approval: bool,
    /// Questions raised by execution-policy `prompt` rules. Accepted and ignored: Tandem has
    /// no execution-policy rules.
    pub rules: bool,
    /// Questions raised by skill scripts. Accepted and ignored: Tandem runs no skill scripts.
    #[serde(default)]
    pub skill_approval: bool,
    /// Questions raised by the `request_permissions` tool (offered when the operator sets
    /// `request_permissions_tool`): `false` grants nothing without asking.
    #[serde(default)]
    pub request_permissions: bool,
    /// MCP questions: approving a call to a tool of a configured MCP server, and elicitations
    /// those servers send.
    pub mcp_elicitations: bool,
}

/// Sandbox mode chosen for a thread (`thread/start.sandbox`); kebab-case on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Commands may read anything and write nothing.
    ReadOnly,
    /// Commands may write inside the workspace and configured writable roots.
    WorkspaceWrite,
    /// No sandbox at all.
    DangerFullAccess,
}

/// Network access for an externally sandboxed process.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum NetworkAccess {
    /// No network.
    Restricted,
    /// Network allowed.
    Enabled,
}

/// The sandbox a command runs under, in its full object form (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum SandboxPolicy {
    /// No sandbox: commands can read and write anything and use the network.
    DangerFullAccess,
    /// Read anywhere, write nowhere.
    ReadOnly {
        /// Whether commands may use the network.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        network_access: Option<bool>,
    },
    /// The process is already sandboxed by its host.
    ExternalSandbox {
        /// Network access granted by the host sandbox.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        network_access: Option<NetworkAccess>,
    },
    /// Write inside the workspace (cwd) and the writable roots; `.git` stays read-only.
    WorkspaceWrite {
        /// Extra absolute directories that commands may write to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        writable_roots: Option<Vec<String>>,
        /// Whether commands may use the network.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        network_access: Option<bool>,
        /// Do not make `$TMPDIR` writable.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        exclude_tmpdir_env_var: Option<bool>,
        /// Do not make `/tmp` writable.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        exclude_slash_tmp: Option<bool>,
    },
}

/// Who reviews approval requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalsReviewer {
    /// The user, through the client.
    User,
    /// An automatic reviewer. Accepted and echoed, but it has no effect: Tandem has none, so
    /// approvals still go to the client.
    AutoReview,
    /// Legacy name of `auto_review`; accepted and echoed, with no effect either.
    GuardianSubagent,
}

/// How hard the model should think.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningEffort {
    /// No reasoning.
    None,
    /// Minimal reasoning.
    Minimal,
    /// Fast responses with lighter reasoning.
    Low,
    /// Balanced speed and depth.
    Medium,
    /// Greater depth for complex problems.
    High,
    /// Extra high depth.
    Xhigh,
    /// Maximum depth.
    Max,
    /// Maximum depth with delegation.
    Ultra,
}

/// How the model's reasoning is summarised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningSummary {
    /// Let the model choose.
    Auto,
    /// A short summary.
    Concise,
    /// A detailed summary.
    Detailed,
    /// No summary.
    None,
}

/// Deprecated personality setting; accepted and echoed, with no effect on style.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum Personality {
    /// No personality.
    None,
    /// Friendly.
    Friendly,
    /// Pragmatic.
    Pragmatic,
}

/// Sort direction for paginated lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum SortDirection {
    /// Oldest first.
    Asc,
    /// Newest first (the default).
    Desc,
}

/// A collaboration mode: `default`, or `plan`, in which the model may ask the user questions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct CollaborationMode {
    /// Which mode.
    pub mode: ModeKind,
    /// Settings applied in this mode.
    pub settings: CollaborationModeSettings,
}

/// The kind of collaboration mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum ModeKind {
    /// Planning: the model may call `request_user_input`.
    Plan,
    /// The default mode.
    Default,
}

/// Settings of a collaboration mode (snake_case on the wire).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[ts(optional_fields = nullable)]
pub struct CollaborationModeSettings {
    /// Model used in this mode.
    pub model: String,
    /// Reasoning effort used in this mode.
    #[serde(default)]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Extra developer instructions for this mode.
    #[serde(default)]
    pub developer_instructions: Option<String>,
}

/// `collaborationMode/list` params (none).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct CollaborationModeListParams {}

/// Result of `collaborationMode/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct CollaborationModeListResponse {
    /// The presets, in the order a client should offer them.
    pub data: Vec<CollaborationModeMask>,
}

/// A collaboration-mode preset: a partial mask over the client's current
/// [`CollaborationMode`], which the client applies and sends as `turn/start.collaborationMode`.
/// Every field after `name` is tri-state: omitted keeps the current value, `null` clears it,
/// and a value sets it (`mode` and `model` cannot be cleared, so `null` there keeps too).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct CollaborationModeMask {
    /// Name shown to the user (`Plan`, `Default`).
    pub name: String,
    /// The mode kind it selects; omitted keeps the current one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub mode: Option<ModeKind>,
    /// The model it selects; omitted keeps the current one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<String>,
    /// The reasoning effort it selects: omitted keeps the current one, `null` clears it (the
    /// model's default applies), a value sets it.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_or_null"
    )]
    #[schemars(with = "Option<ReasoningEffort>")]
    #[ts(optional)]
    pub reasoning_effort: Option<Option<ReasoningEffort>>,
    /// The developer instructions it selects: omitted keeps the current ones, `null` clears
    /// them, a value sets them.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_or_null"
    )]
    #[schemars(with = "Option<String>")]
    #[ts(optional)]
    pub developer_instructions: Option<Option<String>>,
}

impl CollaborationModeMask {
    /// The mode that results from applying this mask to `current`.
    pub fn apply(&self, current: &CollaborationMode) -> CollaborationMode {
        let settings = &current.settings;
        CollaborationMode {
            mode: self.mode.unwrap_or(current.mode),
            settings: CollaborationModeSettings {
                model: self.model.clone().unwrap_or_else(|| settings.model.clone()),
                reasoning_effort: self.reasoning_effort.unwrap_or(settings.reasoning_effort),
                developer_instructions: self
                    .developer_instructions
                    .clone()
                    .unwrap_or_else(|| settings.developer_instructions.clone()),
            },
        }
    }
}

/// Decodes a field that is present (a value or `null`); an absent field never reaches this
/// (it takes the `default`, `None`), so `null` stays distinct from absent as `Some(None)`.
pub(crate) fn present_or_null<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn current() -> CollaborationMode {
        CollaborationMode {
            mode: ModeKind::Default,
            settings: CollaborationModeSettings {
                model: "gpt-current".into(),
                reasoning_effort: Some(ReasoningEffort::High),
                developer_instructions: Some("be brief".into()),
            },
        }
    }

    #[test]
    fn mask_fields_keep_clear_or_set() {
        let omitted: CollaborationModeMask =
            serde_json::from_value(json!({"name": "Keep"})).unwrap();
        let cleared: CollaborationModeMask = serde_json::from_value(
            json!({"name": "Clear", "mode": null, "model": null, "reasoning_effort": null, "developer_instructions": null}),
        )
        .unwrap();
        let set: CollaborationModeMask = serde_json::from_value(json!({
            "name": "Set", "mode": "plan", "model": "gpt-other",
            "reasoning_effort": "low", "developer_instructions": "plan first"
        }))
        .unwrap();
        assert_eq!(omitted.reasoning_effort, None);
        assert_eq!(omitted.developer_instructions, None);
        assert_eq!(cleared.reasoning_effort, Some(None));
        assert_eq!(cleared.developer_instructions, Some(None));
        assert_eq!(set.reasoning_effort, Some(Some(ReasoningEffort::Low)));

        // Each state serializes back as it came (absent stays absent, `null` stays `null`).
        assert_eq!(
            serde_json::to_value(&omitted).unwrap(),
            json!({"name": "Keep"})
        );
        assert_eq!(
            serde_json::to_value(&cleared).unwrap(),
            json!({"name": "Clear", "reasoning_effort": null, "developer_instructions": null})
        );

        assert_eq!(omitted.apply(&current()), current());
        assert_eq!(
            cleared.apply(&current()),
            CollaborationMode {
                mode: ModeKind::Default,
                settings: CollaborationModeSettings {
                    model: "gpt-current".into(),
                    reasoning_effort: None,
                    developer_instructions: None,
                },
            }
        );
        assert_eq!(
            set.apply(&current()),
            CollaborationMode {
                mode: ModeKind::Plan,
                settings: CollaborationModeSettings {
                    model: "gpt-other".into(),
                    reasoning_effort: Some(ReasoningEffort::Low),
                    developer_instructions: Some("plan first".into()),
                },
            }
        );
    }
}
