//! Params and response of `thread/shellCommand`: a command the user runs in a thread.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Parameters of `thread/shellCommand`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[ts(optional_fields = nullable)]
pub struct ThreadShellCommandParams {
    /// The thread (loaded, with no running turn).
    pub thread_id: String,
    /// A shell command line, run by the user's shell as a login shell (`bash -lc` unless
    /// `$SHELL` names another), so pipes, redirections and quoting work. Unlike the
    /// reference, Tandem runs it under the thread's sandbox, within the operator's
    /// `clients.max_sandbox`, with the environment `[shell_environment_policy]` builds.
    pub command: String,
    /// Kill the command after this many milliseconds (default one hour; `0` kills it at once).
    /// Negative values are refused.
    #[serde(default)]
    pub timeout_ms: Option<i64>,
}

/// Result of `thread/shellCommand`: `{}`, sent before the command's turn starts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct ThreadShellCommandResponse {}
