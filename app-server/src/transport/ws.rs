//! WebSocket framing of an app-server connection on a listener (`--listen ws://` and
//! `unix://`, where the Unix socket also carries WebSocket): one JSON-RPC message per text
//! frame, in both directions.

use axum::extract::ws::{Message, WebSocket};
use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;

use crate::connection::Connection;

/// Reads text frames into `connection` until the client closes, the socket fails, or `stop`
/// resolves; binary frames are not messages and are ignored. Ping and pong are answered by
/// the WebSocket layer.
pub async fn read_frames(
    stream: &mut futures::stream::SplitStream<WebSocket>,
    connection: &Connection,
    stop: impl Future<Output = ()>,
) {
    let mut stop = std::pin::pin!(stop);
    loop {
        let frame = tokio::select! {
            frame = stream.next() => frame,
            () = &mut stop => return,
        };
        match frame {
            Some(Ok(Message::Text(text))) => connection.on_line(text.as_str()).await,
            Some(Ok(Message::Binary(_))) => {
                tracing::warn!("ignoring a binary WebSocket frame: messages are text frames");
            }
            Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
            Some(Ok(Message::Close(_))) | None => return,
            Some(Err(error)) => {
                tracing::debug!(%error, "WebSocket connection failed");
                return;
            }
        }
    }
}

/// Sends each queued line as one text frame, flushing once per batch of lines already
/// queued; closes the socket when the queue ends (every sender dropped).
pub async fn write_frames(
    mut sink: futures::stream::SplitSink<WebSocket, Message>,
    mut lines: mpsc::Receiver<String>,
) {
    while let Some(line) = lines.recv().await {
        if sink.feed(Message::Text(line.into())).await.is_err() {
            return;
        }
        while let Ok(line) = lines.try_recv() {
            if sink.feed(Message::Text(line.into())).await.is_err() {
                return;
            }
        }
        if sink.flush().await.is_err() {
            return;
        }
    }
    let _ = sink.close().await;
}
