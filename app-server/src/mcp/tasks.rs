//! The Tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`): long tool calls that
//! answer at once with a task id and are then polled.
//!
//! A 2026 `tools/call` of a task-supporting tool (`codex`, `codex-reply`, and the conformance
//! fixtures that say so) whose request declares the extension in its client capabilities is
//! answered at once with a `CreateTaskResult` (`resultType: "task"`, `taskId`, `status`,
//! `createdAt`, `lastUpdatedAt`, `ttlMs`, `pollIntervalMs`); the call goes on in its request's
//! session after that answer (`crate::mcp::task_calls`). `tasks/get` returns the task's status,
//! its last progress message, the questions it waits on (`inputRequests`, while
//! `input_required`) and finally its `result` (`completed`, also for a tool that reported an
//! error) or `error` (`failed`: the call ended in a JSON-RPC error). `tasks/update` delivers
//! answers to those questions (each key is a random question id, answered once); `tasks/cancel`
//! cancels the call (`cancelled`).
//!
//! [`Tasks`] holds the tasks of one server: a task belongs to the principal that started it
//! (any other principal is told it does not exist), at most [`MAX_RUNNING_PER_PRINCIPAL`]
//! unfinished tasks per principal run at once, and a finished task is forgotten [`TASK_TTL`]
//! after it finished (at most [`MAX_KEPT_PER_PRINCIPAL`] per principal are kept, the oldest
//! forgotten first). With `--redis` every change is also written to Redis ([`TaskMirror`]) so
//! that any node answers `tasks/get`, and `tasks/update` and `tasks/cancel` reaching another
//! node are forwarded to the task's node.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use app_server_protocol::jsonrpc::JsonRpcErrorBody;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::mcp::distributed::{BoxFuture, StoreError};
use crate::rpc_error;
use tandem_core::principal::Principal;
use tandem_core::sync::lock;

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// How long a finished task stays readable (`ttlMs`).
pub const TASK_TTL: Duration = Duration::from_secs(60 * 60);
/// The polling interval suggested to clients (`pollIntervalMs`).
pub const POLL_INTERVAL_MS: u64 = 500;
/// Unfinished tasks one principal may have at once.
pub const MAX_RUNNING_PER_PRINCIPAL: usize = 16;
/// Tasks (finished or not) kept per principal; beyond it the oldest finished one is forgotten.
pub const MAX_KEPT_PER_PRINCIPAL: usize = 256;
/// How long an unfinished task's copy in Redis lives without a change.
const RUNNING_MIRROR_TTL: Duration = Duration::from_secs(24 * 60 * 60);
/// Longest progress message kept as a task's `statusMessage`, in bytes.
const MAX_STATUS_MESSAGE_BYTES: usize = 1024;

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// The call runs.
    Working,
    /// The call waits for answers given with `tasks/update`.
    InputRequired,
    /// The call ended with a result (which may report a tool error).
    Completed,
    /// The call ended with a JSON-RPC error.
    Failed,
    /// The call was cancelled.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task has ended.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// What is known of one task; also its stored form in Redis.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The task's id (random, 32 hex digits).
    pub task_id: String,
    /// The principal that started it.
    pub principal: String,
    /// The node running it (`local` without `--redis`).
    pub node: String,
    /// Where it is.
    pub status: TaskStatus,
    /// When it was created (RFC 3339).
    pub created_at: String,
    /// When it last changed (RFC 3339).
    pub last_updated_at: String,
    /// The last progress message of its call.
    pub status_message: Option<String>,
    /// The questions it waits on, by key.
    pub input_requests: Map<String, Value>,
    /// The call's result, once `completed`.
    pub result: Option<Value>,
    /// The call's JSON-RPC error, once `failed`.
    pub error: Option<Value>,
}

impl TaskRecord {
    fn envelope(&self) -> Map<String, Value> {
        let mut task = Map::new();
        task.insert("taskId".into(), json!(self.task_id));
        task.insert("status".into(), json!(self.status));
        task.insert("createdAt".into(), json!(self.created_at));
        task.insert("lastUpdatedAt".into(), json!(self.last_updated_at));
        task.insert("ttlMs".into(), json!(TASK_TTL.as_millis() as u64));
        task.insert("pollIntervalMs".into(), json!(POLL_INTERVAL_MS));
        if let Some(message) = &self.status_message {
            task.insert("statusMessage".into(), json!(message));
        }
        task
    }

    /// The `CreateTaskResult` that answers the call that started the task.
    pub fn create_result(&self) -> Value {
        let mut result = self.envelope();
        result.insert("resultType".into(), json!("task"));
        Value::Object(result)
    }

    /// The `tasks/get` result: the task, its pending `inputRequests`, and its `result` or
    /// `error` once it ended.
    pub fn detailed(&self) -> Value {
        let mut task = self.envelope();
        task.insert("resultType".into(), json!("complete"));
        if self.status == TaskStatus::InputRequired {
            task.insert(
                "inputRequests".into(),
                Value::Object(self.input_requests.clone()),
            );
        }
        if let Some(result) = &self.result {
            task.insert("result".into(), result.clone());
        }
        if let Some(error) = &self.error {
            task.insert("error".into(), error.clone());
        }
        Value::Object(task)
    }
}

/// The copy of every task in a shared store, for the nodes of a cluster.
pub trait TaskMirror: Send + Sync + 'static {
    /// Stores `record`, to be forgotten after `ttl`.
    fn save<'a>(
        &'a self,
        record: &'a TaskRecord,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
    /// The stored record of `task_id`.
    fn load<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;
    /// Sends a `tasks/update` (`responses`: `Some`) or `tasks/cancel` (`None`) of a task to
    /// `node`, which runs it.
    fn forward<'a>(
        &'a self,
        node: &'a str,
        task_id: &'a str,
        responses: Option<Map<String, Value>>,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
}

/// One task of this node.
struct Entry {
    record: TaskRecord,
    /// Cancels the task's call.
    cancel: CancellationToken,
    /// Where the answer of each pending question goes.
    answers: HashMap<String, oneshot::Sender<Value>>,
    /// When a finished task is forgotten.
    expires: Option<Instant>,
}

/// The tasks of one server (see the module documentation).
#[derive(Default)]
pub struct Tasks {
    entries: Mutex<HashMap<String, Entry>>,
    /// The cluster's copy and this node's id, with `--redis`.
    mirror: OnceLock<(Arc<dyn TaskMirror>, String)>,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Tasks").finish_non_exhaustive()
    }
}

fn now_text() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

fn not_found() -> JsonRpcErrorBody {
    rpc_error::invalid_params("task not found")
}

impl Tasks {
    /// Shares every task through `mirror`, as node `node`.
    pub fn set_mirror(&self, mirror: Arc<dyn TaskMirror>, node: String) {
        let _ = self.mirror.set((mirror, node));
    }

    fn node(&self) -> String {
        self.mirror
            .get()
            .map_or_else(|| "local".to_string(), |(_, node)| node.clone())
    }

    /// Drops expired tasks, and the oldest finished tasks of `principal` beyond its cap.
    fn prune(entries: &mut HashMap<String, Entry>, principal: &str) {
        let now = Instant::now();
        entries.retain(|_, entry| entry.expires.is_none_or(|expires| expires > now));
        let mut finished: Vec<(Instant, String)> = entries
            .iter()
            .filter(|(_, entry)| entry.record.principal == principal)
            .filter_map(|(id, entry)| entry.expires.map(|expires| (expires, id.clone())))
            .collect();
        let held = entries
            .values()
            .filter(|entry| entry.record.principal == principal)
            .count();
        if held >= MAX_KEPT_PER_PRINCIPAL {
            finished.sort();
            for (_, id) in finished.into_iter().take(held + 1 - MAX_KEPT_PER_PRINCIPAL) {
                entries.remove(&id);
            }
        }
    }

    /// Writes the current record of `task_id` to the mirror, if any.
    async fn publish(&self, task_id: &str) {
        let Some((mirror, _)) = self.mirror.get() else {
            return;
        };
        let Some(record) = lock(&self.entries)
            .get(task_id)
            .map(|entry| entry.record.clone())
        else {
            return;
        };
        let ttl = if record.status.is_terminal() {
            TASK_TTL
        } else {
            RUNNING_MIRROR_TTL
        };
        if let Err(error) = mirror.save(&record, ttl).await {
            tracing::warn!(%error, task_id, "cannot store the task in redis");
        }
    }

    /// Creates a `working` task of `principal` and returns its record and the token that
    /// cancels its call; `-32001` when the principal runs its maximum of tasks already.
    /// The task is readable (in the mirror too) when this returns.
    pub async fn create(
        &self,
        principal: &Principal,
    ) -> Result<(TaskRecord, CancellationToken), JsonRpcErrorBody> {
        let task_id = crate::mcp::request_state::new_question_id().map_err(|error| {
            rpc_error::internal_error(format!("cannot draw a task id: {error}"))
        })?;
        let now = now_text();
        let record = TaskRecord {
            task_id: task_id.clone(),
            principal: principal.name().to_string(),
            node: self.node(),
            status: TaskStatus::Working,
            created_at: now.clone(),
            last_updated_at: now,
            status_message: None,
            input_requests: Map::new(),
            result: None,
            error: None,
        };
        let cancel = CancellationToken::new();
        {
            let mut entries = lock(&self.entries);
            Self::prune(&mut entries, principal.name());
            let running = entries
                .values()
                .filter(|entry| {
                    entry.record.principal == principal.name() && !entry.record.status.is_terminal()
                })
                .count();
            if running >= MAX_RUNNING_PER_PRINCIPAL {
                return Err(JsonRpcErrorBody {
                    code: app_server_protocol::jsonrpc::error_codes::OVERLOADED,
                    message: format!(
                        "this principal runs its maximum of {MAX_RUNNING_PER_PRINCIPAL} tasks; wait for one to end"
                    ),
                    data: None,
                });
            }
            entries.insert(
                task_id.clone(),
                Entry {
                    record: record.clone(),
                    cancel: cancel.clone(),
                    answers: HashMap::new(),
                    expires: None,
                },
            );
        }
        self.publish(&task_id).await;
        Ok((record, cancel))
    }

    /// Changes the record of `task_id` with `change` (and its `lastUpdatedAt`), then
    /// publishes it; `false` when the task is not on this node or has ended.
    async fn change(&self, task_id: &str, change: impl FnOnce(&mut Entry)) -> bool {
        {
            let mut entries = lock(&self.entries);
            let Some(entry) = entries.get_mut(task_id) else {
                return false;
            };
            if entry.record.status.is_terminal() {
                return false;
            }
            change(entry);
            entry.record.last_updated_at = now_text();
        }
        self.publish(task_id).await;
        true
    }

    /// Records the progress message of the call of `task_id`.
    pub async fn progress(&self, task_id: &str, message: &str) {
        let mut message = message.to_string();
        tandem_core::text::truncate_within(&mut message, MAX_STATUS_MESSAGE_BYTES);
        self.change(task_id, |entry| entry.record.status_message = Some(message))
            .await;
    }

    /// Asks `request` (an `inputRequests` entry) under `key`: the task turns
    /// `input_required` until every question is answered. The answer comes on the returned
    /// receiver (closed when the task ends first).
    pub async fn ask(&self, task_id: &str, key: &str, request: Value) -> oneshot::Receiver<Value> {
        let (sender, receiver) = oneshot::channel();
        self.change(task_id, |entry| {
            entry.record.input_requests.insert(key.to_string(), request);
            entry.answers.insert(key.to_string(), sender);
            entry.record.status = TaskStatus::InputRequired;
        })
        .await;
        receiver
    }

    /// Withdraws question `key` of `task_id` (it timed out or its turn ended).
    pub async fn withdraw(&self, task_id: &str, key: &str) {
        self.change(task_id, |entry| {
            entry.record.input_requests.remove(key);
            entry.answers.remove(key);
            if entry.record.input_requests.is_empty() {
                entry.record.status = TaskStatus::Working;
            }
        })
        .await;
    }

    /// Records how the call of `task_id` ended: `None` (or a cancelled task) is
    /// `cancelled`, a result `completed`, an error `failed`.
    pub async fn finish(&self, task_id: &str, outcome: Option<Result<Value, JsonRpcErrorBody>>) {
        {
            let mut entries = lock(&self.entries);
            let Some(entry) = entries.get_mut(task_id) else {
                return;
            };
            let record = &mut entry.record;
            record.input_requests.clear();
            entry.answers.clear();
            match outcome {
                _ if entry.cancel.is_cancelled() => record.status = TaskStatus::Cancelled,
                None => record.status = TaskStatus::Cancelled,
                Some(Ok(mut result)) => {
                    if let Some(result) = result.as_object_mut() {
                        result.remove("resultType");
                    }
                    record.status = TaskStatus::Completed;
                    record.result = Some(result);
                }
                Some(Err(error)) => {
                    record.status = TaskStatus::Failed;
                    record.error = Some(json!(error));
                }
            }
            record.last_updated_at = now_text();
            entry.expires = Some(Instant::now() + TASK_TTL);
        }
        self.publish(task_id).await;
    }

    /// The local entry of `task_id` if `principal` owns it: `Some(None)` when it is not on
    /// this node.
    fn owned_locally<T>(
        &self,
        principal: &Principal,
        task_id: &str,
        read: impl FnOnce(&mut Entry) -> T,
    ) -> Result<Option<T>, JsonRpcErrorBody> {
        let mut entries = lock(&self.entries);
        Self::prune(&mut entries, principal.name());
        match entries.get_mut(task_id) {
            Some(entry) if entry.record.principal == principal.name() => Ok(Some(read(entry))),
            Some(_) => Err(not_found()),
            None => Ok(None),
        }
    }

    /// The record of `task_id` in the mirror, if `principal` owns it.
    async fn mirrored(
        &self,
        principal: &Principal,
        task_id: &str,
    ) -> Result<(TaskRecord, Arc<dyn TaskMirror>), JsonRpcErrorBody> {
        let Some((mirror, _)) = self.mirror.get() else {
            return Err(not_found());
        };
        match mirror.load(task_id).await {
            Ok(Some(record)) if record.principal == principal.name() => {
                Ok((record, mirror.clone()))
            }
            Ok(_) => Err(not_found()),
            Err(error) => Err(rpc_error::internal_error(format!(
                "cannot read the task: {error}"
            ))),
        }
    }

    /// `tasks/get` of `principal`.
    pub async fn get(
        &self,
        principal: &Principal,
        task_id: &str,
    ) -> Result<Value, JsonRpcErrorBody> {
        if let Some(detailed) =
            self.owned_locally(principal, task_id, |entry| entry.record.detailed())?
        {
            return Ok(detailed);
        }
        let (record, _) = self.mirrored(principal, task_id).await?;
        Ok(record.detailed())
    }

    /// `tasks/update` of `principal`: each of `responses` whose key names a pending question
    /// answers it (keys not pending are ignored); a pending key whose answer is not an
    /// object is `-32602`.
    pub async fn update(
        &self,
        principal: &Principal,
        task_id: &str,
        responses: Map<String, Value>,
    ) -> Result<(), JsonRpcErrorBody> {
        let local = self.owned_locally(principal, task_id, |entry| {
            entry
                .record
                .input_requests
                .keys()
                .cloned()
                .collect::<Vec<_>>()
        })?;
        let pending = match local {
            Some(pending) => pending,
            None => {
                let (record, mirror) = self.mirrored(principal, task_id).await?;
                check_answers(
                    &record.input_requests.keys().cloned().collect::<Vec<_>>(),
                    &responses,
                )?;
                if let Err(error) = mirror.forward(&record.node, task_id, Some(responses)).await {
                    return Err(rpc_error::internal_error(format!(
                        "cannot reach the task's node: {error}"
                    )));
                }
                return Ok(());
            }
        };
        check_answers(&pending, &responses)?;
        self.deliver(task_id, responses).await;
        Ok(())
    }

    /// Gives `responses` to the pending questions of local task `task_id` (see
    /// [`Tasks::update`]); also the receiving end of a forwarded update.
    pub async fn deliver(&self, task_id: &str, responses: Map<String, Value>) {
        self.change(task_id, |entry| {
            for (key, answer) in responses {
                if !answer.is_object() {
                    continue;
                }
                if let Some(sender) = entry.answers.remove(&key) {
                    entry.record.input_requests.remove(&key);
                    let _ = sender.send(answer);
                }
            }
            if entry.record.input_requests.is_empty() {
                entry.record.status = TaskStatus::Working;
            }
        })
        .await;
    }

    /// `tasks/cancel` of `principal`: cancels the task's call unless it has ended (then a
    /// no-op).
    pub async fn cancel(
        &self,
        principal: &Principal,
        task_id: &str,
    ) -> Result<(), JsonRpcErrorBody> {
        let local = self.owned_locally(principal, task_id, |entry| {
            if !entry.record.status.is_terminal() {
                entry.cancel.cancel();
            }
        })?;
        if local.is_some() {
            return Ok(());
        }
        let (record, mirror) = self.mirrored(principal, task_id).await?;
        if record.status.is_terminal() {
            return Ok(());
        }
        if let Err(error) = mirror.forward(&record.node, task_id, None).await {
            return Err(rpc_error::internal_error(format!(
                "cannot reach the task's node: {error}"
            )));
        }
        Ok(())
    }

    /// The receiving end of a forwarded `tasks/cancel`.
    pub fn cancel_local(&self, task_id: &str) {
        if let Some(entry) = lock(&self.entries).get(task_id) {
            entry.cancel.cancel();
        }
    }
}

/// `-32602` when an answer to a pending question is not an object.
fn check_answers(
    pending: &[String],
    responses: &Map<String, Value>,
) -> Result<(), JsonRpcErrorBody> {
    for key in pending {
        if let Some(answer) = responses.get(key)
            && !answer.is_object()
        {
            return Err(rpc_error::invalid_params(format!(
                "inputResponses.{key} must be an object"
            )));
        }
    }
    Ok(())
}
