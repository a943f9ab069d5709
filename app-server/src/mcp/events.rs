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

use app_server_protocol::jsonrpc::RequestId;
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use crate::mcp::output::Route;
use crate::mcp::protocol::notification;

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
    /// `completed`, `interrupted` or `failed`.
    pub status: String,
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

    /// Routes one engine notification (`{"method", "params"}` as the app-server protocol
    /// serializes it) and updates the call it belongs to.
    pub fn dispatch(&mut self, event: Value) -> Dispatch {
        let Value::Object(mut event) = event else {
            return unrelated(json!({"type": "unknown", "value": event}));
        };
        let method = match event.remove("method") {
            Some(Value::String(method)) => method,
            _ => "unknown".to_string(),
        };
        let params = match event.remove("params") {
            Some(Value::Object(params)) => params,
            Some(other) => Map::from_iter([("value".to_string(), other)]),
            None => Map::new(),
        };
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
            return unrelated(event_message(&method, params, None, thread_id.as_deref()));
        };

        if method == "item/completed"
            && params.get("item").and_then(|item| item.get("type")) == Some(&json!("agentMessage"))
            && let Some(text) = params
                .get("item")
                .and_then(|item| item.get("text"))
                .and_then(Value::as_str)
        {
            call.last_agent_message = Some(text.to_string());
        }
        let finished = if method == "turn/completed" {
            let turn = params.get("turn");
            let end = TurnEnd {
                status: turn
                    .and_then(|turn| turn.get("status"))
                    .and_then(Value::as_str)
                    .unwrap_or("unknown")
                    .to_string(),
                error: turn
                    .and_then(|turn| turn.pointer("/error/message"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
            };
            call.turn_done.take().map(|done| (done, end))
        } else {
            None
        };
        let progress_message = progress_message(&method, &params);
        let mut messages = vec![event_message(
            &method,
            params,
            Some(&call_id),
            thread_id.as_deref(),
        )];
        if let (Some(token), Some(message)) = (&call.progress_token, progress_message) {
            call.progress += 1;
            messages.push(notification(
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

fn unrelated(message_params: Value) -> Dispatch {
    Dispatch {
        route: Route::Standalone,
        messages: vec![notification(EVENT_METHOD, message_params)],
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
        Some(_) => notification(EVENT_METHOD, params),
        None => params,
    }
}

/// A short progress text for events worth reporting; deltas are not (they come by the
/// thousand and the `codex/event` stream already carries them).
fn progress_message(method: &str, params: &Map<String, Value>) -> Option<String> {
    if method.ends_with("Delta") || method.ends_with("delta") {
        return None;
    }
    let item_type = params
        .get("item")
        .and_then(|item| item.get("type"))
        .and_then(Value::as_str);
    Some(match item_type {
        Some(item_type) => format!("{method}: {item_type}"),
        None => method.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn turn_completed(thread_id: &str) -> Value {
        json!({
            "method": "turn/completed",
            "params": {"threadId": thread_id, "turn": {
                "id": "turn-1", "items": [], "status": "completed",
            }},
        })
    }

    #[test]
    fn events_of_a_running_call_carry_its_request_id_and_progress() {
        let mut calls = Calls::default();
        let id = RequestId::Integer(7);
        assert!(calls.insert(id.clone(), CallState::new(Some(json!("tok")))));
        assert_eq!(calls.bind_thread(&id, "thread-1"), Ok(()));
        let (sender, mut receiver) = oneshot::channel();
        calls.get_mut(&id).expect("call").turn_done = Some(sender);

        let delta = calls.dispatch(json!({
            "method": "item/agentMessage/delta",
            "params": {"threadId": "thread-1", "turnId": "turn-1", "itemId": "m", "delta": "Hi"},
        }));
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

        let completed = calls.dispatch(json!({
            "method": "item/completed",
            "params": {"threadId": "thread-1", "turnId": "turn-1", "item": {"type": "agentMessage", "id": "m", "text": "Hi there"}},
        }));
        assert_eq!(completed.messages.len(), 2);
        assert_eq!(
            completed.messages[1]["params"],
            json!({"progressToken": "tok", "progress": 1, "message": "item/completed: agentMessage"})
        );
        let done = calls.dispatch(turn_completed("thread-1"));
        assert_eq!(done.messages[1]["params"]["progress"], 2);
        let (sender, turn) = done.finished.expect("finished");
        assert!(sender.send(turn).is_ok());
        assert_eq!(
            receiver.try_recv(),
            Ok(TurnEnd {
                status: "completed".to_string(),
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
        let dispatch = calls.dispatch(turn_completed("thread-9"));
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
