//! Helpers for the utility-request tests: a started server, `command/exec` output, and
//! process liveness.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use serde_json::{Value, json};
use tandem_tests::server::TestServer;

/// A server with `config_toml`, initialized.
pub async fn started_server(config_toml: &str) -> TestServer {
    let mut server = TestServer::spawn(config_toml).await;
    server.initialize().await;
    server
}

/// The `dangerFullAccess` sandbox policy.
pub fn full_access() -> Value {
    json!({"type": "dangerFullAccess"})
}

/// Reads messages in order until the response to `id`; returns the `command/exec/outputDelta`
/// params seen before it and the response. Deltas after the response would be a bug, so the
/// response ends the collection.
pub async fn exec_until_response(
    server: &mut TestServer,
    id: i64,
) -> (Vec<Value>, Result<Value, Value>) {
    let mut deltas = Vec::new();
    loop {
        let message = server.next_message().await;
        if message.get("method") == Some(&json!("command/exec/outputDelta")) {
            deltas.push(message["params"].clone());
            continue;
        }
        if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
            let result = match message.get("result") {
                Some(result) => Ok(result.clone()),
                None => Err(message["error"].clone()),
            };
            return (deltas, result);
        }
        panic!("unexpected message while waiting for the response to {id}: {message}");
    }
}

/// The decoded bytes of the `stream` deltas, in order, as text.
pub fn decode(deltas: &[Value], stream: &str) -> String {
    let bytes: Vec<u8> = deltas
        .iter()
        .filter(|delta| delta["stream"] == stream)
        .flat_map(|delta| {
            BASE64
                .decode(delta["deltaBase64"].as_str().unwrap())
                .unwrap()
        })
        .collect();
    String::from_utf8(bytes).unwrap()
}

/// Whether `pid` is dead: no such process, or a zombie waiting to be reaped by whoever
/// inherited it.
pub fn process_is_gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
        Err(_) => true,
    }
}
