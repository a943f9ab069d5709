//! `tandem app-server --listen ws://IP:PORT | unix://[PATH]`: one server, many connections.
//!
//! Both listeners speak WebSocket (on `unix://` an HTTP upgrade on the socket, as the
//! reference does), one JSON-RPC message per text frame, and answer `GET /readyz` and
//! `GET /healthz` with 200 and an empty body, without authentication. Each connection does
//! its own `initialize` and runs the same request pipeline as stdio ([`Connection`]).
//!
//! Who a connection acts for: on `unix://`, the kernel names the peer (`SO_PEERCRED`); the
//! server's own user is the local user with the stdio front end's trust, any other uid is
//! refused. On `ws://`, the bearer token names the principal ([`auth`]), under the network
//! policy defaults. Every connection of one principal drives that principal's one engine,
//! whose events and questions its [`ThreadHub`] routes to the connections subscribed to each
//! thread; a connection that leaves does not stop its turns.

pub mod auth;
pub mod socket;
pub mod web;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::ws::{WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio_util::task::TaskTracker;

use crate::connection::Connection;
use crate::http_accept::{self, ConnectionLimits};
use crate::outgoing::OutgoingSender;
use crate::processor::Processor;
use crate::processor::approvals::ClientApprover;
use crate::processor::subscriptions::ThreadHub;
use crate::server::OUTPUT_QUEUE;
use crate::shutdown::{Shutdown, ShutdownGuard};
use crate::transport::ws::{read_frames, write_frames};
use auth::{ORIGIN_REFUSED, WsAuth, origin_allowed};
use socket::Peer;
use tandem_core::access::{ClientPolicy, FrontEnd};
use tandem_core::account::AccountState;
use tandem_core::audit::AuditLog;
use tandem_core::config::Config;
use tandem_core::engine::Engine;
use tandem_core::principal::Principal;
use tandem_core::store::Store;
use tandem_core::sync::lock;
use web::WebPage;

/// The read buffer a WebSocket connection starts with.
const IDLE_READ_BUFFER: usize = 16 * 1024;

/// Where `tandem app-server` serves, from `--listen`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListenAddress {
    /// `stdio://` (the default): one connection on stdin and stdout.
    Stdio,
    /// `unix://` (the default socket under `$TANDEM_HOME`) or `unix://PATH`.
    Unix(Option<PathBuf>),
    /// `ws://IP:PORT`.
    WebSocket(SocketAddr),
    /// `off`: no transport; the server only runs until it is stopped.
    Off,
}

impl ListenAddress {
    /// Parses a `--listen` value.
    pub fn parse(value: &str) -> anyhow::Result<ListenAddress> {
        if value == "stdio://" || value == "stdio" {
            return Ok(ListenAddress::Stdio);
        }
        if value == "off" {
            return Ok(ListenAddress::Off);
        }
        if let Some(path) = value.strip_prefix("unix://") {
            return Ok(ListenAddress::Unix(
                (!path.is_empty()).then(|| PathBuf::from(path)),
            ));
        }
        if let Some(address) = value.strip_prefix("ws://") {
            let address = address.trim_end_matches('/');
            return address
                .parse()
                .map(ListenAddress::WebSocket)
                .map_err(|_| {
                    anyhow::anyhow!(
                        "--listen {value}: a WebSocket listener takes an IP address and a port, as in ws://127.0.0.1:4500"
                    )
                });
        }
        anyhow::bail!(
            "unsupported --listen `{value}`: use stdio://, unix://, unix://PATH, ws://IP:PORT or off"
        )
    }
}

/// How a listener admits connections.
#[derive(Clone)]
pub enum Admission {
    /// `unix://`: the peer's uid must be the server's.
    SameUser,
    /// `ws://`: a bearer token, and an allowed `Origin` when one is sent; with `--web`, the
    /// web client's page, whose connections send their token in their first message.
    WebSocket {
        auth: WsAuth,
        allowed_origins: Vec<String>,
        web: Option<WebPage>,
    },
}

/// Who an admitted upgrade acts for.
enum Admitted {
    /// Known from the peer or the `Authorization` header.
    Known(Principal, FrontEnd),
    /// The web page's connection: named by the token of its first message.
    FirstMessage(WsAuth),
}

/// A principal's engine and the hub that routes its events and questions.
type SharedEngine = (Engine, Arc<ThreadHub>);

/// What every connection of a listener shares.
struct ListenerState {
    config: Config,
    store: Arc<Store>,
    account: Arc<AccountState>,
    os_release: crate::compat::requests::OsRelease,
    history: Option<Arc<crate::history::History>>,
    audit: AuditLog,
    admission: Admission,
    /// One engine per principal and front end, created with its first connection.
    engines: Mutex<HashMap<(Principal, FrontEnd), SharedEngine>>,
    connections: TaskTracker,
    guard: ShutdownGuard,
}

impl ListenerState {
    fn engine_for(&self, principal: &Principal, front_end: FrontEnd) -> SharedEngine {
        let mut engines = lock(&self.engines);
        let (engine, hub) = engines
            .entry((principal.clone(), front_end))
            .or_insert_with(|| {
                let hub = Arc::new(ThreadHub::new());
                let sink =
                    crate::history::ingesting_sink(hub.clone(), self.history.as_ref(), &self.store);
                let access = ClientPolicy::resolve(&self.config, front_end);
                let engine = Engine::new(
                    self.config.clone(),
                    self.store.clone(),
                    self.account.clone(),
                    sink,
                    hub.clone(),
                    principal.clone(),
                    access,
                );
                engine.set_audit(self.audit.clone(), front_end.name());
                hub.attach_engine(engine.clone());
                (engine, hub)
            });
        (engine.clone(), hub.clone())
    }
}

/// Serves the app-server protocol on `address` (a Unix socket or a WebSocket port), within
/// `limits`, until SIGINT or SIGTERM.
pub async fn serve(
    config: Config,
    account: Arc<AccountState>,
    os_release: crate::compat::requests::OsRelease,
    history: Option<Arc<crate::history::History>>,
    address: ListenAddress,
    admission: Admission,
    limits: ConnectionLimits,
) -> anyhow::Result<()> {
    let store = Arc::new(Store::open(&config.home)?);
    tandem_core::redact::register_known_secrets(store.redactor(), &config, &account);
    let shutdown = Shutdown::start();
    let audit = AuditLog::open(&config.home);
    let home = config.home.clone();
    let mut admission = admission;
    let tcp = match address {
        ListenAddress::WebSocket(address) => {
            let listener = tokio::net::TcpListener::bind(address)
                .await
                .map_err(|error| anyhow::anyhow!("cannot listen on ws://{address}: {error}"))?;
            let bound = listener.local_addr()?;
            if let Admission::WebSocket { web: Some(web), .. } = &mut admission {
                *web = web.clone().bound_to(bound);
            }
            Some((listener, bound))
        }
        _ => None,
    };
    let state = Arc::new(ListenerState {
        config,
        store,
        account,
        os_release,
        history,
        audit: audit.clone(),
        admission,
        engines: Mutex::new(HashMap::new()),
        connections: TaskTracker::new(),
        guard: shutdown.guard(),
    });
    let app = Router::new()
        .route("/", get(upgrade))
        .route("/readyz", get(healthy))
        .route("/healthz", get(healthy))
        .route("/web/{name}", get(web_asset))
        .with_state(state.clone());
    let stopping = {
        let guard = shutdown.guard();
        async move { guard.begun().await }
    };
    let mut socket_file = None;
    match address {
        ListenAddress::WebSocket(_) => {
            let Some((listener, bound)) = tcp else {
                anyhow::bail!("the WebSocket listener was not bound");
            };
            socket::report_listening(&format!("ws://{bound}"));
            if let Admission::WebSocket { web: Some(web), .. } = &state.admission {
                socket::report_page(&web.url());
            }
            let events = Arc::new(http_accept::Uncounted);
            http_accept::serve(listener, app, Peer::of_tcp, limits, events, stopping).await;
        }
        ListenAddress::Unix(path) => {
            let path = path.unwrap_or_else(|| socket::default_path(&home));
            let (listener, file) = socket::bind(&path)?;
            socket_file = Some(file);
            socket::report_listening(&format!("unix://{}", path.display()));
            let events = Arc::new(http_accept::Uncounted);
            http_accept::serve(listener, app, Peer::of_unix, limits, events, stopping).await;
        }
        ListenAddress::Off => stopping.await,
        ListenAddress::Stdio => anyhow::bail!("stdio:// is served by server::serve_stdio"),
    }
    // The listener is closed; each connection ends at the shutdown signal.
    state.connections.close();
    state.connections.wait().await;
    let engines: Vec<Engine> = lock(&state.engines)
        .drain()
        .map(|(_, (engine, hub))| {
            hub.detach_engine();
            engine
        })
        .collect();
    for engine in &engines {
        engine.shutdown().await;
    }
    drop(engines);
    drop(state);
    drop(socket_file);
    let _ = tokio::task::spawn_blocking(move || audit.flush(Duration::from_secs(1))).await;
    shutdown.complete().await;
    Ok(())
}

/// `GET /readyz`, `GET /healthz`: 200 with an empty body, without authentication.
async fn healthy() -> StatusCode {
    StatusCode::OK
}

/// `GET /web/{name}`: the web client's files, with `--web`.
async fn web_asset(State(state): State<Arc<ListenerState>>, Path(name): Path<String>) -> Response {
    match &state.admission {
        Admission::WebSocket { web: Some(_), .. } => web::asset(&name),
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// `GET /`: admits the client (peer, `Origin`, bearer token) and upgrades to WebSocket; with
/// `--web`, a request that is not an upgrade gets the web client's page.
async fn upgrade(
    State(state): State<Arc<ListenerState>>,
    ConnectInfo(peer): ConnectInfo<Peer>,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, axum::extract::ws::rejection::WebSocketUpgradeRejection>,
) -> Response {
    if let (Admission::WebSocket { web: Some(_), .. }, Err(_)) = (&state.admission, &upgrade) {
        return web::asset("index.html");
    }
    let admitted = match &state.admission {
        Admission::SameUser => match peer.uid {
            Some(uid) if uid == socket::own_uid() => Ok(Admitted::Known(
                Principal::local_user(),
                FrontEnd::AppServerStdio,
            )),
            _ => Err((StatusCode::FORBIDDEN, "peer is not the server's user")),
        },
        Admission::WebSocket {
            auth,
            allowed_origins,
            web,
        } => {
            if web.as_ref().is_some_and(|web| web.is_own_origin(&headers))
                && !headers.contains_key(axum::http::header::AUTHORIZATION)
            {
                Ok(Admitted::FirstMessage(auth.clone()))
            } else if origin_allowed(&headers, allowed_origins)
                || web.as_ref().is_some_and(|web| web.is_own_origin(&headers))
            {
                auth.principal(&headers)
                    .map(|principal| Admitted::Known(principal, FrontEnd::AppServerWebSocket))
                    .map_err(|refusal| (refusal.status, refusal.message))
            } else {
                Err((ORIGIN_REFUSED.status, ORIGIN_REFUSED.message))
            }
        }
    };
    let admitted = match admitted {
        Ok(admitted) => admitted,
        Err((status, message)) => return (status, message).into_response(),
    };
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        Err(rejection) => return rejection.into_response(),
    };
    let max = state.config.app_server.max_line_bytes;
    let tracker = state.connections.clone();
    upgrade
        // An idle connection holds its read buffer: 16 KiB rather than the default 128 KiB,
        // which a larger message grows past as needed.
        .read_buffer_size(IDLE_READ_BUFFER)
        .max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |mut socket| {
            tracker.track_future(async move {
                let (principal, front_end) = match admitted {
                    Admitted::Known(principal, front_end) => (principal, front_end),
                    Admitted::FirstMessage(auth) => {
                        let stopping = state.guard.clone();
                        let principal = tokio::select! {
                            principal = web::authenticate(&mut socket, &auth) => principal,
                            () = stopping.begun() => None,
                        };
                        match principal {
                            Some(principal) => (principal, FrontEnd::AppServerWebSocket),
                            None => return,
                        }
                    }
                };
                serve_socket(state, principal, front_end, socket).await;
            })
        })
}

/// Serves one WebSocket connection until the client leaves or the server stops.
async fn serve_socket(
    state: Arc<ListenerState>,
    principal: Principal,
    front_end: FrontEnd,
    socket: WebSocket,
) {
    let guard = state.guard.clone();
    if state.connections.is_closed() {
        return;
    }
    let (engine, hub) = state.engine_for(&principal, front_end);
    let (lines, written) = mpsc::channel::<String>(OUTPUT_QUEUE);
    let outgoing = Arc::new(OutgoingSender::with_pending(lines, hub.pending()));
    let approver = Arc::new(ClientApprover::new(outgoing.clone()));
    let (connection_id, closed_by_hub) = hub.connect(approver.clone());
    let processor = Arc::new(
        Processor::new(outgoing.clone(), engine, state.os_release.clone())
            .with_history(state.history.clone())
            .with_conversations(approver.conversations())
            .with_approver(approver)
            .with_hub(hub.clone(), connection_id),
    );
    let (sink, mut stream) = socket.split();
    let writer = tokio::spawn(write_frames(sink, written));
    let connection = Connection::start(
        processor.clone(),
        outgoing.clone(),
        state.config.app_server.request_queue_capacity,
        state.config.app_server.max_line_bytes,
        guard.clone(),
    );
    let stop = async {
        tokio::select! {
            () = guard.begun() => {}
            () = closed_by_hub.cancelled() => {}
        }
    };
    read_frames(&mut stream, &connection, stop).await;
    hub.disconnect(connection_id);
    connection.finish_closed().await;
    drop(processor);
    drop(outgoing);
    // The writer ends once the last sender of its queue is gone; a client that stopped
    // reading does not hold the connection's task.
    let mut writer = writer;
    if tokio::time::timeout(Duration::from_secs(1), &mut writer)
        .await
        .is_err()
    {
        writer.abort();
    }
    drop(guard);
}
