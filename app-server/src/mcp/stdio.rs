//! `tandem mcp-server` on stdio: one MCP session, newline-delimited JSON-RPC.
//!
//! A request in the 2026-07-28 form (`crate::mcp::modern`) needs no `initialize`: it is
//! served in a session of its own, closed after its answer, beside the `initialize`d session
//! of a 2025 client (which is unchanged).
//!
//! Requests run concurrently (a tool call lasts a whole turn, and the client must still be
//! able to ping, cancel or answer elicitations meanwhile); notifications and responses are
//! handled in order as they arrive. At most `app_server.request_queue_capacity` requests run at
//! once; one more is answered `-32001` (overloaded) at once, except `ping`, which is always
//! answered. A batch counts as one request. stdin EOF or a signal begins the shutdown
//! ([`crate::shutdown`]), after which the process ends within the grace period: the session's
//! calls are cancelled (a long `repo_index_refresh` stops at its next check), running turns are
//! interrupted and flushed, requests still running after [`DRAIN`] are abandoned, then the
//! writer drains and every task holding a shutdown guard has ended.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use app_server_protocol::jsonrpc::RequestId;
use serde_json::Value;
use tokio::sync::{Semaphore, mpsc};
use tokio_util::task::TaskTracker;

use crate::mcp::calls::ThreadOwners;
use crate::mcp::modern::{ModernSessionParts, is_modern_request, read_meta};
use crate::mcp::output::{Outbound, Route, StdioOutbound};
use crate::mcp::protocol::error_response;
use crate::mcp::session::{McpOptions, McpSession};
use crate::rpc_error;
use crate::shutdown::{DRAIN, Shutdown};
use crate::transport::stdio::{read_lines, write_lines};
use crate::transport::{DecodeError, IncomingMessage, decode_line};
use tandem_core::config::Config;
use tandem_core::principal::Principal;
use tandem_core::store::Store;
use tandem_core::sync::lock;

/// Capacity of the writer's queue.
const OUTPUT_QUEUE: usize = 4096;

/// Serves one MCP session on stdin/stdout until EOF or a signal.
pub async fn serve_stdio(config: Config, options: McpOptions) -> anyhow::Result<()> {
    let store = Arc::new(Store::open(&config.home)?);
    tandem_core::redact::register_known_secrets(store.redactor(), &config, &options.account);
    let max_line_bytes = config.app_server.max_line_bytes;
    let workers = Arc::new(Semaphore::new(
        config.app_server.request_queue_capacity.max(1),
    ));
    let shutdown = Shutdown::start();
    let (lines, written) = mpsc::channel::<String>(OUTPUT_QUEUE);
    let writer = {
        let guard = shutdown.guard();
        tokio::spawn(async move {
            let written = write_lines(crate::transport::pipes::stdout(), written).await;
            drop(guard);
            written
        })
    };
    let outbound: Arc<dyn Outbound> = Arc::new(StdioOutbound::new(lines));
    let config = Arc::new(config);
    let owners = Arc::new(ThreadOwners::default());
    let session = McpSession::new(
        "stdio".to_string(),
        Principal::local_user(),
        config.clone(),
        store.clone(),
        outbound.clone(),
        options.clone(),
        owners.clone(),
    );
    // 2026-07-28 requests, each in a session of its own, by request id (for cancellation).
    let modern: Arc<Mutex<HashMap<RequestId, Arc<McpSession>>>> = Arc::default();
    let modern_count = AtomicU64::new(0);
    let handlers = TaskTracker::new();
    tracing::info!("mcp-server serving stdio");

    let reading = read_lines(
        crate::transport::pipes::stdin(),
        max_line_bytes,
        async |line: String| match decode_line(&line) {
            // A request in the 2026 form is served without the session, in one of its own.
            Ok(IncomingMessage::Request { id, method, value }) if is_modern_request(&value) => {
                let Ok(permit) = workers.clone().try_acquire_owned() else {
                    outbound
                        .send(
                            Route::Standalone,
                            error_response(Some(&id), &rpc_error::overloaded()),
                        )
                        .await;
                    return;
                };
                let params = value.get("params").cloned().unwrap_or(Value::Null);
                let meta = match read_meta(&params) {
                    Ok(meta) => meta,
                    Err(error) => {
                        let reply = error_response(Some(&id), &error);
                        outbound.send(Route::Standalone, reply).await;
                        return;
                    }
                };
                let number = modern_count.fetch_add(1, Ordering::Relaxed);
                let parts = ModernSessionParts {
                    session_id: format!("stdio-{number}"),
                    principal: Principal::local_user(),
                    config: config.clone(),
                    store: store.clone(),
                    outbound: outbound.clone(),
                    options: options.clone(),
                    owners: owners.clone(),
                };
                let request_session = McpSession::modern(parts, &meta);
                lock(&modern).insert(id.clone(), request_session.clone());
                let request = request_session
                    .clone()
                    .handle_request(id.clone(), method, value);
                let modern = modern.clone();
                handlers.spawn(guarded(&shutdown, async move {
                    request.await;
                    lock(&modern).remove(&id);
                    request_session.close().await;
                    drop(permit);
                }));
            }
            // `initialize` completes before the next line is read, so that a client may
            // pipeline requests right after it.
            Ok(IncomingMessage::Request { id, method, value }) if method == "initialize" => {
                session.clone().handle_request(id, method, value).await;
            }
            // A liveness check never waits for a worker.
            Ok(IncomingMessage::Request { id, method, value }) if method == "ping" => {
                handlers.spawn(guarded(
                    &shutdown,
                    session.clone().handle_request(id, method, value),
                ));
            }
            Ok(IncomingMessage::Request { id, method, value }) => {
                let Ok(permit) = workers.clone().try_acquire_owned() else {
                    outbound
                        .send(
                            Route::Standalone,
                            error_response(Some(&id), &rpc_error::overloaded()),
                        )
                        .await;
                    return;
                };
                let request = session.clone().handle_request(id, method, value);
                handlers.spawn(guarded(&shutdown, async move {
                    request.await;
                    drop(permit);
                }));
            }
            Ok(IncomingMessage::Notification { method }) => {
                let message: Value = serde_json::from_str(&line).unwrap_or_default();
                // A cancellation of a 2026 request goes to that request's session.
                let target = message
                    .pointer("/params/requestId")
                    .cloned()
                    .and_then(|id| serde_json::from_value::<RequestId>(id).ok())
                    .and_then(|id| lock(&modern).get(&id).cloned());
                match target {
                    Some(request_session) if method == "notifications/cancelled" => {
                        request_session.handle_notification(&method, &message);
                    }
                    _ => session.handle_notification(&method, &message),
                }
            }
            Ok(IncomingMessage::Response { id, outcome }) => session.handle_response(id, outcome),
            Err(DecodeError::NotJson(error)) => {
                tracing::warn!(%error, "input line is not JSON");
                let reply = error_response(
                    None,
                    &rpc_error::parse_error(format!("parse error: {error}")),
                );
                outbound.send(Route::Standalone, reply).await;
            }
            Err(DecodeError::NotAMessage(_)) if line.trim_start().starts_with('[') => {
                let items = match serde_json::from_str::<serde_json::Value>(&line) {
                    Ok(serde_json::Value::Array(items)) => items,
                    _ => Vec::new(),
                };
                let Ok(permit) = workers.clone().try_acquire_owned() else {
                    let reply = error_response(None, &rpc_error::overloaded());
                    outbound.send(Route::Standalone, reply).await;
                    return;
                };
                let batch = session.clone().handle_batch(items);
                let outbound = outbound.clone();
                handlers.spawn(guarded(&shutdown, async move {
                    if let Some(reply) = batch.await {
                        outbound.send(Route::Standalone, reply).await;
                    }
                    drop(permit);
                }));
            }
            Err(DecodeError::NotAMessage(reason)) => {
                tracing::warn!(reason, "input line is not a JSON-RPC message");
                let reply = error_response(
                    None,
                    &rpc_error::invalid_request(format!("invalid request: {reason}")),
                );
                outbound.send(Route::Standalone, reply).await;
            }
        },
        async |id: Option<RequestId>| {
            let reply = error_response(id.as_ref(), &rpc_error::line_too_long(max_line_bytes));
            outbound.send(Route::Standalone, reply).await;
        },
    );
    tokio::select! {
        result = reading => {
            if let Err(error) = result {
                tracing::warn!(%error, "stdin read failed; shutting down");
            }
        }
        () = shutdown.begun() => {}
    }
    // From here on the process ends within the grace period, whatever still runs; stdin EOF
    // begins the shutdown as a signal does.
    shutdown.begin();

    // Cancels the session's calls and interrupts its turns (bounded by the engine), and
    // those of the 2026 requests still running.
    session.close().await;
    let running: Vec<Arc<McpSession>> = lock(&modern).drain().map(|(_, open)| open).collect();
    for request_session in running {
        request_session.close().await;
    }
    handlers.close();
    if tokio::time::timeout(DRAIN, handlers.wait()).await.is_err() {
        tracing::info!("abandoning the requests still running");
        shutdown.abandon();
        handlers.wait().await;
    }
    drop(session);
    drop(outbound);
    match writer.await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => tracing::debug!(%error, "stdout closed"),
        Err(error) => tracing::error!(%error, "writer task failed"),
    }
    // Every task that held a guard (the handlers, the writer) has ended.
    shutdown.complete().await;
    Ok(())
}

/// `work` as a task of the session: it holds a shutdown guard until it ends, and is dropped
/// (its request left unanswered, the session being gone) once running requests are abandoned.
fn guarded(
    shutdown: &Shutdown,
    work: impl Future<Output = ()> + Send + 'static,
) -> impl Future<Output = ()> + Send + 'static {
    let guard = shutdown.guard();
    async move {
        tokio::select! {
            () = work => {}
            () = guard.abandoned() => {}
        }
    }
}
