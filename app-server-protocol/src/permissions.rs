//! `item/permissions/requestApproval`: the model's `request_permissions` tool asks the client
//! for more than the thread's sandbox gives (network access, paths to read or write); the
//! client grants a subset, for the turn or for the rest of the thread.
//!
//! What a client grants is bounded twice: by what the model asked for, and by the operator's
//! ceiling (`[clients]`), so that no answer widens access beyond what the operator allows.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Network access asked for or granted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct AdditionalNetworkPermissions {
    /// `true` to ask for (or grant) network access for commands.
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// How a file-system entry may be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum FileSystemAccessMode {
    /// Read it.
    Read,
    /// Read and write it.
    Write,
    /// Neither (Tandem grants no `deny` entry: its sandbox only adds access).
    Deny,
}

/// The path of a file-system entry (tagged by `type`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FileSystemPath {
    /// A path, absolute or relative to the turn's working directory.
    Path {
        /// The path.
        path: String,
    },
    /// A glob pattern (Tandem grants none).
    GlobPattern {
        /// The pattern.
        pattern: String,
    },
    /// One of the reference's special locations (Tandem grants none).
    Special {
        /// Which location, as the reference names it.
        value: serde_json::Value,
    },
}

/// One file-system entry asked for or granted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FileSystemSandboxEntry {
    /// What may be done there.
    pub access: FileSystemAccessMode,
    /// Where.
    pub path: FileSystemPath,
}

/// File-system access asked for or granted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct AdditionalFileSystemPermissions {
    /// Paths to read (the older form of `entries`).
    #[serde(default)]
    pub read: Option<Vec<String>>,
    /// Paths to write (the older form of `entries`).
    #[serde(default)]
    pub write: Option<Vec<String>>,
    /// Entries with their access mode.
    #[serde(default)]
    pub entries: Option<Vec<FileSystemSandboxEntry>>,
    /// How deep a glob entry is expanded (Tandem grants no glob entries).
    #[serde(default)]
    pub glob_scan_max_depth: Option<u32>,
}

/// The permissions the model asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(optional_fields = nullable)]
pub struct RequestPermissionProfile {
    /// Network access.
    #[serde(default)]
    pub network: Option<AdditionalNetworkPermissions>,
    /// File-system access.
    #[serde(default)]
    pub file_system: Option<AdditionalFileSystemPermissions>,
}

/// The permissions a client grants: a subset of those asked for; anything else is ignored.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct GrantedPermissionProfile {
    /// Network access.
    #[serde(default)]
    pub network: Option<AdditionalNetworkPermissions>,
    /// File-system access.
    #[serde(default)]
    pub file_system: Option<AdditionalFileSystemPermissions>,
}

/// How long a grant lasts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum PermissionGrantScope {
    /// The rest of the turn that asked.
    #[default]
    Turn,
    /// The rest of the thread, while it stays loaded.
    Session,
}

/// Params of `item/permissions/requestApproval`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct PermissionsRequestApprovalParams {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The model's `request_permissions` call id.
    pub item_id: String,
    /// The execution environment; always `null` in Tandem (one local environment).
    #[serde(default)]
    pub environment_id: Option<String>,
    /// When the request started (Unix milliseconds).
    pub started_at_ms: i64,
    /// The turn's working directory, against which relative paths are read.
    pub cwd: String,
    /// Why the model asks, in its words.
    #[serde(default)]
    pub reason: Option<String>,
    /// What the model asks for.
    pub permissions: RequestPermissionProfile,
}

/// Result of `item/permissions/requestApproval`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct PermissionsRequestApprovalResponse {
    /// What the client grants; empty grants nothing.
    pub permissions: GrantedPermissionProfile,
    /// For the turn (default) or for the rest of the thread.
    #[serde(default)]
    pub scope: PermissionGrantScope,
    /// Review every later command of the turn before it runs (accepted; Tandem's approval
    /// policy already decides that).
    #[serde(default)]
    pub strict_auto_review: Option<bool>,
}
