//! Params, responses and notifications of the `fs/*` methods: reading, writing and watching
//! files of the server's machine.
//!
//! Every path is absolute. Paths are confined to the connection's file roots (the server's
//! working directory, the working directories of the caller's loaded threads and
//! `clients.fs_roots`) unless the operator's ceiling is `danger-full-access`, and
//! `$TANDEM_HOME` is never reachable through them (`docs/protocol.md`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Parameters of `fs/readFile`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FsReadFileParams {
    /// Absolute path of a regular file.
    pub path: String,
}

/// Result of `fs/readFile`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FsReadFileResponse {
    /// The file's bytes, base64-encoded (standard alphabet, padded).
    pub data_base64: String,
}

/// Parameters of `fs/writeFile`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FsWriteFileParams {
    /// Absolute path of the file to create or replace; its directory must exist.
    pub path: String,
    /// The new contents, base64-encoded (standard alphabet).
    pub data_base64: String,
}

/// Parameters of `fs/createDirectory`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct FsCreateDirectoryParams {
    /// Absolute path of the directory to create.
    pub path: String,
    /// Whether missing parents are created too (default `true`); an existing directory is
    /// then not an error.
    #[serde(default)]
    pub recursive: Option<bool>,
}

/// Parameters of `fs/getMetadata`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FsGetMetadataParams {
    /// Absolute path to inspect.
    pub path: String,
}

/// Result of `fs/getMetadata`. A symbolic link is followed for everything but `isSymlink`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FsGetMetadataResponse {
    /// Whether the path leads to a directory.
    pub is_directory: bool,
    /// Whether the path leads to a regular file.
    pub is_file: bool,
    /// Whether the path itself is a symbolic link.
    pub is_symlink: bool,
    /// Creation time in Unix milliseconds, `0` where the file system does not record it.
    pub created_at_ms: i64,
    /// Last modification time in Unix milliseconds, `0` where unavailable.
    pub modified_at_ms: i64,
}

/// Parameters of `fs/readDirectory`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FsReadDirectoryParams {
    /// Absolute path of the directory to list.
    pub path: String,
}

/// Result of `fs/readDirectory`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FsReadDirectoryResponse {
    /// The directory's direct children, in the order the file system lists them.
    pub entries: Vec<FsReadDirectoryEntry>,
}

/// One child of a directory listed by `fs/readDirectory`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FsReadDirectoryEntry {
    /// The child's name (not a path).
    pub file_name: String,
    /// Whether the child leads to a directory (a symbolic link is followed).
    pub is_directory: bool,
    /// Whether the child leads to a regular file (a symbolic link is followed).
    pub is_file: bool,
}

/// Parameters of `fs/remove`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct FsRemoveParams {
    /// Absolute path of the file or directory to remove.
    pub path: String,
    /// Whether a directory is removed with its contents (default `true`); without it only an
    /// empty directory can be removed.
    #[serde(default)]
    pub recursive: Option<bool>,
    /// Whether a missing path is success (default `true`).
    #[serde(default)]
    pub force: Option<bool>,
}

/// Parameters of `fs/copy`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct FsCopyParams {
    /// Absolute path of the file or directory to copy.
    pub source_path: String,
    /// Absolute path of the copy.
    pub destination_path: String,
    /// Must be `true` to copy a directory (with its contents); ignored for a file.
    #[serde(default)]
    pub recursive: Option<bool>,
}

/// Parameters of `fs/watch`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FsWatchParams {
    /// Absolute path of a file or directory (a directory's direct children are watched); it
    /// need not exist yet.
    pub path: String,
    /// The client's name for this watch, unique on the connection; `fs/changed` and
    /// `fs/unwatch` carry it.
    pub watch_id: String,
}

/// Result of `fs/watch`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FsWatchResponse {
    /// The watched path with symbolic links resolved (as given when it does not exist).
    pub path: String,
}

/// Parameters of `fs/unwatch`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FsUnwatchParams {
    /// The `watchId` of an earlier `fs/watch`; an unknown one is not an error.
    pub watch_id: String,
}

/// `fs/changed`: paths under a watch changed (created, written, renamed or removed). Changes
/// that follow each other closely are sent together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct FsChangedNotification {
    /// The `watchId` of the `fs/watch`.
    pub watch_id: String,
    /// The absolute paths that changed, sorted, each once.
    pub changed_paths: Vec<String>,
}
