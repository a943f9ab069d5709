//! The session table of the HTTP transport: cryptographically random `Mcp-Session-Id`s,
//! lookup, DELETE, and idle eviction.
//!
//! A session is idle when it has no open connection (SSE stream or waiting JSON POST) and
//! has seen no request for the TTL. Evicting it is the same as a DELETE: running turns are
//! interrupted and flushed, pending elicitations withdrawn, its threads released, and its id
//! answers 404 from then on.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use crate::mcp::http::streams::StreamHub;
use crate::mcp::session::McpSession;
use tandem_core::sync::lock;

/// One HTTP MCP session.
pub struct HttpSession {
    /// The protocol session.
    pub session: Arc<McpSession>,
    /// Its SSE streams.
    pub hub: Arc<StreamHub>,
}

impl HttpSession {
    /// Wraps a session and its hub.
    pub fn new(session: Arc<McpSession>, hub: Arc<StreamHub>) -> Self {
        Self { session, hub }
    }

    /// Records activity now.
    pub fn touch(&self) {
        self.hub.touch();
    }

    fn idle_for(&self, now: Instant) -> Option<Duration> {
        self.hub.idle_for(now)
    }

    /// Ends the session: its turns, then its streams.
    pub async fn close(&self) {
        self.session.close().await;
        self.hub.close_all();
    }
}

/// Live sessions by id.
#[derive(Default)]
pub struct SessionTable {
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
}

impl SessionTable {
    /// Adds a session under `id`.
    pub fn insert(&self, id: String, session: Arc<HttpSession>) {
        lock(&self.sessions).insert(id, session);
    }

    /// Adds a session under `id` unless `limit` sessions are live; `false` when it was not
    /// added.
    pub fn insert_within(&self, id: String, session: Arc<HttpSession>, limit: usize) -> bool {
        let mut sessions = lock(&self.sessions);
        if sessions.len() >= limit {
            return false;
        }
        sessions.insert(id, session);
        true
    }

    /// The session with `id`, if live.
    pub fn get(&self, id: &str) -> Option<Arc<HttpSession>> {
        lock(&self.sessions).get(id).cloned()
    }

    /// Removes and returns the session with `id`.
    pub fn remove(&self, id: &str) -> Option<Arc<HttpSession>> {
        lock(&self.sessions).remove(id)
    }

    /// Removes every session idle for at least `ttl` and returns them (to be closed).
    pub fn take_idle(&self, ttl: Duration) -> Vec<(String, Arc<HttpSession>)> {
        let now = Instant::now();
        let mut idle = Vec::new();
        lock(&self.sessions).retain(|id, session| {
            let expired = session
                .idle_for(now)
                .is_some_and(|idle_for| idle_for >= ttl);
            if expired {
                idle.push((id.clone(), session.clone()));
            }
            !expired
        });
        idle
    }

    /// Every session with its id.
    pub fn snapshot(&self) -> Vec<(String, Arc<HttpSession>)> {
        lock(&self.sessions)
            .iter()
            .map(|(id, session)| (id.clone(), session.clone()))
            .collect()
    }

    /// How many sessions are live.
    #[allow(clippy::len_without_is_empty, reason = "only the count is reported")]
    pub fn len(&self) -> usize {
        lock(&self.sessions).len()
    }

    /// Removes and returns every session.
    pub fn drain(&self) -> Vec<Arc<HttpSession>> {
        lock(&self.sessions)
            .drain()
            .map(|(_, session)| session)
            .collect()
    }
}

/// A new session id: 32 bytes from the kernel's CSPRNG, hex-encoded (visible ASCII only).
pub fn new_session_id() -> std::io::Result<String> {
    crate::listener_auth::random_hex()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_are_long_random_and_visible_ascii() {
        let first = new_session_id().expect("id");
        let second = new_session_id().expect("id");
        assert_eq!(first.len(), 64);
        assert_ne!(first, second);
        assert!(first.bytes().all(|byte| (0x21..=0x7e).contains(&byte)));
    }
}
