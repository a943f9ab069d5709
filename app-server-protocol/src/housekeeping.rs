//! Housekeeping methods: a local feedback bundle (`feedback/save`) and the local plugins
//! (`plugin/list`, always none: Tandem installs no plugins and has no remote catalogue).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Parameters of `feedback/save`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct FeedbackSaveParams {
    /// What kind of feedback it is (`bug`, `good_result`, …), recorded in the bundle.
    pub classification: String,
    /// Absolute path of the ZIP file to create, within the connection's file roots; it must
    /// not exist yet.
    pub save_path: String,
    /// One of the caller's threads whose rollout goes into the bundle.
    #[serde(default)]
    pub thread_id: Option<String>,
    /// The user's words about it, recorded in the bundle.
    #[serde(default)]
    pub reason: Option<String>,
    /// Whether the server's logs (`$TANDEM_HOME/log/`) go into the bundle.
    #[serde(default)]
    pub include_logs: bool,
    /// More log files to include (with `includeLogs`), each within the connection's file
    /// roots; at most 16.
    #[serde(default)]
    pub extra_log_files: Option<Vec<String>>,
    /// Labels recorded in the bundle.
    #[serde(default)]
    pub tags: Option<BTreeMap<String, String>>,
}

/// Result of `feedback/save`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FeedbackSaveResponse {
    /// The ZIP file written.
    pub saved_path: String,
    /// The thread the bundle is about, or `no-active-thread-<uuid>` when none was named.
    pub thread_id: String,
    /// Always `null`: Tandem computes no prompt hash.
    pub prompt_hash: Option<String>,
}

/// Parameters of `plugin/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct PluginListParams {
    /// Working directories whose repository marketplaces to list (Tandem has none).
    #[serde(default)]
    pub cwds: Option<Vec<String>>,
    /// Accepted for compatibility: there is no remote catalogue to fetch.
    #[serde(default)]
    pub force_refetch: Option<bool>,
    /// Marketplace kinds to list; only `local` is served, any other (a remote catalogue)
    /// answers "not supported by this server".
    #[serde(default)]
    pub marketplace_kinds: Option<Vec<String>>,
}

/// Result of `plugin/list`: Tandem installs no plugins, so every list is empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct PluginListResponse {
    /// The marketplaces; always empty.
    pub marketplaces: Vec<serde_json::Value>,
    /// Marketplaces that could not be loaded; always empty.
    pub marketplace_load_errors: Vec<serde_json::Value>,
    /// Featured plugins; always empty.
    pub featured_plugin_ids: Vec<String>,
}
