//! Writing the configuration and describing what it offers: `config/value/write`,
//! `config/batchWrite`, `config/mcpServer/reload`, `configRequirements/read`,
//! `experimentalFeature/list`, `experimentalFeature/enablement/set`, `permissionProfile/list`
//! and the `modelProvider/*` methods.
//!
//! Writes edit the user's `config.toml` in place. Every write answers with the file's new
//! version; a client that passes the version it last read as `expectedVersion` gets a
//! conflict instead of overwriting a change it has not seen.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::policy::SandboxMode;
use crate::utility::ConfigLayerMetadata;

/// How a written value combines with what the file already holds at its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum MergeStrategy {
    /// The value takes the key's place whole (a table loses the keys the value leaves out).
    Replace,
    /// An object value is merged into the table at the key, key by key and recursively;
    /// any other value replaces.
    Upsert,
}

/// One change to the configuration file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConfigEdit {
    /// Dotted path of the key in `config.toml` (`model`, `sandbox_workspace_write.network_access`).
    pub key_path: String,
    /// The JSON value to store there; `null` removes the key.
    pub value: serde_json::Value,
    /// How the value combines with the current one.
    pub merge_strategy: MergeStrategy,
}

/// Parameters of `config/value/write`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConfigValueWriteParams {
    /// Dotted path of the key in `config.toml`.
    pub key_path: String,
    /// The JSON value to store; `null` removes the key.
    pub value: serde_json::Value,
    /// How the value combines with the current one.
    pub merge_strategy: MergeStrategy,
    /// The file to write; only the user's `config.toml` is writable, which is also the
    /// default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub file_path: Option<String>,
    /// The version the client last read (`config/read`'s user layer, or an earlier write's
    /// answer); when the file has changed since, nothing is written and the request fails
    /// with `configVersionConflict`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub expected_version: Option<String>,
}

/// Parameters of `config/batchWrite`: several edits applied together, all or none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConfigBatchWriteParams {
    /// The edits, applied in order.
    pub edits: Vec<ConfigEdit>,
    /// The file to write; only the user's `config.toml` is writable, which is also the
    /// default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub file_path: Option<String>,
    /// The version the client last read; see `config/value/write`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub expected_version: Option<String>,
    /// Accepted for compatibility. Threads already loaded keep the settings they started
    /// with either way; threads started after the write use the new file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reload_user_config: Option<bool>,
}

/// Whether a written value is the effective one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum WriteStatus {
    /// Written, and in effect for new threads.
    Ok,
    /// Written, but a higher layer (a `-c` flag of the server's command line) sets the key,
    /// so the written value is not the effective one.
    OkOverridden,
}

/// Which layer hides a written value, and the value in effect.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct OverriddenMetadata {
    /// A sentence saying what hides the written value.
    pub message: String,
    /// The layer that sets the key.
    pub overriding_layer: ConfigLayerMetadata,
    /// The value in effect.
    pub effective_value: serde_json::Value,
}

/// Result of `config/value/write` and `config/batchWrite`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConfigWriteResponse {
    /// Whether the written values are in effect.
    pub status: WriteStatus,
    /// The file's version after the write (`sha256:<hex>`); pass it as `expectedVersion` of
    /// the next write.
    pub version: String,
    /// Absolute path of the file written.
    pub file_path: String,
    /// Set with `okOverridden`: what hides the first hidden value.
    pub overridden_metadata: Option<OverriddenMetadata>,
}

/// Result of `configRequirements/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConfigRequirementsReadResponse {
    /// What the operator's policy restricts; `null` when it restricts nothing a client could
    /// choose.
    pub requirements: Option<ConfigRequirements>,
    /// Whether speed modes are gated one by one; always `null`: Tandem has no speed modes.
    #[serde(default)]
    pub supports_independent_speed_modes: Option<bool>,
}

/// The restrictions of the operator's policy that a client can observe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConfigRequirements {
    /// The sandbox modes a client may obtain (`[clients] max_sandbox` and below).
    pub allowed_sandbox_modes: Option<Vec<SandboxMode>>,
}

/// Parameters of `experimentalFeature/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExperimentalFeatureListParams {
    /// Opaque cursor from a previous page's `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub cursor: Option<String>,
    /// Page size (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
    /// A loaded thread whose settings the enablement is computed from; accepted, and the same
    /// for every thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub thread_id: Option<String>,
}

/// The lifecycle stage of a feature flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum ExperimentalFeatureStage {
    /// Open to users for feedback.
    Beta,
    /// Not ready for use.
    UnderDevelopment,
    /// Ready for use.
    Stable,
    /// To be avoided.
    Deprecated,
    /// Kept only so that old configuration still loads.
    Removed,
}

/// One feature flag.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExperimentalFeature {
    /// The flag's key under `[features]`.
    pub name: String,
    /// Its stage.
    pub stage: ExperimentalFeatureStage,
    /// A name to show, for beta features.
    pub display_name: Option<String>,
    /// What it does, for beta features.
    pub description: Option<String>,
    /// Text shown when it is introduced, for beta features.
    pub announcement: Option<String>,
    /// Whether it is on.
    pub enabled: bool,
    /// Whether it is on unless configured.
    pub default_enabled: bool,
}

/// Result of `experimentalFeature/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExperimentalFeatureListResponse {
    /// The flags of this page; Tandem has none, so always empty.
    pub data: Vec<ExperimentalFeature>,
    /// Cursor of the next page; `null` on the last.
    pub next_cursor: Option<String>,
}

/// Parameters of `experimentalFeature/enablement/set`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExperimentalFeatureEnablementSetParams {
    /// Flags to turn on or off for this process, by name; flags left out keep their state.
    pub enablement: BTreeMap<String, bool>,
}

/// Result of `experimentalFeature/enablement/set`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExperimentalFeatureEnablementSetResponse {
    /// The flags this request changed; always empty, since Tandem has no runtime flags.
    pub enablement: BTreeMap<String, bool>,
}

/// Parameters of `permissionProfile/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct PermissionProfileListParams {
    /// Opaque cursor from a previous page's `nextCursor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub cursor: Option<String>,
    /// Page size (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub limit: Option<u32>,
    /// A working directory whose project settings apply; accepted, and the same for every
    /// directory (Tandem has no project config layers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional = nullable)]
    pub cwd: Option<String>,
}

/// One permission profile a thread may run under.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct PermissionProfileSummary {
    /// The profile's id (`:read-only`, `:workspace`, `:danger-full-access`).
    pub id: String,
    /// Text to show for it, when there is any.
    pub description: Option<String>,
    /// Whether this client may choose it (within `[clients] max_sandbox`).
    pub allowed: bool,
}

/// Result of `permissionProfile/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct PermissionProfileListResponse {
    /// The profiles of this page.
    pub data: Vec<PermissionProfileSummary>,
    /// Cursor of the next page; `null` on the last.
    pub next_cursor: Option<String>,
}

/// Parameters of `modelProvider/list` (none).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ModelProviderListParams {}

/// How a gateway provider authenticates.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "mode",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum GatewayAuth {
    /// No key is sent.
    None,
    /// The key is read from an environment variable of the server.
    EnvironmentVariable {
        /// The variable's name.
        env_key: String,
    },
    /// The key comes from elsewhere (the stored login).
    ExternallyConfigured {
        /// The variable's name, when one is also configured.
        env_key: Option<String>,
    },
}

/// The settings of a provider, by kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ProviderSettings {
    /// OpenAI's own API.
    Openai,
    /// Any other endpoint speaking the Responses or Chat Completions wire.
    CustomGateway {
        /// How it authenticates.
        auth: GatewayAuth,
    },
    /// Amazon Bedrock (never reported by Tandem, which has no Bedrock provider).
    Bedrock {
        /// The AWS profile.
        profile: Option<String>,
        /// The AWS region.
        region: Option<String>,
    },
    /// Google Cloud (never reported by Tandem, which has no Google Cloud provider).
    Gcp {
        /// The credential file on the server's host.
        credential_file: Option<String>,
        /// The location.
        location: Option<String>,
        /// The project.
        project_id: Option<String>,
    },
}

/// One configured model provider.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelProviderSummary {
    /// The provider's id (its key under `[model_providers]`).
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Whether this client may change any of its settings with `modelProvider/config/write`.
    pub can_edit: bool,
    /// Its endpoint; `null` for the built-in `openai` provider.
    pub base_url: Option<String>,
    /// Its settings.
    pub settings: ProviderSettings,
}

/// Result of `modelProvider/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelProviderListResponse {
    /// Every provider, in id order.
    pub data: Vec<ModelProviderSummary>,
    /// The provider new threads use.
    pub default_provider_id: String,
    /// Whether this client may choose another default (`modelProvider/default/set`).
    pub can_change_default: bool,
}

/// Parameters of `modelProvider/capabilities/read` (none).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ModelProviderCapabilitiesReadParams {}

/// Result of `modelProvider/capabilities/read`: which hosted tools the default provider's
/// threads are offered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelProviderCapabilitiesReadResponse {
    /// Image generation; always `false`: Tandem offers no image-generation tool.
    pub image_generation: bool,
    /// Web search; always `false`: Tandem offers no web-search tool.
    pub web_search: bool,
}

/// A change to one provider's settings; fields left out keep their value, `null` clears.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum ProviderSettingsPatch {
    /// A provider speaking the Responses or Chat Completions wire.
    CustomGateway {
        /// The provider to change; left out or `null` defines a new one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        provider_id: Option<String>,
        /// Its display name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        name: Option<String>,
        /// Its endpoint (`null` clears it).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "double_option"
        )]
        #[ts(optional, type = "string | null")]
        #[schemars(with = "Option<String>")]
        base_url: Option<Option<String>>,
        /// The variable holding its key (`null` clears it).
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "double_option"
        )]
        #[ts(optional, type = "string | null")]
        #[schemars(with = "Option<String>")]
        env_key: Option<Option<String>>,
    },
    /// Amazon Bedrock; refused: Tandem has no Bedrock provider.
    Bedrock {
        /// The provider to change.
        provider_id: String,
        /// The AWS profile.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        profile: Option<String>,
        /// The AWS region.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        region: Option<String>,
    },
    /// Google Cloud; refused: Tandem has no Google Cloud provider.
    Gcp {
        /// The provider to change.
        provider_id: String,
        /// The credential file on the server's host.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        credential_file: Option<String>,
        /// The location.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        location: Option<String>,
        /// The project.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional = nullable)]
        project_id: Option<String>,
    },
}

/// Parameters of `modelProvider/config/write`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelProviderConfigWriteParams {
    /// The change.
    pub settings: ProviderSettingsPatch,
}

/// Result of `modelProvider/config/write`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelProviderConfigWriteResponse {
    /// The provider as configured after the write.
    pub provider: ModelProviderSummary,
}

/// Parameters of `modelProvider/default/set`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelProviderDefaultSetParams {
    /// A configured provider, used by threads started without one from now on.
    pub provider_id: String,
}

/// `Option<Option<T>>` that tells a field left out (`None`) from an explicit `null`
/// (`Some(None)`).
pub(crate) mod double_option {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer, T: Serialize>(
        value: &Option<Option<T>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(inner) => inner.serialize(serializer),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        deserializer: D,
    ) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(deserializer).map(Some)
    }
}
