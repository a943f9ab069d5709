//! Reading turns in the distributed MCP tests: the Codex event type of a `codex/event`
//! message, the messages of an SSE stream up to the end of a turn, a JSON-mode tool call on
//! one node, and waiting for a Redis key to expire.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "test support: a closed stream or a failed call must fail the test loudly"
)]

use std::time::Duration;

use serde_json::Value;

use crate::cluster::{Endpoint, Redis};
use crate::mcp::SseReader;

/// The Codex event type (`params.msg.type`) of a `codex/event` message; `""` for any other.
pub fn message_type(message: &Value) -> &str {
    message["params"]["msg"]["type"]
        .as_str()
        .unwrap_or_default()
}

/// The messages of `stream` up to and including the end of a turn: Codex ends a turn with
/// `task_complete` (completed or failed) or `turn_aborted`.
pub async fn until_turn_ends(stream: &mut SseReader) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let message = stream.next().await.expect("stream open").json();
        let done = matches!(message_type(&message), "task_complete" | "turn_aborted");
        seen.push(message);
        if done {
            return seen;
        }
    }
}

/// Sends `request` to `endpoint` in JSON mode for `session`; the answer (HTTP 200).
pub async fn json_call(endpoint: &Endpoint, session: &str, request: &Value) -> Value {
    let response = endpoint.post_json(session, request).send().await.unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

/// Waits until Redis no longer holds `key` (its expiry or release is the subject), for at
/// most 20 s.
pub async fn wait_until_gone(redis: &Redis, key: &str) {
    tokio::time::timeout(Duration::from_secs(20), async {
        while redis.cli(&["EXISTS", key]).await != "0" {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{key} disappears"));
}
