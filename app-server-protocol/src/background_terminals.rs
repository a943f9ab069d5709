//! Params and response of `thread/backgroundTerminals/list`: the commands of a thread still
//! running after the tool call that started them returned.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Parameters of `thread/backgroundTerminals/list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadBackgroundTerminalsListParams {
    /// The thread (loaded).
    pub thread_id: String,
    /// The `nextCursor` of the previous page (an offset, as decimal digits).
    #[serde(default)]
    pub cursor: Option<String>,
    /// Page size; `null` or `0` lists every running command.
    #[serde(default)]
    pub limit: Option<u32>,
}

/// Result of `thread/backgroundTerminals/list`, in the order the commands started.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadBackgroundTerminalsListResponse {
    /// The running commands of this page.
    pub data: Vec<ThreadBackgroundTerminal>,
    /// The cursor of the next page; `null` on the last one.
    pub next_cursor: Option<String>,
}

/// A command the model started with `exec_command` that is still running (reachable with
/// `write_stdin`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ThreadBackgroundTerminal {
    /// The `commandExecution` item that started it.
    pub item_id: String,
    /// The unified-exec session id the model writes to (`processId` of the item).
    pub process_id: String,
    /// The command line, as the item shows it.
    pub command: String,
    /// Its working directory.
    pub cwd: String,
    /// The operating system's process id; Tandem does not report it (`null`).
    pub os_pid: Option<u32>,
    /// CPU use; Tandem does not measure it (`null`).
    pub cpu_percent: Option<f64>,
    /// Resident memory; Tandem does not measure it (`null`).
    pub rss_kb: Option<u64>,
}
