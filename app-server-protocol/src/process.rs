//! Params and notifications of the experimental `process/*` methods: a standalone process
//! outside Tandem's sandbox, answered as soon as it runs, whose output and exit arrive as
//! notifications. Only a server whose ceiling is `danger-full-access` runs them.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::policy::present_or_null;
use crate::utility::{CommandExecOutputStream, CommandExecTerminalSize};

/// Parameters of `process/spawn`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ProcessSpawnParams {
    /// The argv vector; must not be empty.
    pub command: Vec<String>,
    /// Absolute working directory.
    pub cwd: String,
    /// The client's name for the process, unique among this connection's running processes;
    /// the other `process/*` methods and the notifications carry it.
    pub process_handle: String,
    /// Run in a pseudo-terminal (implies `streamStdin` and `streamStdoutStderr`).
    #[serde(default)]
    pub tty: Option<bool>,
    /// Accept stdin through `process/writeStdin`.
    #[serde(default)]
    pub stream_stdin: Option<bool>,
    /// Send output as `process/outputDelta` instead of in `process/exited`.
    #[serde(default)]
    pub stream_stdout_stderr: Option<bool>,
    /// Cap on the output kept per stream, in bytes: omitted, 1 MiB; `null`, no cap.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_or_null"
    )]
    #[schemars(with = "Option<u64>")]
    #[ts(optional, type = "number | null")]
    pub output_bytes_cap: Option<Option<u64>>,
    /// Timeout in milliseconds, after which the process is killed (exit code 124): omitted,
    /// 10 s; `null`, none.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_or_null"
    )]
    #[schemars(with = "Option<i64>")]
    #[ts(optional, type = "number | null")]
    pub timeout_ms: Option<Option<i64>>,
    /// Environment changes on top of the environment the operator's
    /// `shell_environment_policy` builds; `null` removes a variable.
    #[serde(default)]
    pub env: Option<BTreeMap<String, Option<String>>>,
    /// Initial terminal size (only with `tty`).
    #[serde(default)]
    pub size: Option<CommandExecTerminalSize>,
}

/// Parameters of `process/writeStdin`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ProcessWriteStdinParams {
    /// A running process of this connection started with `streamStdin` (or `tty`).
    pub process_handle: String,
    /// Bytes to write, base64-encoded.
    #[serde(default)]
    pub delta_base64: Option<String>,
    /// Close stdin after writing.
    #[serde(default)]
    pub close_stdin: Option<bool>,
}

/// Parameters of `process/kill`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProcessKillParams {
    /// A running process of this connection; its process group is killed and
    /// `process/exited` follows.
    pub process_handle: String,
}

/// Parameters of `process/resizePty`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProcessResizePtyParams {
    /// A running `tty` process of this connection.
    pub process_handle: String,
    /// The new size.
    pub size: CommandExecTerminalSize,
}

/// `process/outputDelta`: a chunk of a streaming process's output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProcessOutputDeltaNotification {
    /// The process.
    pub process_handle: String,
    /// Which stream (a terminal's output is `stdout`).
    pub stream: CommandExecOutputStream,
    /// The bytes, base64-encoded.
    pub delta_base64: String,
    /// Whether the stream reached `outputBytesCap` (later output is dropped).
    pub cap_reached: bool,
}

/// `process/exited`: a process ended; the last notification about it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProcessExitedNotification {
    /// The process.
    pub process_handle: String,
    /// The exit code: 124 on timeout, 128 + the signal for a signal (137 when killed).
    pub exit_code: i32,
    /// The output kept, when it was not streamed (else empty).
    pub stdout: String,
    /// The error output kept, when it was not streamed (else empty).
    pub stderr: String,
    /// Whether stdout reached `outputBytesCap`.
    pub stdout_cap_reached: bool,
    /// Whether stderr reached `outputBytesCap`.
    pub stderr_cap_reached: bool,
    /// Whether collecting output after the exit ran out of time; always `false` here, where
    /// output is collected until both streams close.
    #[serde(default)]
    pub output_drain_timed_out: Option<bool>,
}
