//! `tandem app-server proxy`: an IDE process's stdio joined to the daemon's Unix socket.
//!
//! By default the bytes are copied both ways unchanged, as the reference's proxy does: its
//! client speaks the socket's WebSocket framing over stdio. With `--jsonl` the proxy is the
//! WebSocket client itself and speaks plain JSONL on stdio (one line per text frame), so
//! that every JSONL client and the SDKs can share the daemon. The proxy ends when either side
//! closes: stdin EOF closes the connection (the daemon's turns go on), and the daemon closing
//! it ends the proxy.

use std::collections::HashSet;
use std::path::Path;

use futures::{SinkExt, StreamExt};
use tokio::io::AsyncWriteExt;
use tokio::net::UnixStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use crate::transport::stdio::{read_lines, write_lines};

/// Capacity of the queue of lines from the daemon to stdout.
const OUTPUT_QUEUE: usize = 1024;

/// Connects to the daemon's socket at `socket`, or explains how to start one.
async fn connect(socket: &Path) -> anyhow::Result<UnixStream> {
    UnixStream::connect(socket).await.map_err(|error| {
        anyhow::anyhow!(
            "cannot connect to the app-server daemon at {}: {error} (start it with `tandem app-server daemon start`)",
            socket.display()
        )
    })
}

/// Copies stdin to the socket and the socket to stdout, byte for byte.
pub async fn copy_bytes(socket: &Path) -> anyhow::Result<()> {
    let stream = connect(socket).await?;
    let (mut from_daemon, mut to_daemon) = stream.into_split();
    let mut stdin = super::pipes::stdin();
    let mut stdout = super::pipes::stdout();
    let upstream = async {
        let copied = tokio::io::copy(&mut stdin, &mut to_daemon).await;
        let _ = to_daemon.shutdown().await;
        copied
    };
    let downstream = async {
        let copied = tokio::io::copy(&mut from_daemon, &mut stdout).await;
        let _ = stdout.flush().await;
        copied
    };
    tokio::pin!(upstream);
    tokio::pin!(downstream);
    // The daemon closing the connection ends the proxy; stdin EOF half-closes it and waits
    // for the daemon to finish answering.
    tokio::select! {
        result = &mut downstream => { result?; }
        result = &mut upstream => {
            result?;
            downstream.await?;
        }
    }
    Ok(())
}

/// Speaks JSONL on stdio and WebSocket on the socket: each stdin line becomes one text frame,
/// each text frame one stdout line. At stdin EOF the connection stays open until every
/// request sent has been answered, then closes, as a stdio server answers what it read before
/// EOF. Lines longer than `max_line_bytes` are dropped with a warning.
///
/// `overrides` (the proxy's own `-c key=value` flags) are added to the `config` of each
/// `thread/start` and `thread/fork` the client sends, where the client did not set the key:
/// they are client overrides, which the server checks against its policy like any other.
pub async fn jsonl(
    socket: &Path,
    max_line_bytes: usize,
    overrides: &[String],
) -> anyhow::Result<()> {
    let overrides = thread_config(overrides)?;
    let stream = connect(socket).await?;
    let request = "ws://localhost/".into_client_request()?;
    let (socket_stream, _) = tokio_tungstenite::client_async(request, stream)
        .await
        .map_err(|error| anyhow::anyhow!("the daemon refused the connection: {error}"))?;
    let (mut frames_out, mut frames_in) = socket_stream.split();
    let (lines, written) = mpsc::channel::<String>(OUTPUT_QUEUE);
    let writer = tokio::spawn(write_lines(super::pipes::stdout(), written));
    let (input, mut input_lines) = mpsc::channel::<String>(OUTPUT_QUEUE);
    // Reads stdin until EOF, then waits: the loop below decides when the proxy ends. The
    // sender is dropped at EOF, which the loop sees as the end of input.
    let reader = async move {
        let read = read_lines(
            super::pipes::stdin(),
            max_line_bytes,
            async |line: String| {
                let _ = input.send(line).await;
            },
            async |_| tracing::warn!("dropping an over-long input line"),
        )
        .await;
        drop(input);
        if let Err(error) = read {
            tracing::warn!(%error, "stdin read failed");
        }
        std::future::pending::<()>().await;
    };
    let relay = async {
        // Ids of the requests sent and not answered yet.
        let mut outstanding = HashSet::new();
        let mut input_open = true;
        loop {
            tokio::select! {
                line = input_lines.recv(), if input_open => match line {
                    Some(line) => {
                        if let Some(id) = message_id(&line, true) {
                            outstanding.insert(id);
                        }
                        let line = with_thread_config(line, &overrides);
                        if frames_out.send(Message::text(line)).await.is_err() {
                            break;
                        }
                    }
                    None => {
                        input_open = false;
                        if outstanding.is_empty() {
                            break;
                        }
                    }
                },
                frame = frames_in.next() => match frame {
                    Some(Ok(Message::Text(text))) => {
                        if let Some(id) = message_id(text.as_str(), false) {
                            outstanding.remove(&id);
                        }
                        if lines.send(text.as_str().to_string()).await.is_err() {
                            break;
                        }
                        if !input_open && outstanding.is_empty() {
                            break;
                        }
                    }
                    Some(Ok(Message::Close(_)) | Err(_)) | None => break,
                    Some(Ok(_)) => {}
                },
            }
        }
        let _ = frames_out.close().await;
    };
    tokio::select! {
        () = relay => {}
        () = reader => {}
    }
    drop(lines);
    let _ = writer.await;
    Ok(())
}

/// The id of a request (`request` true: a message with `id` and `method`) or of a response
/// (`id` without `method`), as text.
fn message_id(line: &str, request: bool) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Probe {
        id: Option<serde_json::Value>,
        method: Option<serde::de::IgnoredAny>,
    }
    let probe: Probe = serde_json::from_str(line).ok()?;
    let id = probe.id.filter(|id| !id.is_null())?;
    (probe.method.is_some() == request).then(|| id.to_string())
}

/// The proxy's `-c key=value` flags as a thread's `config`: each value read as TOML, or as a
/// string when it is not TOML (as `-c` reads it).
fn thread_config(
    overrides: &[String],
) -> anyhow::Result<serde_json::Map<String, serde_json::Value>> {
    let mut config = serde_json::Map::new();
    for flag in overrides {
        let Some((key, value)) = flag.split_once('=') else {
            anyhow::bail!("-c {flag}: expected key=value");
        };
        let value = match toml::from_str::<toml::Table>(&format!("value = {value}")) {
            Ok(mut table) => match table.remove("value") {
                Some(value) => serde_json::to_value(value)?,
                None => serde_json::Value::String(value.to_string()),
            },
            Err(_) => serde_json::Value::String(value.to_string()),
        };
        config.insert(key.trim().to_string(), value);
    }
    Ok(config)
}

/// `line` with `overrides` added to the `config` of a `thread/start` or `thread/fork`
/// request, keys the client set winning; any other line unchanged.
fn with_thread_config(
    line: String,
    overrides: &serde_json::Map<String, serde_json::Value>,
) -> String {
    if overrides.is_empty() || !(line.contains("thread/start") || line.contains("thread/fork")) {
        return line;
    }
    let Ok(mut message) = serde_json::from_str::<serde_json::Value>(&line) else {
        return line;
    };
    let method = message["method"].as_str();
    if !matches!(method, Some("thread/start" | "thread/fork")) || message.get("id").is_none() {
        return line;
    }
    let Some(params) = message
        .as_object_mut()
        .map(|message| {
            message
                .entry("params")
                .or_insert_with(|| serde_json::json!({}))
        })
        .and_then(serde_json::Value::as_object_mut)
    else {
        return line;
    };
    let config = params
        .entry("config")
        .or_insert_with(|| serde_json::json!({}));
    if config.is_null() {
        *config = serde_json::json!({});
    }
    let Some(config) = config.as_object_mut() else {
        return line;
    };
    for (key, value) in overrides {
        config.entry(key.clone()).or_insert_with(|| value.clone());
    }
    message.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_flags_join_a_thread_starts_config_without_replacing_the_clients() {
        let overrides = thread_config(&[
            "model=\"m1\"".into(),
            "sandbox_mode=read-only".into(),
            "x.y=3".into(),
        ])
        .unwrap();
        let line = r#"{"id":1,"method":"thread/start","params":{"config":{"model":"mine"}}}"#;
        let rewritten: serde_json::Value =
            serde_json::from_str(&with_thread_config(line.to_string(), &overrides)).unwrap();
        assert_eq!(
            rewritten["params"]["config"],
            serde_json::json!({"model": "mine", "sandbox_mode": "read-only", "x.y": 3})
        );
        let other = r#"{"id":2,"method":"turn/start","params":{}}"#;
        assert_eq!(with_thread_config(other.to_string(), &overrides), other);
        assert!(thread_config(&["novalue".into()]).is_err());
    }
}
