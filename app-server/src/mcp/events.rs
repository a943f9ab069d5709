//! Engine events → MCP notifications.
//!
//! Every engine notification about a thread whose turn a tool call is running goes out as a
//! `codex/event` notification with `_meta.requestId` set to that call's request id, on the
//! call's stream; when the call carries a progress token, non-delta events also become
//! `notifications/progress` with a strictly increasing `progress`. Events about no running
//! call go out unrelated (the GET stream over HTTP).
//!
//! `codex/event` params: `{"_meta": {"requestId", "threadId"}, "msg": {"type": <app-server
//! method>, ...<its params>}}`, so that the payload is the same as the app-server protocol's.

use std::collections::HashMap;

use app_server_protocol::item::{ThreadItem, ThreadItemDetails};
use app_server_protocol::jsonrpc::RequestId;
use app_server_protocol::notifications::{ItemCompletedNotification, TurnNotification};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::TurnStatus;
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use crate::mcp::output::Route;
use crate::mcp::protocol::notification as notification_message;

/// Name of the notification that carries engine events.
pub const EVENT_METHOD: &str = "codex/event";

/// The tool calls of one session that run (or are about to run) a turn.
#[derive(Default)]
pub struct Calls {
    by_id: HashMap<RequestId, CallState>,
    by_thread: HashMap<String, RequestId>,
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
    /// follows the typed event; the `codex/event` payload is its app-server serialization.
    pub fn dispatch(&mut self, notification: &ServerNotification) -> Dispatch {
        let method = notification.method();
        let params = wire_params(notification);
        let thread_id = params
            .get("threadId")
            .and_then(Value::as_str)
            .map(str::to_string);
        let call_id = thread_id
            .as_deref()
            .and_then(|thread_id| self.by_thread.get(thread_id))
            .cloned();
        let Some((call_id, call)) =
            call_id.and_then(|id| self.by_id.get_mut(&id).map(|call| (id, call)))
        else {
            return unrelated(event_message(method, params, None, thread_id.as_deref()));
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
        let progress_message = progress_message(notification);
        let mut messages = vec![event_message(
            method,
            params,
            Some(&call_id),
            thread_id.as_deref(),
        )];
        if let (Some(token), Some(message)) = (&call.progress_token, progress_message) {
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
}

/// The `params` object of a notification as the app-server protocol serializes it.
fn wire_params(notification: &ServerNotification) -> Map<String, Value> {
    match serde_json::to_value(notification) {
        Ok(Value::Object(mut message)) => match message.remove("params") {
            Some(Value::Object(params)) => params,
            Some(other) => Map::from_iter([("value".to_string(), other)]),
            None => Map::new(),
        },
        Ok(other) => Map::from_iter([("value".to_string(), other)]),
        Err(error) => {
            tracing::error!(%error, "engine event not serializable");
            Map::new()
        }
    }
}

fn unrelated(message_params: Value) -> Dispatch {
    Dispatch {
        route: Route::Standalone,
        messages: vec![notification_message(EVENT_METHOD, message_params)],
        finished: None,
    }
}

/// The `codex/event` params for one engine event, or the whole message when `call` is set.
fn event_message(
    method: &str,
    params: Map<String, Value>,
    call: Option<&RequestId>,
    thread_id: Option<&str>,
) -> Value {
    let mut msg = Map::new();
    msg.insert("type".to_string(), Value::String(method.to_string()));
    msg.extend(params);
    let mut meta = Map::new();
    if let Some(call) = call {
        meta.insert("requestId".to_string(), json!(call));
    }
    if let Some(thread_id) = thread_id {
        meta.insert("threadId".to_string(), json!(thread_id));
    }
    let params = json!({"_meta": meta, "msg": msg});
    match call {
        Some(_) => notification_message(EVENT_METHOD, params),
        None => params,
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
                    "msg": {"type": "item/agentMessage/delta", "threadId": "thread-1", "turnId": "turn-1", "itemId": "m", "delta": "Hi"},
                },
            })]
        );

        let completed = calls.dispatch(&event(json!({
            "method": "item/completed",
            "params": {"threadId": "thread-1", "turnId": "turn-1", "completedAtMs": 2, "item": {"type": "agentMessage", "id": "m", "text": "Hi there"}},
        })));
        assert_eq!(completed.messages.len(), 2);
        assert_eq!(
            completed.messages[1]["params"],
            json!({"progressToken": "tok", "progress": 1, "message": "item/completed: agentMessage"})
        );
        let done = calls.dispatch(&turn_completed("thread-1"));
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
    fn events_of_other_threads_are_unrelated() {
        let mut calls = Calls::default();
        let dispatch = calls.dispatch(&turn_completed("thread-9"));
        assert_eq!(dispatch.route, Route::Standalone);
        assert_eq!(
            dispatch.messages[0]["params"]["_meta"],
            json!({"threadId": "thread-9"})
        );
        assert_eq!(
            dispatch.messages[0]["params"]["msg"]["type"],
            "turn/completed"
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
