//! `getConversationSummary`, a request of the first-generation conversation API that the
//! reference still serves: the summary of one stored thread, found by id or by rollout path.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::thread::{GitInfo, SessionSource};

/// Parameters of `getConversationSummary` (legacy): the thread, by rollout path or by id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(untagged)]
pub enum GetConversationSummaryParams {
    /// The thread whose rollout file is `rolloutPath`.
    RolloutPath {
        /// Absolute path of the rollout file (`thread.path`).
        #[serde(rename = "rolloutPath")]
        #[ts(rename = "rolloutPath")]
        rollout_path: String,
    },
    /// The thread with id `conversationId`.
    ConversationId {
        /// Thread id.
        #[serde(rename = "conversationId")]
        #[ts(rename = "conversationId")]
        conversation_id: String,
    },
}

/// Result of `getConversationSummary`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct GetConversationSummaryResponse {
    /// The thread's summary.
    pub summary: ConversationSummary,
}

/// A stored thread as the first-generation conversation API describes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConversationSummary {
    /// Thread id.
    pub conversation_id: String,
    /// Absolute path of the rollout file.
    pub path: String,
    /// The first user message; `""` before the first turn.
    pub preview: String,
    /// Creation time, RFC 3339 UTC with milliseconds (Tandem stores it to the second, so the
    /// milliseconds are `000`).
    pub timestamp: Option<String>,
    /// Last update time, RFC 3339 UTC with milliseconds.
    pub updated_at: Option<String>,
    /// Model provider id.
    pub model_provider: String,
    /// Working directory (absolute).
    pub cwd: String,
    /// Version of the server protocol that created the thread.
    pub cli_version: String,
    /// Where the thread was created.
    pub source: SessionSource,
    /// Git metadata of the working directory, when known.
    pub git_info: Option<GitInfo>,
}
