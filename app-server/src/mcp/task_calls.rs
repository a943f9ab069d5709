//! Tool calls run as tasks, and the `tasks/*` methods, for 2026-07-28 requests (the Tasks
//! extension; the task registry is [`crate::mcp::tasks`]).
//!
//! A 2026 `tools/call` of a task-supporting tool whose request declares the extension is
//! answered at once with the new task's `CreateTaskResult`; its call then goes on in the same
//! session, which stays open (and keeps its transport's slot) until the call ends, and the
//! call's end is recorded in the task. A question the call's turn asks (an approval, a
//! question of the agent) becomes an `inputRequests` entry of the task, under a random key
//! that one `tasks/update` answers; it expires like a `requestState` (`[mcp.request_state]
//! ttl`) and then fails like an unanswered elicitation. A tool that needs a task
//! ([`requires_task`]), called by a request that does not declare the extension, is refused
//! with `-32021`; so are `tasks/get`, `tasks/update` and `tasks/cancel`.

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::mcp::output::Route;
use crate::mcp::protocol::response;
use crate::mcp::session::{McpSession, SessionShared};
use crate::mcp::tasks::EXTENSION;
use crate::rpc_error;
use tandem_core::engine::approval::{ApprovalReply, ApprovalRequest};

/// Whether a 2026 call of tool `name` runs as a task when the request declares the extension.
pub fn supports_tasks(name: &str) -> bool {
    matches!(name, "codex" | "codex-reply") || fixture_supports_tasks(name)
}

/// Whether tool `name` runs only as a task (a request without the extension is refused).
pub fn requires_task(name: &str) -> bool {
    cfg!(feature = "conformance-fixtures") && matches!(name, "failing_job" | "test_tool_with_task")
}

fn fixture_supports_tasks(name: &str) -> bool {
    cfg!(feature = "conformance-fixtures")
        && matches!(
            name,
            "slow_compute"
                | "failing_job"
                | "protocol_error_job"
                | "confirm_delete"
                | "multi_input"
                | "test_tool_with_task"
        )
}

/// The `-32021` error of a request that needs the extension.
fn missing_extension(what: &str) -> JsonRpcErrorBody {
    JsonRpcErrorBody {
        code: crate::mcp::modern::MISSING_CAPABILITY,
        message: format!("Missing required client capability: {EXTENSION} ({what})"),
        data: Some(json!({"requiredCapabilities": {"extensions": {EXTENSION: {}}}})),
    }
}

impl McpSession {
    fn declares_tasks(&self) -> bool {
        self.is_modern()
            && self
                .shared
                .negotiated
                .get()
                .is_some_and(|negotiated| negotiated.capabilities.tasks)
    }

    /// How the 2026 `tools/call` with `params` involves tasks: `Some(Ok(true))` to run it as a
    /// task, `Some(Err(..))` to refuse it, `None` otherwise. The first round of a tool that
    /// asks through `input_required` before it starts its task (`test_tool_with_task`) runs
    /// as a plain call.
    pub(crate) fn task_mode(&self, params: &Value) -> Option<Result<bool, JsonRpcErrorBody>> {
        if !self.is_modern() {
            return None;
        }
        let name = params.get("name").and_then(Value::as_str)?;
        if !self.declares_tasks() {
            return requires_task(name).then(|| Err(missing_extension(name)));
        }
        if !supports_tasks(name) {
            return None;
        }
        if name == "test_tool_with_task" && params.get("requestState").is_none() {
            return None;
        }
        if asks_in_retries(name) && params.get("requestState").is_some() {
            return None;
        }
        Some(Ok(true))
    }

    /// Runs a `tools/call` as a task: answers it with the task, runs the call, records its
    /// end. `None`: answered already.
    pub(crate) async fn task_call(
        &self,
        id: &RequestId,
        params: &Value,
    ) -> Option<Result<Value, JsonRpcErrorBody>> {
        let tasks = self.shared.options.tasks.clone();
        let (record, cancel) = match tasks.create(&self.principal).await {
            Ok(created) => created,
            Err(error) => return Some(Err(error)),
        };
        let task_id = record.task_id.clone();
        let _ = self.shared.task_link.set(task_id.clone());
        // The request is answered now; the call goes on without it: a cancellation of this
        // request id, or the closing of its stream, no longer reaches it (`tasks/cancel` does).
        self.shared.forget_request(id);
        let relay = self.shared.call_relay.get().cloned();
        let result = crate::mcp::modern::complete_result("tools/call", record.create_result());
        self.shared
            .outbound
            .send(Route::Request(id.clone()), response(id, result))
            .await;
        if let Some(relay) = &relay {
            relay.answered_with_task(id, tasks.clone(), task_id.clone());
        }
        let outcome = self.call_tool(id, params, cancel).await;
        tasks.finish(&task_id, outcome).await;
        None
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel` of a 2026 request; `None` for other
    /// methods.
    pub(crate) async fn tasks_method(
        &self,
        method: &str,
        params: &Value,
    ) -> Option<Result<Value, JsonRpcErrorBody>> {
        if !matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel") || !self.is_modern() {
            return None;
        }
        if !self.declares_tasks() {
            return Some(Err(missing_extension(method)));
        }
        let Some(task_id) = params.get("taskId").and_then(Value::as_str) else {
            return Some(Err(rpc_error::invalid_params(
                "missing string field `taskId`",
            )));
        };
        let tasks = &self.shared.options.tasks;
        Some(match method {
            "tasks/get" => tasks.get(&self.principal, task_id).await,
            "tasks/update" => {
                let responses = match params.get("inputResponses") {
                    None => Map::new(),
                    Some(Value::Object(responses)) => responses.clone(),
                    Some(_) => {
                        return Some(Err(rpc_error::invalid_params(
                            "inputResponses must be an object",
                        )));
                    }
                };
                tasks
                    .update(&self.principal, task_id, responses)
                    .await
                    .map(|()| json!({}))
            }
            _ => tasks
                .cancel(&self.principal, task_id)
                .await
                .map(|()| json!({})),
        })
    }
}

/// Tools whose 2026 retries carry a `requestState` of their own rounds (they are never
/// turned into a task midway, except `test_tool_with_task`).
fn asks_in_retries(name: &str) -> bool {
    crate::mcp::mrtr::asks_through_results(name)
}

impl SessionShared {
    /// The task this session's call runs as, if any.
    pub(crate) fn task_id(&self) -> Option<&str> {
        self.task_link.get().map(String::as_str)
    }

    /// Asks `request` (an `inputRequests` entry) as a question of this session's task and
    /// waits for its answer: `None` when the session runs no task, the question expired
    /// (`[mcp.request_state] ttl`) or `cancel` fired.
    pub(crate) async fn ask_task(
        &self,
        request: Value,
        cancel: &CancellationToken,
    ) -> Option<Result<Value, &'static str>> {
        let task_id = self.task_id()?;
        let key = match crate::mcp::request_state::new_question_id() {
            Ok(key) => key,
            Err(_) => return Some(Err("cannot draw a question id")),
        };
        let tasks = &self.options.tasks;
        let answer = tasks.ask(task_id, &key, request).await;
        let ttl = self.options.request_states.ttl();
        let outcome = tokio::select! {
            answer = answer => answer.map_err(|_| "the task ended"),
            () = tokio::time::sleep(ttl) => Err("approval request timed out"),
            () = cancel.cancelled() => Err("the turn ended"),
        };
        if outcome.is_err() {
            tasks.withdraw(task_id, &key).await;
        }
        Some(outcome)
    }

    /// Asks an approval of this session's task (see [`SessionShared::ask_task`]) in the form
    /// of a 2025 elicitation; `None` when the session runs no task.
    pub(crate) async fn ask_through_task(
        &self,
        request: &ApprovalRequest,
        call: Option<&RequestId>,
        announced: Option<&Value>,
        cancel: &CancellationToken,
    ) -> Option<ApprovalReply> {
        self.task_id()?;
        let version = self.negotiated.get()?.version;
        let params = crate::mcp::elicitation::elicitation_params(request, call, version, announced);
        let asked = json!({"method": "elicitation/create", "params": params});
        Some(match self.ask_task(asked, cancel).await? {
            Ok(answer) => crate::mcp::elicitation::reply_from_answer(request, Ok(answer)),
            Err("the turn ended" | "the task ended") => ApprovalReply::Withdrawn,
            Err(reason) => ApprovalReply::Failed(reason.into()),
        })
    }
}
