//! Engine events → MCP notifications.
//!
//! Every engine notification about a thread whose turn a tool call is running goes out as a
//! `codex/event` notification with `_meta.requestId` set to that call's request id, on the
//! call's stream; when the call carries a progress token, non-delta events also become
//! `notifications/progress` with a strictly increasing `progress`. Events about no running
//! call go out unrelated (the GET stream over HTTP).
//!
//! `codex/event` params: `{"_meta": {"requestId", "threadId"}, "id": <turn id or "">, "msg":
//! <Codex's EventMsg>}` (see `crate::compat::codex_events` for the mapping and its order).

use std::collections::HashMap;

use app_server_protocol::codex_event::{CodexEventMeta, CodexEventNotification};
use app_server_protocol::item::{ThreadItem, ThreadItemDetails};
use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::notifications::{ItemCompletedNotification, TurnNotification};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::TurnStatus;
use app_server_protocol::thread_requests::ThreadStartResponse;
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::compat::codex_events::{
    CodexEvents, Event as CodexEvent, notification_thread, session_configured,
};
use crate::mcp::output::Route;
use crate::mcp::protocol::{log_level_rank, notification as notification_message};
use tandem_core::engine::approval::ApprovalRequest;

/// Name of the notification that carries engine events.
pub const EVENT_METHOD: &str = "codex/event";

/// The tool calls of one session that run (or are about to run) a turn.
#[derive(Default)]
pub struct Calls {
    by_id: HashMap<RequestId, CallState>,
    by_thread: HashMap<String, RequestId>,
    /// The engine-event → Codex-event mapping of the session's threads.
    codex: CodexEvents,
}

/// One running tool call.
pub struct CallState {
    /// `params._meta.progressToken` of the call, if any.
    pub progress_token: Option<Value>,
    /// The last progress value sent.
    pub progress: u64,
    /// The thread the call drives, once known.
    pub thread_id: Option<String>,
    /// Text of the last completed agent message of the turn.
    pub last_agent_message: Option<String>,
    /// Things the result must mention (approvals decided without asking the user).
    pub notes: Vec<String>,
    /// Completed with the final turn when `turn/completed` arrives.
    pub turn_done: Option<oneshot::Sender<TurnEnd>>,
}

impl CallState {
    /// A call that has not started a turn yet.
    pub fn new(progress_token: Option<Value>) -> Self {
        Self {
            progress_token,
            progress: 0,
            thread_id: None,
            last_agent_message: None,
            notes: Vec::new(),
            turn_done: None,
        }
    }
}

/// How a call's turn ended, as its `turn/completed` event says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnEnd {
    /// The turn's final status.
    pub status: TurnStatus,
    /// The turn error's message, for failed turns.
    pub error: Option<String>,
}

/// What to send for one engine event, decided under the calls lock and sent after it.
#[derive(Debug)]
pub struct Dispatch {
    /// The stream the messages belong to.
    pub route: Route,
    /// `codex/event`, then possibly `notifications/progress`.
    pub messages: Vec<Value>,
    /// The finished turn for the waiting call.
    pub finished: Option<(oneshot::Sender<TurnEnd>, TurnEnd)>,
}

impl std::fmt::Debug for CallState {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("CallState")
            .field("thread_id", &self.thread_id)
            .field("progress", &self.progress)
            .finish_non_exhaustive()
    }
}

impl Calls {
    /// Registers a call; `false` when the id is already running (a reused id).
    pub fn insert(&mut self, id: RequestId, call: CallState) -> bool {
        if self.by_id.contains_key(&id) {
            return false;
        }
        self.by_id.insert(id, call);
        true
    }

    /// The call, if running.
    pub fn get_mut(&mut self, id: &RequestId) -> Option<&mut CallState> {
        self.by_id.get_mut(id)
    }

    /// Binds a call to its thread so that the thread's events reach it. Fails with the id of
    /// the call already driving that thread.
    pub fn bind_thread(&mut self, id: &RequestId, thread_id: &str) -> Result<(), RequestId> {
        if let Some(other) = self.by_thread.get(thread_id)
            && other != id
        {
            return Err(other.clone());
        }
        if let Some(call) = self.by_id.get_mut(id) {
            call.thread_id = Some(thread_id.to_string());
            self.by_thread.insert(thread_id.to_string(), id.clone());
        }
        Ok(())
    }

    /// The call driving `thread_id`.
    pub fn call_for_thread(&self, thread_id: &str) -> Option<&RequestId> {
        self.by_thread.get(thread_id)
    }

    /// Whether a call is driving `thread_id`.
    pub fn thread_busy(&self, thread_id: &str) -> bool {
        self.by_thread.contains_key(thread_id)
    }

    /// Unregisters a call.
    pub fn remove(&mut self, id: &RequestId) -> Option<CallState> {
        let call = self.by_id.remove(id)?;
        if let Some(thread_id) = &call.thread_id
            && self.by_thread.get(thread_id) == Some(id)
        {
            self.by_thread.remove(thread_id);
        }
        Some(call)
    }

    /// Routes one engine notification and updates the call it belongs to. The call's state
    /// follows the typed event; the `codex/event` payloads are its Codex events.
    pub fn dispatch(&mut self, notification: &ServerNotification) -> Dispatch {
        let events = self.codex.translate(notification);
        let call_id = notification_thread(notification)
            .and_then(|thread_id| self.by_thread.get(thread_id))
            .cloned();
        let Some((call_id, call)) =
            call_id.and_then(|id| self.by_id.get_mut(&id).map(|call| (id, call)))
        else {
            return Dispatch {
                route: Route::Standalone,
                messages: events
                    .into_iter()
                    .map(|event| event_message(event, None))
                    .collect(),
                finished: None,
            };
        };

        let finished = match notification {
            ServerNotification::ItemCompleted(ItemCompletedNotification {
                item:
                    ThreadItem {
                        details: ThreadItemDetails::AgentMessage { text, .. },
                        ..
                    },
                ..
            }) => {
                call.last_agent_message = Some(text.clone());
                None
            }
            ServerNotification::TurnCompleted(TurnNotification { turn, .. }) => {
                let end = TurnEnd {
                    status: turn.status,
                    error: turn.error.as_ref().map(|error| error.message.clone()),
                };
                call.turn_done.take().map(|done| (done, end))
            }
            _ => None,
        };
        let mut messages: Vec<Value> = events
            .into_iter()
            .map(|event| event_message(event, Some(&call_id)))
            .collect();
        if let (Some(token), Some(message)) = (&call.progress_token, progress_message(notification))
        {
            call.progress += 1;
            messages.push(notification_message(
                "notifications/progress",
                json!({"progressToken": token, "progress": call.progress, "message": message}),
            ));
        }
        Dispatch {
            route: Route::Request(call_id),
            messages,
            finished,
        }
    }

    /// The `codex/event` announcing an approval question, on the stream of the call whose
    /// turn asks it.
    pub fn approval_event(&mut self, request: &ApprovalRequest) -> Option<(Route, Value)> {
        let event = self.codex.approval(request)?;
        let call_id = self.by_thread.get(&event.thread_id).cloned();
        let route = call_id.clone().map_or(Route::Standalone, Route::Request);
        Some((route, event_message(event, call_id.as_ref())))
    }

    /// The `codex/event`s that open a new conversation (`session_configured`,
    /// `mcp_startup_complete`), for the call that started it.
    pub fn session_events(&self, call_id: &RequestId, started: &ThreadStartResponse) -> Vec<Value> {
        session_configured(started)
            .into_iter()
            .map(|msg| {
                let event = CodexEvent {
                    thread_id: started.thread.id.clone(),
                    id: String::new(),
                    msg,
                };
                event_message(event, Some(call_id))
            })
            .collect()
    }
}

/// One `codex/event` notification.
pub fn event_message(event: CodexEvent, call: Option<&RequestId>) -> Value {
    let params = CodexEventNotification {
        meta: CodexEventMeta {
            request_id: call.cloned(),
            thread_id: event.thread_id,
        },
        id: event.id,
        msg: event.msg,
    };
    match serde_json::to_value(&params) {
        Ok(params) => notification_message(EVENT_METHOD, params),
        Err(error) => {
            tracing::error!(%error, "codex event not serializable");
            notification_message(EVENT_METHOD, json!({}))
        }
    }
}

/// A short progress text for events worth reporting; deltas are not (they come by the
/// thousand and the `codex/event` stream already carries them).
fn progress_message(notification: &ServerNotification) -> Option<String> {
    let method = notification.method();
    let item = match notification {
        ServerNotification::AgentMessageDelta(_)
        | ServerNotification::ReasoningSummaryTextDelta(_)
        | ServerNotification::ReasoningTextDelta(_)
        | ServerNotification::CommandExecutionOutputDelta(_)
        | ServerNotification::FileChangeOutputDelta(_)
        | ServerNotification::PlanDelta(_)
        | ServerNotification::CommandExecOutputDelta(_) => return None,
        ServerNotification::ItemStarted(started) => Some(&started.item),
        ServerNotification::ItemCompleted(completed) => Some(&completed.item),
        _ => None,
    };
    Some(match item.map(item_type) {
        Some(item_type) => format!("{method}: {item_type}"),
        None => method.to_string(),
    })
}

/// The wire `type` of an item (`agentMessage`, `commandExecution`, ...).
fn item_type(item: &ThreadItem) -> String {
    match serde_json::to_value(&item.details) {
        Ok(value) => value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string(),
        Err(_) => "unknown".to_string(),
    }
}

/// Engine `error` and `warning` events also go out as `notifications/message` when the
/// session's log level lets them through.
pub fn log_message_for(event: &ServerNotification, min_rank: usize) -> Option<Value> {
    let (level, data) = match event {
        ServerNotification::Error(params) => ("error", serde_json::to_value(params)),
        ServerNotification::Warning(params) => ("warning", serde_json::to_value(params)),
        ServerNotification::ConfigWarning(params) => ("warning", serde_json::to_value(params)),
        _ => return None,
    };
    if log_level_rank(level)? < min_rank {
        return None;
    }
    let data = match data {
        Ok(data) => data,
        Err(error) => {
            tracing::error!(%error, "engine event not serializable");
            return None;
        }
    };
    Some(notification_message(
        "notifications/message",
        json!({"level": level, "logger": "tandem", "data": data}),
    ))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn event(value: Value) -> ServerNotification {
        serde_json::from_value(value).expect("server notification")
    }

    fn turn_completed(thread_id: &str) -> ServerNotification {
        event(json!({
            "method": "turn/completed",
            "params": {"threadId": thread_id, "turn": {
                "id": "turn-1", "items": [], "status": "completed",
            }},
        }))
    }

    #[test]
    fn events_of_a_running_call_carry_its_request_id_and_progress() {
        let mut calls = Calls::default();
        let id = RequestId::Integer(7);
        assert!(calls.insert(id.clone(), CallState::new(Some(json!("tok")))));
        assert_eq!(calls.bind_thread(&id, "thread-1"), Ok(()));
        let (sender, mut receiver) = oneshot::channel();
        calls.get_mut(&id).expect("call").turn_done = Some(sender);

        let delta = calls.dispatch(&event(json!({
            "method": "item/agentMessage/delta",
            "params": {"threadId": "thread-1", "turnId": "turn-1", "itemId": "m", "delta": "Hi"},
        })));
        assert_eq!(delta.route, Route::Request(id.clone()));
        assert_eq!(
            delta.messages,
            vec![json!({
                "jsonrpc": "2.0",
                "method": "codex/event",
                "params": {
                    "_meta": {"requestId": 7, "threadId": "thread-1"},
                    "id": "turn-1",
                    "msg": {"type": "agent_message_content_delta", "thread_id": "thread-1", "turn_id": "turn-1", "item_id": "m", "delta": "Hi"},
                },
            })]
        );

        let completed = calls.dispatch(&event(json!({
            "method": "item/completed",
            "params": {"threadId": "thread-1", "turnId": "turn-1", "completedAtMs": 2, "item": {"type": "agentMessage", "id": "m", "text": "Hi there"}},
        })));
        // item_completed, agent_message, then the progress notification.
        assert_eq!(completed.messages.len(), 3);
        assert_eq!(
            completed.messages[0]["params"]["msg"]["type"],
            "item_completed"
        );
        assert_eq!(
            completed.messages[1]["params"]["msg"],
            json!({"type": "agent_message", "message": "Hi there", "phase": null, "memory_citation": null})
        );
        assert_eq!(
            completed.messages[2]["params"],
            json!({"progressToken": "tok", "progress": 1, "message": "item/completed: agentMessage"})
        );
        let done = calls.dispatch(&turn_completed("thread-1"));
        assert_eq!(done.messages[0]["params"]["msg"]["type"], "task_complete");
        assert_eq!(
            done.messages[0]["params"]["msg"]["last_agent_message"],
            "Hi there"
        );
        assert_eq!(done.messages[1]["params"]["progress"], 2);
        let (sender, turn) = done.finished.expect("finished");
        assert!(sender.send(turn).is_ok());
        assert_eq!(
            receiver.try_recv(),
            Ok(TurnEnd {
                status: TurnStatus::Completed,
                error: None,
            })
        );
        assert_eq!(
            calls.remove(&id).and_then(|call| call.last_agent_message),
            Some("Hi there".to_string())
        );
        assert!(!calls.thread_busy("thread-1"));
    }

    #[test]
    fn compaction_and_terminal_interaction_go_to_the_call_of_their_thread() {
        let mut calls = Calls::default();
        let id = RequestId::Integer(3);
        assert!(calls.insert(id.clone(), CallState::new(Some(json!("tok")))));
        assert_eq!(calls.bind_thread(&id, "thread-1"), Ok(()));
        let compacted = calls.dispatch(&event(json!({
            "method": "thread/compacted",
            "params": {"threadId": "thread-1", "turnId": "turn-1"},
        })));
        assert_eq!(compacted.route, Route::Request(id.clone()));
        assert_eq!(
            compacted.messages[0]["params"],
            json!({"_meta": {"requestId": 3, "threadId": "thread-1"}, "id": "turn-1", "msg": {"type": "context_compacted"}})
        );
        let interaction = calls.dispatch(&event(json!({
            "method": "item/commandExecution/terminalInteraction",
            "params": {"threadId": "thread-1", "turnId": "turn-1", "itemId": "c", "processId": "1", "stdin": ""},
        })));
        assert_eq!(interaction.route, Route::Request(id.clone()));
        assert_eq!(
            interaction.messages[0]["params"]["msg"]["type"],
            "terminal_interaction"
        );
        // A plan delta is a delta: a `codex/event`, and no progress notification.
        let delta = calls.dispatch(&event(json!({
            "method": "item/plan/delta",
            "params": {"threadId": "thread-1", "turnId": "turn-1", "itemId": "turn-1-plan", "delta": "x"},
        })));
        assert_eq!(delta.route, Route::Request(id));
        assert_eq!(delta.messages.len(), 1);
        assert_eq!(delta.messages[0]["params"]["msg"]["type"], "plan_delta");
    }

    #[test]
    fn events_of_other_threads_are_unrelated() {
        let mut calls = Calls::default();
        let dispatch = calls.dispatch(&turn_completed("thread-9"));
        assert_eq!(dispatch.route, Route::Standalone);
        assert_eq!(
            dispatch.messages[0]["params"]["_meta"],
            json!({"requestId": null, "threadId": "thread-9"})
        );
        assert_eq!(
            dispatch.messages[0]["params"]["msg"]["type"],
            "task_complete"
        );
        assert!(dispatch.finished.is_none());
    }

    #[test]
    fn a_thread_is_driven_by_one_call_at_a_time() {
        let mut calls = Calls::default();
        let first = RequestId::Integer(1);
        let second = RequestId::String("b".into());
        assert!(calls.insert(first.clone(), CallState::new(None)));
        assert!(calls.insert(second.clone(), CallState::new(None)));
        assert!(!calls.insert(first.clone(), CallState::new(None)));
        assert_eq!(calls.bind_thread(&first, "t"), Ok(()));
        assert_eq!(calls.bind_thread(&second, "t"), Err(first.clone()));
        assert_eq!(calls.call_for_thread("t"), Some(&first));
        calls.remove(&first);
        assert_eq!(calls.bind_thread(&second, "t"), Ok(()));
    }
}
