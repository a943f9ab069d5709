//! Persistence: one append-only rollout file per thread plus a SQLite index for `thread/list`.
//!
//! Layout under `TANDEM_HOME`: `sessions/YYYY/MM/DD/rollout-<YYYY-MM-DDTHH-MM-SS>-<id>.jsonl`,
//! `archived_sessions/<same file name>`, `state.sqlite` and its lock file `state.sqlite.lock`.
//! The rollout is the source of truth; the index is rebuilt from the rollouts when it is
//! missing or corrupt.

mod appender;
mod index;
pub mod read_state;
mod rollout;
mod schema;
pub mod sections;
mod session_index;

use std::path::PathBuf;
use std::sync::Arc;

use app_server_protocol::dynamic_tools::DynamicToolSpec;
use app_server_protocol::item::ThreadItem;
use app_server_protocol::policy::{
    AskForApproval, CollaborationMode, ReasoningEffort, ReasoningSummary, SandboxPolicy,
    SortDirection,
};
use app_server_protocol::thread::{ThreadTokenUsage, Turn, TurnError, TurnStatus};
use app_server_protocol::thread_requests::ThreadSortKey;
use serde::{Deserialize, Serialize};

use crate::model::ResponseItem;
use crate::principal::Principal;

pub use index::Store;
pub use rollout::{RolloutSync, RolloutWriter};

/// Receives a copy of every rollout line as it is written (distributed MCP mirrors them to a
/// Redis stream per thread, so that another node can rebuild the thread). Must not block.
pub trait RolloutMirror: Send + Sync + 'static {
    /// `line` (with its `\n`) was appended to the rollout at `path`.
    fn mirror(&self, path: &std::path::Path, line: &[u8]);
    /// Thread `thread_id` was archived: its mirror is no longer needed.
    fn forget(&self, _thread_id: &str) {}
    /// Thread `thread_id` was deleted: its mirror, and whatever else the cluster keeps for
    /// it, goes.
    fn delete(&self, thread_id: &str) {
        self.forget(thread_id);
    }
}

/// Version written in every rollout header.
pub const ROLLOUT_VERSION: u32 = 1;

/// A thread's persisted metadata: the rollout header and the index row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadMeta {
    /// Thread id (UUIDv7).
    pub id: String,
    /// Creation time, Unix seconds.
    pub created_at: i64,
    /// Last update, Unix milliseconds (second precision is too coarse to sort on).
    pub updated_at_ms: i64,
    /// Working directory (absolute).
    pub cwd: String,
    /// Provider id.
    pub model_provider: String,
    /// Model slug.
    pub model: String,
    /// Reasoning effort.
    pub reasoning_effort: Option<ReasoningEffort>,
    /// Reasoning summary.
    pub reasoning_summary: Option<ReasoningSummary>,
    /// Approval policy.
    pub approval_policy: AskForApproval,
    /// Sandbox policy.
    pub sandbox: SandboxPolicy,
    /// `clientInfo.name` of the creating client.
    pub originator: Option<String>,
    /// Source kind as stored (`vscode` for app-server threads).
    pub source: String,
    /// Protocol version that created the thread.
    pub cli_version: String,
    /// First user message text (empty before the first turn).
    pub preview: String,
    /// User-chosen name.
    pub name: Option<String>,
    /// Thread this one was forked from.
    pub forked_from_id: Option<String>,
    /// Free-form `threadSource` label.
    pub thread_source: Option<String>,
    /// Base instructions override.
    pub base_instructions: Option<String>,
    /// Developer instructions.
    pub developer_instructions: Option<String>,
    /// Whether the rollout is in `archived_sessions/`.
    pub archived: bool,
    /// Absolute path of the rollout file.
    pub rollout_path: PathBuf,
    /// Collaboration mode set by the last `turn/start` that named one (plan mode allows
    /// `request_user_input`); absent in rollouts written before it was recorded.
    #[serde(default)]
    pub collaboration_mode: Option<CollaborationMode>,
    /// The prompt that asks for a compaction summary in this thread (`newConversation`'s
    /// `compactPrompt`), over `compact_prompt` in config; absent when the thread uses the
    /// configured or built-in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact_prompt: Option<String>,
    /// The principal that created the thread, the only one that sees it (see
    /// `engine::owner`). Fixed at creation: a later settings record does not change it.
    /// Rollouts and index rows written before owners were recorded have none; they belong to
    /// the local user.
    #[serde(default, with = "owner_name")]
    pub owner: Principal,
    /// Git information a client stored with `thread/metadata/update`; absent until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_info: Option<app_server_protocol::thread::GitInfo>,
    /// The client's Daybreak choice stored with `thread/metadata/update`; absent until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daybreak_enabled: Option<bool>,
    /// The tools the client declared at `thread/start` (`dynamicTools`), offered to the model
    /// in every turn of the thread, resumed ones included.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dynamic_tools: Vec<DynamicToolSpec>,
}

mod response_item_payload {
    //! The payload of a `response_item` rollout line: `{"turn_id": …, <the item's fields>}`
    //! (Codex's shape, with our turn id beside it), or the nested `{"turn_id", "item"}` that
    //! earlier versions wrote.

    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;

    use crate::model::ResponseItem;

    #[allow(
        clippy::ptr_arg,
        reason = "serde hands a variant's fields to its serializer by reference"
    )]
    pub fn serialize<S: Serializer>(
        turn_id: &String,
        item: &ResponseItem,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        let mut payload = match serde_json::to_value(item).map_err(S::Error::custom)? {
            Value::Object(fields) => fields,
            other => {
                return Err(S::Error::custom(format!(
                    "a response item is not an object: {other}"
                )));
            }
        };
        payload.insert("turn_id".to_owned(), Value::String(turn_id.clone()));
        payload.serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<(String, ResponseItem), D::Error> {
        let Value::Object(mut payload) = Value::deserialize(deserializer)? else {
            return Err(D::Error::custom("a response_item payload is not an object"));
        };
        let turn_id = match payload.remove("turn_id") {
            Some(Value::String(turn_id)) => turn_id,
            Some(other) => {
                return Err(D::Error::custom(format!(
                    "turn_id is not a string: {other}"
                )));
            }
            None => String::new(),
        };
        let item = match payload.remove("item") {
            // The nested form: `{"turn_id", "item"}`.
            Some(item) if !payload.contains_key("type") => item,
            Some(item) => {
                payload.insert("item".to_owned(), item);
                Value::Object(payload)
            }
            None => Value::Object(payload),
        };
        let item = ResponseItem::deserialize(item).map_err(D::Error::custom)?;
        Ok((turn_id, item))
    }

    #[cfg(test)]
    mod tests {
        use pretty_assertions::assert_eq;
        use serde_json::json;

        use crate::store::RolloutRecord;

        #[test]
        fn a_response_item_is_written_in_codex_shape_and_both_shapes_read_back() {
            let codex_shaped = json!({
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "exec_command",
                    "arguments": "{}",
                    "call_id": "call_1",
                    "turn_id": "turn-1",
                },
            });
            let record: RolloutRecord = serde_json::from_value(codex_shaped.clone()).unwrap();
            let RolloutRecord::ResponseItem { turn_id, item } = &record else {
                panic!("not a response item: {record:?}");
            };
            assert_eq!(turn_id, "turn-1");
            // Written back: the item's own fields at the top of the payload, as Codex writes.
            let written = serde_json::to_value(&record).unwrap();
            assert_eq!(written["payload"]["type"], "function_call");
            assert_eq!(written["payload"]["call_id"], "call_1");
            assert_eq!(written["payload"]["turn_id"], "turn-1");
            assert_eq!(written["payload"].get("item"), None);
            // The nested form earlier versions wrote reads as the same record.
            let nested = json!({
                "type": "response_item",
                "payload": {"turn_id": "turn-1", "item": serde_json::to_value(item).unwrap()},
            });
            let reread: RolloutRecord = serde_json::from_value(nested).unwrap();
            assert_eq!(reread, record);
            // Codex's own lines carry no turn id.
            let mut foreign = codex_shaped;
            foreign["payload"]
                .as_object_mut()
                .unwrap()
                .remove("turn_id");
            let foreign: RolloutRecord = serde_json::from_value(foreign).unwrap();
            assert!(
                matches!(foreign, RolloutRecord::ResponseItem { turn_id, .. } if turn_id.is_empty())
            );
        }
    }
}

/// A [`ThreadMeta`]'s owner as the principal's name.
mod owner_name {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::principal::Principal;

    pub(super) fn serialize<S: Serializer>(
        owner: &Principal,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(owner.name())
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Principal, D::Error> {
        let name = String::deserialize(deserializer)?;
        Ok(Principal::named(&name))
    }
}

/// The fields of Codex's `session_meta` payload that Tandem's header repeats.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CodexHeader {
    /// The thread id.
    pub id: String,
    /// Creation time, RFC 3339.
    pub timestamp: String,
    /// Working directory.
    pub cwd: String,
    /// The creating client's name.
    pub originator: String,
    /// Protocol version that created the thread.
    pub cli_version: String,
    /// Source kind.
    pub source: String,
    /// Provider id.
    pub model_provider: String,
}

impl CodexHeader {
    /// The header fields of `meta`.
    pub fn of(meta: &ThreadMeta) -> CodexHeader {
        CodexHeader {
            id: meta.id.clone(),
            timestamp: rollout::format_rfc3339_seconds(meta.created_at),
            cwd: meta.cwd.clone(),
            originator: meta.originator.clone().unwrap_or_default(),
            cli_version: meta.cli_version.clone(),
            source: meta.source.clone(),
            model_provider: meta.model_provider.clone(),
        }
    }
}

/// One line of a rollout file (after the `{"timestamp", "type", "payload"}` envelope).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
pub enum RolloutRecord {
    /// First line: format version and metadata at creation.
    SessionMeta {
        /// [`ROLLOUT_VERSION`].
        version: u32,
        /// Metadata at creation time.
        meta: ThreadMeta,
        /// Codex's own header fields, repeated at the top of the payload where tools written
        /// for Codex's rollouts read them (a client that ran `tandem exec` in place of `codex`
        /// reads `$CODEX_HOME/sessions`); `meta` stays the source of truth.
        #[serde(flatten)]
        codex: Option<CodexHeader>,
    },
    /// A turn started.
    TurnStarted {
        /// Turn id.
        turn_id: String,
        /// Unix seconds.
        started_at: i64,
    },
    /// A completed item of a turn (what `thread/read` and `thread/turns/list` show).
    Item {
        /// Turn id.
        turn_id: String,
        /// The item in its final state.
        item: ThreadItem,
    },
    /// A model-visible history item (what the next model request sends). Written as Codex
    /// writes its `response_item` lines, the item's own fields at the top of the payload, plus
    /// `turn_id`, so that tools reading Codex rollouts read ours; the older nested form
    /// `{turn_id, item}` is still read.
    #[serde(
        serialize_with = "response_item_payload::serialize",
        deserialize_with = "response_item_payload::deserialize"
    )]
    ResponseItem {
        /// Turn id.
        turn_id: String,
        /// The history item.
        item: ResponseItem,
    },
    /// Token usage after a model response.
    TokenUsage {
        /// Turn id.
        turn_id: String,
        /// Cumulative and last usage.
        usage: ThreadTokenUsage,
    },
    /// A turn ended.
    TurnCompleted {
        /// Turn id.
        turn_id: String,
        /// Final status.
        status: TurnStatus,
        /// Error of a failed turn.
        error: Option<TurnError>,
        /// Unix seconds.
        completed_at: i64,
        /// Duration in milliseconds.
        duration_ms: i64,
    },
    /// The thread was renamed.
    ThreadName {
        /// New name.
        name: String,
    },
    /// Settings changed (overrides on resume or turn/start); later lines win.
    Settings {
        /// The metadata with the new settings applied.
        meta: ThreadMeta,
    },
    /// The AGENTS.md files the thread started with (their text follows as a history item).
    Instructions {
        /// Absolute paths, in the order they were read.
        sources: Vec<String>,
    },
    /// `thread/rollback`: the last turns were dropped.
    Rollback {
        /// How many turns were dropped from the end.
        num_turns: u32,
        /// Length of the model history after the rollback.
        history_len: usize,
    },
    /// The model history was compacted and replaced.
    Compacted {
        /// The turn that compacted.
        turn_id: String,
        /// The history that replaces everything before this record.
        history: Vec<ResponseItem>,
    },
    /// The thread's goal was set, changed (`Some`) or cleared (`None`); later lines win.
    Goal {
        /// The goal after the change.
        goal: Option<app_server_protocol::thread_goal::ThreadGoal>,
    },
    /// The thread's attachments after one was added or removed; later lines win.
    Attachments {
        /// Every attachment, oldest first.
        attachments: Vec<app_server_protocol::thread_attachment::ThreadAttachment>,
    },
}

/// A thread read back from its rollout.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredThread {
    /// Metadata with every later record applied (name, settings, preview, updated time).
    pub meta: ThreadMeta,
    /// Turns in order, with every persisted item (`itemsView: full`). A turn with no
    /// `TurnCompleted` record (the process died) is reported as `interrupted`.
    pub turns: Vec<Turn>,
    /// Model-visible history in order.
    pub history: Vec<ResponseItem>,
    /// Last token usage, if any.
    pub token_usage: Option<ThreadTokenUsage>,
    /// The AGENTS.md files the thread started with.
    pub instruction_sources: Vec<String>,
    /// Where each turn's model history begins (turn id, history length at its start).
    pub turn_starts: Vec<(String, usize)>,
    /// The thread's goal, as its last goal record left it.
    pub goal: Option<app_server_protocol::thread_goal::ThreadGoal>,
    /// The thread's attachments, as its last attachments record left them.
    pub attachments: Vec<app_server_protocol::thread_attachment::ThreadAttachment>,
}

/// A `thread/list` query, already validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListQuery {
    /// Only the threads of this principal: a list never shows another principal's threads.
    pub owner: Principal,
    /// Opaque cursor from a previous page.
    pub cursor: Option<String>,
    /// Page size; `None` means every thread.
    pub limit: Option<usize>,
    /// Sort key.
    pub sort_key: ThreadSortKey,
    /// Sort direction.
    pub sort_direction: SortDirection,
    /// Only these providers (empty: all).
    pub model_providers: Vec<String>,
    /// Only these source kinds as stored (`vscode`, `cli`…; empty: all).
    pub sources: Vec<String>,
    /// Only these originators (empty: all).
    pub originators: Vec<String>,
    /// Archived threads only (`true`) or non-archived only (`false`).
    pub archived: bool,
    /// Only these working directories (empty: all).
    pub cwds: Vec<String>,
    /// Case-sensitive substring of name or preview.
    pub search_term: Option<String>,
    /// Threads to leave out.
    pub excluded_ids: Vec<String>,
    /// `None`: threads of every section or none; `Some(None)`: threads of no section;
    /// `Some(Some(id))`: threads of section `id` (which [`ThreadSortKey::SectionPosition`]
    /// needs; without one it sorts by the update time).
    ///
    /// [`ThreadSortKey::SectionPosition`]: app_server_protocol::thread_requests::ThreadSortKey
    pub section: Option<Option<String>>,
}

/// One page of `thread/list`.
#[derive(Clone, Debug, PartialEq)]
pub struct ListPage {
    /// The threads of this page.
    pub threads: Vec<ThreadMeta>,
    /// Cursor of the next page; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The SQLite index failed.
    #[error("thread index: {0}")]
    Index(#[from] rusqlite::Error),
    /// A rollout line could not be decoded.
    #[error("{path}:{line}: {message}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        message: String,
    },
    /// No (non-archived) rollout for this thread id.
    #[error("no rollout found for thread id {0}")]
    NotFound(String),
    /// No archived rollout for this thread id (`thread/unarchive` of a thread not archived).
    #[error("no archived rollout found for thread id {0}")]
    NotArchived(String),
    /// A malformed `thread/list` cursor.
    #[error("invalid cursor: {0}")]
    InvalidCursor(String),
    /// The blocking task that did the storage work panicked or was cancelled.
    #[error("storage task failed: {0}")]
    TaskFailed(String),
}

impl Store {
    /// Runs `work` on the blocking pool, so that file and SQLite I/O never holds up an async
    /// worker thread (and with it every other task scheduled there).
    pub async fn blocking<T, F>(self: &Arc<Self>, work: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
    {
        let store = Arc::clone(self);
        match tokio::task::spawn_blocking(move || work(&store)).await {
            Ok(result) => result,
            Err(error) => Err(StoreError::TaskFailed(error.to_string())),
        }
    }
}
