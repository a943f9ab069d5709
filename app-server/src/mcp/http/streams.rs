//! The SSE streams of one HTTP MCP session on this node, and the routing of messages onto
//! them.
//!
//! Stream 0 is the standalone (GET) stream; every POST answered with SSE gets the next
//! number. Event ids are `<stream>/<seq>`, unique within the session, and each stream keeps
//! its last events in a bounded buffer so that a client can resume it with `GET` +
//! `Last-Event-ID`. A message goes to exactly one stream: its request's POST stream while
//! that is open, else the GET stream. A POST answered with plain JSON has no stream; its
//! related notifications go to the GET stream. The server keeps the GET stream's events in
//! the session stores' event store ([`StreamHub::route_here`] hands them back), so that one
//! path serves it with or without `--redis`; the hub's own standalone buffer serves the
//! tests of the routing rules.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use app_server_protocol::jsonrpc::RequestId;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
// Tokio's clock, so that tests can pause and advance it through the idle TTL.
use tokio::time::Instant;

use crate::mcp::output::Route;
use tandem_core::sync::lock;

/// The standalone stream's number.
pub const STANDALONE: u64 = 0;
/// A live connection's queue holds this many replay buffers.
const LIVE_QUEUE_FACTOR: usize = 16;
/// How many finished POST streams stay resumable.
const FINISHED_KEPT: usize = 64;

/// One SSE event ready to write.
#[derive(Debug, Clone, PartialEq)]
pub struct SseEvent {
    /// `<stream>/<seq>`.
    pub id: String,
    /// The JSON text; empty for a priming event.
    pub data: String,
}

/// A live connection's receiving end, plus a guard that counts it as open.
pub struct Attached {
    /// Events for this connection (replayed ones first).
    pub events: mpsc::Receiver<SseEvent>,
    /// Counts the connection as open while alive.
    pub guard: ConnectionGuard,
}

/// Counts one open connection of a session (for idle eviction); when it closes, the session
/// counts as active at that moment.
pub struct ConnectionGuard {
    open: Arc<AtomicUsize>,
    last_active: Arc<Mutex<Instant>>,
}

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        *lock(&self.last_active) = Instant::now();
        self.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Why a resume failed.
#[derive(Debug, PartialEq)]
pub enum ResumeError {
    /// The id is not `<stream>/<seq>`.
    Malformed,
    /// No such stream (never existed or evicted).
    UnknownStream,
    /// The standalone stream already has a connection.
    Busy,
}

/// All streams of one session.
pub struct StreamHub {
    state: Mutex<HubState>,
    replay_limit: usize,
    open: Arc<AtomicUsize>,
    last_active: Arc<Mutex<Instant>>,
}

#[derive(Default)]
struct HubState {
    next_stream: u64,
    streams: HashMap<u64, StreamState>,
    routes: HashMap<RequestId, RequestRoute>,
    finished: VecDeque<u64>,
    closed: bool,
}

enum RequestRoute {
    Sse(u64),
    Json(oneshot::Sender<Value>),
}

#[derive(Default)]
struct StreamState {
    next_seq: u64,
    buffer: VecDeque<SseEvent>,
    /// Highest sequence number handed to a live connection.
    delivered: u64,
    live: Option<mpsc::Sender<SseEvent>>,
    finished: bool,
}

impl StreamState {
    fn push(&mut self, stream: u64, data: String, replay_limit: usize) {
        self.next_seq += 1;
        let event = SseEvent {
            id: format!("{stream}/{}", self.next_seq),
            data,
        };
        self.buffer.push_back(event.clone());
        while self.buffer.len() > replay_limit {
            self.buffer.pop_front();
        }
        if let Some(live) = &self.live {
            match live.try_send(event) {
                Ok(()) => self.delivered = self.next_seq,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    // The client stopped reading: end its connection rather than queue
                    // without bound; it can resume from its last event id.
                    tracing::info!(stream, "SSE client too far behind; closing its connection");
                    self.live = None;
                }
                Err(mpsc::error::TrySendError::Closed(_)) => self.live = None,
            }
        }
    }

    fn replay_after(&self, seq: u64, sender: &mpsc::Sender<SseEvent>) {
        for event in &self.buffer {
            if event_seq(&event.id).is_some_and(|event_seq| event_seq > seq) {
                let _ = sender.try_send(event.clone());
            }
        }
    }
}

fn event_seq(id: &str) -> Option<u64> {
    id.split_once('/')?.1.parse().ok()
}

/// Parses `<stream>/<seq>`.
pub fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, seq) = id.split_once('/')?;
    Some((stream.parse().ok()?, seq.parse().ok()?))
}

impl StreamHub {
    /// A hub keeping `replay_limit` events per stream. The standalone stream's state is made
    /// when it is first used: the server keeps that stream in its event store, so an idle
    /// session's hub allocates nothing.
    pub fn new(replay_limit: usize) -> Self {
        let state = HubState {
            next_stream: STANDALONE + 1,
            ..HubState::default()
        };
        Self {
            state: Mutex::new(state),
            replay_limit: replay_limit.max(1),
            open: Arc::new(AtomicUsize::new(0)),
            last_active: Arc::new(Mutex::new(Instant::now())),
        }
    }

    /// Records activity now (a request arrived).
    pub fn touch(&self) {
        *lock(&self.last_active) = Instant::now();
    }

    /// How long the session has been idle at `now`: `None` while a connection is open,
    /// else the time since the last request or the last connection closing.
    pub fn idle_for(&self, now: Instant) -> Option<std::time::Duration> {
        if self.open_connections() > 0 {
            return None;
        }
        Some(now.saturating_duration_since(*lock(&self.last_active)))
    }

    /// How many events a live connection may have queued before a client that stopped
    /// reading is disconnected: sixteen replay buffers (16,384 events by default), far more
    /// than a burst of deltas between two reads.
    fn live_capacity(&self) -> usize {
        self.replay_limit * LIVE_QUEUE_FACTOR
    }

    /// How many connections (SSE streams, waiting JSON POSTs) are open.
    pub fn open_connections(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    /// Counts a connection as open while the guard lives.
    pub fn connection_guard(&self) -> ConnectionGuard {
        self.open.fetch_add(1, Ordering::Relaxed);
        ConnectionGuard {
            open: self.open.clone(),
            last_active: self.last_active.clone(),
        }
    }

    /// Whether `id` has a route (a request with that id is in flight).
    pub fn has_route(&self, id: &RequestId) -> bool {
        lock(&self.state).routes.contains_key(id)
    }

    /// Opens a POST SSE stream for request `id`. With `priming`, the first event is an empty
    /// one (`<stream>/0`) that gives the client an id to resume from.
    #[cfg(test)]
    pub fn open_post_stream(&self, id: RequestId, priming: bool) -> Attached {
        self.open_post_stream_as(id, priming, None)
    }

    /// [`StreamHub::open_post_stream`] under stream number `number` (distributed sessions
    /// number their POST streams session-wide, across nodes) or the next local one.
    pub fn open_post_stream_as(
        &self,
        id: RequestId,
        priming: bool,
        number: Option<u64>,
    ) -> Attached {
        let (sender, events) = mpsc::channel(self.live_capacity());
        let mut state = lock(&self.state);
        let stream = number.unwrap_or(state.next_stream);
        state.next_stream = state.next_stream.max(stream) + 1;
        if priming {
            let _ = sender.try_send(SseEvent {
                id: format!("{stream}/0"),
                data: String::new(),
            });
        }
        let stream_state = StreamState {
            live: Some(sender),
            ..StreamState::default()
        };
        if state.closed {
            // The session is gone: the stream ends at once.
            drop(stream_state);
        } else {
            state.streams.insert(stream, stream_state);
            state.routes.insert(id, RequestRoute::Sse(stream));
        }
        drop(state);
        Attached {
            events,
            guard: self.connection_guard(),
        }
    }

    /// Registers a POST answered with JSON; the receiver gets the response.
    pub fn open_json_route(&self, id: RequestId) -> oneshot::Receiver<Value> {
        let (sender, receiver) = oneshot::channel();
        let mut state = lock(&self.state);
        if !state.closed {
            state.routes.insert(id, RequestRoute::Json(sender));
        }
        receiver
    }

    /// Attaches a GET connection to the standalone stream, delivering what it missed (the
    /// server serves its GET streams from the session stores' event store).
    #[cfg(test)]
    pub fn attach_standalone(&self) -> Result<Attached, ResumeError> {
        let mut state = lock(&self.state);
        let stream = state.streams.entry(STANDALONE).or_default();
        if stream.live.as_ref().is_some_and(|live| !live.is_closed()) {
            return Err(ResumeError::Busy);
        }
        let (sender, events) = mpsc::channel(self.live_capacity());
        stream.replay_after(stream.delivered, &sender);
        stream.delivered = stream.next_seq;
        stream.live = Some(sender);
        drop(state);
        Ok(Attached {
            events,
            guard: self.connection_guard(),
        })
    }

    /// Resumes a stream after `last_event_id`: replays the buffered later events, then stays
    /// attached if the stream is still open.
    pub fn resume(&self, last_event_id: &str) -> Result<Attached, ResumeError> {
        let (stream_id, seq) = parse_event_id(last_event_id).ok_or(ResumeError::Malformed)?;
        let mut state = lock(&self.state);
        let Some(stream) = state.streams.get_mut(&stream_id) else {
            return Err(ResumeError::UnknownStream);
        };
        if stream_id == STANDALONE && stream.live.as_ref().is_some_and(|live| !live.is_closed()) {
            return Err(ResumeError::Busy);
        }
        let (sender, events) = mpsc::channel(self.live_capacity());
        stream.replay_after(seq, &sender);
        if !stream.finished {
            stream.delivered = stream.next_seq;
            stream.live = Some(sender);
        }
        drop(state);
        Ok(Attached {
            events,
            guard: self.connection_guard(),
        })
    }

    /// Whether stream `number` is kept here (open, or finished and still resumable).
    pub fn has_stream(&self, number: u64) -> bool {
        lock(&self.state).streams.contains_key(&number)
    }

    /// Ends every stream (the session is gone).
    pub fn close_all(&self) {
        let mut state = lock(&self.state);
        state.closed = true;
        for stream in state.streams.values_mut() {
            stream.live = None;
            stream.finished = true;
        }
        state.routes.clear();
    }

    #[cfg(test)]
    fn route(&self, route: Route, message: Value) {
        let _ = self.route_here(route, message, true);
    }

    /// Routes `message` onto its request's stream; a message for the standalone stream is
    /// handed back instead when `standalone_here` is false (distributed sessions keep that
    /// stream in the shared event store).
    pub fn route_here(&self, route: Route, message: Value, standalone_here: bool) -> Option<Value> {
        let mut state = lock(&self.state);
        let request = match route {
            Route::Request(id) => Some(id),
            Route::Standalone => None,
        };
        let is_final = request
            .as_ref()
            .is_some_and(|id| is_response_to(&message, id));
        let target = request
            .as_ref()
            .and_then(|id| state.routes.get(id).map(|route| (id, route)));
        let stream = match target {
            Some((_, RequestRoute::Sse(stream))) => *stream,
            Some((id, RequestRoute::Json(_))) if is_final => {
                let id = id.clone();
                if let Some(RequestRoute::Json(sender)) = state.routes.remove(&id) {
                    let _ = sender.send(message);
                }
                return None;
            }
            // A response whose request has no route any more (the session is closing) has
            // nowhere to go: the GET stream never carries responses.
            None if is_final => {
                tracing::debug!("dropping a response whose request has no stream");
                return None;
            }
            _ => STANDALONE,
        };
        if stream == STANDALONE && !standalone_here {
            return (!state.closed).then_some(message);
        }
        let data = message.to_string();
        let replay_limit = self.replay_limit;
        let stream_state = if stream == STANDALONE && !state.closed {
            Some(state.streams.entry(STANDALONE).or_default())
        } else {
            state.streams.get_mut(&stream)
        };
        if let Some(stream_state) = stream_state {
            stream_state.push(stream, data, replay_limit);
        }
        if is_final && stream != STANDALONE {
            if let Some(id) = &request {
                state.routes.remove(id);
            }
            Self::finish(&mut state, stream);
        }
        None
    }

    fn finish(state: &mut HubState, stream: u64) {
        if let Some(stream_state) = state.streams.get_mut(&stream) {
            stream_state.finished = true;
            stream_state.live = None;
        }
        state.finished.push_back(stream);
        while state.finished.len() > FINISHED_KEPT {
            if let Some(old) = state.finished.pop_front() {
                state.streams.remove(&old);
            }
        }
    }

    /// Forgets request `id`'s route: its POST stream ends (and stays resumable), a waiting
    /// JSON POST learns that no response will come.
    pub fn abandon_request(&self, id: &RequestId) {
        let mut state = lock(&self.state);
        match state.routes.remove(id) {
            Some(RequestRoute::Sse(stream)) => Self::finish(&mut state, stream),
            // Dropping the sender tells the waiting POST that no response will come.
            Some(RequestRoute::Json(_)) | None => {}
        }
    }
}

/// Whether `message` is the response to request `id`.
fn is_response_to(message: &Value, id: &RequestId) -> bool {
    message.get("method").is_none()
        && (message.get("result").is_some() || message.get("error").is_some())
        && message
            .get("id")
            .is_some_and(|value| serde_json::to_value(id).is_ok_and(|id| &id == value))
}

#[cfg(test)]
#[path = "streams_tests.rs"]
mod tests;
