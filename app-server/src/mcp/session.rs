//! One MCP session: the `initialize` handshake, method dispatch, cancellation, and the
//! session's own [`Engine`] whose events and approvals come back through [`SessionShared`].
//!
//! Transports feed decoded messages in and take [`Route`]-tagged messages out through an
//! [`Outbound`]; nothing here knows whether that is stdio or HTTP.
//! Architecture invariant: request ids stay in this layer; the engine only sees thread and
//! turn ids.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::tables::ServerNotification;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::compat::conversations::Conversations;
use crate::compat::legacy_requests::ConversationApi;
use crate::mcp::calls::ThreadOwners;
use crate::mcp::elicitation::{elicitation_params, fallback_reply, reply_from_answer};
use crate::mcp::events::Calls;
use crate::mcp::events::log_message_for;
use crate::mcp::legacy::FollowUp;
use crate::mcp::output::{Outbound, Route};
use crate::mcp::protocol::{
    self, ClientCapabilities, error_response, initialize_result, log_level_rank, negotiate_version,
    notification, response,
};
use crate::mcp::{index_tools, tools};
use crate::pending::{Answer, PendingRequests, RequestOutcome};
use crate::rpc_error;
use crate::transport::IncomingMessage;
use crate::unwind::catch_panic;
use tandem_core::config::Config;
use tandem_core::engine::approval::{ApprovalReply, ApprovalRequest, Approver};
use tandem_core::engine::{Engine, EventSink};
use tandem_core::principal::Principal;
use tandem_core::store::Store;
use tandem_core::sync::lock;

pub use super::options::{McpOptions, Negotiated};

/// One MCP session.
pub struct McpSession {
    /// Who created the session (the local user on stdio, the token's principal over HTTP);
    /// a request of another principal never reaches it.
    pub principal: Principal,
    /// State shared with the engine (as its event sink and approver).
    pub shared: Arc<SessionShared>,
    /// This session's engine.
    pub engine: Engine,
    /// Threads this session's engine has loaded.
    pub(crate) loaded: Mutex<HashSet<String>>,
    /// The process-wide record of which session drives which thread.
    pub(crate) owners: Arc<ThreadOwners>,
    /// The first-generation conversation API (`crate::mcp::legacy`).
    pub(crate) conversation_api: ConversationApi,
    /// What follows the response of a conversation-API request, by request id.
    pub(crate) follow_ups: Mutex<HashMap<RequestId, FollowUp>>,
    /// Set for the sessions of a distributed (`--redis`) server.
    clustered: AtomicBool,
}

/// The part of a session that the engine calls back into.
pub struct SessionShared {
    /// Session id for logs (`stdio` or the `Mcp-Session-Id`).
    pub session_id: String,
    /// The transport's sending half.
    pub(crate) outbound: Arc<dyn Outbound>,
    /// Server-wide settings.
    pub(crate) options: McpOptions,
    /// What `initialize` fixed, or the `_meta` of a 2026 request (`crate::mcp::modern`).
    pub(crate) negotiated: OnceLock<Negotiated>,
    /// Minimum `notifications/message` level (index into [`protocol::LOG_LEVELS`]; past the
    /// end: none).
    pub(crate) log_level: AtomicUsize,
    /// Tool calls running a turn.
    pub(crate) calls: Mutex<Calls>,
    /// Client requests in flight, with the token that `notifications/cancelled` fires.
    requests: Mutex<HashMap<RequestId, CancellationToken>>,
    /// Requests (elicitations) waiting for the client's answer.
    pub(crate) pending: PendingRequests,
    /// Threads opened or driven through the conversation API.
    pub(crate) conversations: Arc<Conversations>,
    /// The request waiting on this 2026 session's call (`crate::mcp::mrtr`), once it runs one.
    pub(crate) call_link: OnceLock<crate::mcp::mrtr::CallLink>,
    /// The outbound of a 2026 session, which relays its call's messages to retries.
    pub(crate) call_relay: OnceLock<Arc<crate::mcp::mrtr::CallOutbound>>,
    /// The task this 2026 session's call runs as (`crate::mcp::task_calls`), once it is one.
    pub(crate) task_link: OnceLock<String>,
}

impl McpSession {
    /// A session of `principal` with its own engine over the shared `store`.
    pub fn new(
        session_id: String,
        principal: Principal,
        config: impl Into<Arc<Config>>,
        store: Arc<Store>,
        outbound: Arc<dyn Outbound>,
        options: McpOptions,
        owners: Arc<ThreadOwners>,
    ) -> Arc<McpSession> {
        let shared = Arc::new(SessionShared {
            session_id,
            outbound,
            options,
            negotiated: OnceLock::new(),
            log_level: AtomicUsize::new(1),
            calls: Mutex::new(Calls::default()),
            requests: Mutex::new(HashMap::new()),
            pending: PendingRequests::new(),
            conversations: Arc::new(Conversations::default()),
            call_link: OnceLock::new(),
            call_relay: OnceLock::new(),
            task_link: OnceLock::new(),
        });
        let sink =
            crate::history::ingesting_sink(shared.clone(), shared.options.history.as_ref(), &store);
        // The one place a session's engine is built: the session's principal (the local user on
        // stdio and with `--auth none`, a token's name otherwise) owns the threads and history
        // its engine creates and is the only one that reaches them; the operator's `[clients]`
        // ceiling, with this front end's defaults, bounds what it may obtain.
        let access = shared.options.access.clone();
        let engine = Engine::new(
            config,
            store,
            shared.options.account.clone(),
            sink,
            shared.clone(),
            principal.clone(),
            access,
        );
        engine.set_audit(shared.options.audit.clone(), shared.options.front_end);
        let conversation_api = ConversationApi::new(engine.clone(), shared.conversations.clone());
        Arc::new(McpSession {
            principal,
            shared,
            engine,
            loaded: Mutex::new(HashSet::new()),
            owners,
            conversation_api,
            follow_ups: Mutex::new(HashMap::new()),
            clustered: AtomicBool::new(false),
        })
    }

    /// The negotiated protocol version, once initialized.
    pub fn protocol_version(&self) -> Option<&'static str> {
        self.shared
            .negotiated
            .get()
            .map(|negotiated| negotiated.version)
    }

    // Hooks for distributed HTTP sessions (`mcp::distributed`): a node rebuilds a session it
    // does not hold from the stored `initialize` params, names its requests after itself, and
    // tells whether it runs a given client request.

    /// Restores the state `initialize` with `params` fixed, on a node that did not see it.
    pub fn restore(&self, params: &Value) -> Result<(), JsonRpcErrorBody> {
        self.initialize(params).map(|_| ())
    }

    /// Prefixes the ids of this session's server→client requests with `prefix`.
    /// Only distributed sessions name their requests, so this also marks the session as one.
    pub fn set_request_id_prefix(&self, prefix: String) {
        self.clustered.store(true, Ordering::Relaxed);
        self.shared.pending.set_id_prefix(prefix);
    }

    /// Whether this is a session of a distributed (`--redis`) server.
    pub(crate) fn is_clustered(&self) -> bool {
        self.clustered.load(Ordering::Relaxed)
    }

    /// Takes what follows the response of conversation-API request `id`.
    fn take_follow_up(&self, id: &RequestId) -> Option<FollowUp> {
        lock(&self.follow_ups).remove(id)
    }

    /// Sets the minimum `notifications/message` level that another node of the session
    /// received with `logging/setLevel`; unknown names are ignored.
    pub fn apply_log_level(&self, level: &str) {
        if let Some(rank) = log_level_rank(level) {
            self.shared.log_level.store(rank, Ordering::Relaxed);
        }
    }

    /// Whether client request `id` is running here.
    pub fn is_running(&self, id: &RequestId) -> bool {
        lock(&self.shared.requests).contains_key(id)
    }

    /// Handles one client request and answers it (except a cancelled tool call, which gets
    /// no answer).
    ///
    /// The request is registered as in flight when this is called, before the returned
    /// future first runs, so that a `notifications/cancelled` read right after it finds it
    /// even if the handler task has not started yet.
    pub fn handle_request(
        self: Arc<Self>,
        id: RequestId,
        method: String,
        message: Value,
    ) -> impl Future<Output = ()> + Send + 'static {
        let reply = self.clone().answer_request(id.clone(), method, message);
        async move {
            match reply.await {
                Some(reply) => {
                    self.shared
                        .outbound
                        .send(Route::Request(id.clone()), reply)
                        .await;
                    if let Some(follow_up) = self.take_follow_up(&id) {
                        follow_up.run(self.shared.outbound.as_ref()).await;
                    }
                }
                None => self.shared.outbound.abandon(&id),
            }
        }
    }

    /// Handles a JSON-RPC batch, which only protocol version 2025-03-26 allows: notifications
    /// and responses at once, requests concurrently. Returns what to send back: the array of
    /// replies (`None` when the batch held no request), or one error.
    pub fn handle_batch(
        self: Arc<Self>,
        items: Vec<Value>,
    ) -> impl Future<Output = Option<Value>> + Send + 'static {
        let mut immediate = Vec::new();
        let mut pending = Vec::new();
        if self.protocol_version() != Some("2025-03-26") {
            immediate.push(error_response(
                None,
                &rpc_error::invalid_request(
                    "batches are only allowed with protocol version 2025-03-26; send one message at a time",
                ),
            ));
        } else if items.is_empty() {
            immediate.push(error_response(
                None,
                &rpc_error::invalid_request("empty batch"),
            ));
        } else {
            for item in &items {
                match crate::transport::decode_line(&item.to_string()) {
                    Ok(IncomingMessage::Request { id, method, .. }) if method == "initialize" => {
                        let error =
                            rpc_error::invalid_request("initialize must not be part of a batch");
                        immediate.push(error_response(Some(&id), &error));
                    }
                    Ok(IncomingMessage::Request { id, method, value }) => {
                        let session = self.clone();
                        let answer = self.clone().answer_request(id.clone(), method, value);
                        // A batched conversation-API request's events go out before the
                        // batch's answer (which carries every reply at once).
                        pending.push(async move {
                            let reply = answer.await;
                            if let Some(follow_up) = session.take_follow_up(&id) {
                                follow_up.run(session.shared.outbound.as_ref()).await;
                            }
                            reply
                        });
                    }
                    Ok(IncomingMessage::Notification { method }) => {
                        self.handle_notification(&method, item);
                    }
                    Ok(IncomingMessage::Response { id, outcome }) => {
                        self.handle_response(id, outcome)
                    }
                    Err(error) => {
                        let message = match error {
                            crate::transport::DecodeError::NotJson(error) => error,
                            crate::transport::DecodeError::NotAMessage(reason) => {
                                reason.to_string()
                            }
                        };
                        immediate.push(error_response(
                            None,
                            &rpc_error::invalid_request(format!("invalid request: {message}")),
                        ));
                    }
                }
            }
        }
        let single_error = self.protocol_version() != Some("2025-03-26") || items.is_empty();
        async move {
            if single_error {
                return immediate.pop();
            }
            let answered = futures::future::join_all(pending).await;
            immediate.extend(answered.into_iter().flatten());
            if immediate.is_empty() {
                None
            } else {
                Some(Value::Array(immediate))
            }
        }
    }

    /// Answers one request without sending the answer: `None` when the client cancelled it.
    /// Registers the request as in flight at once (see [`McpSession::handle_request`]).
    fn answer_request(
        self: Arc<Self>,
        id: RequestId,
        method: String,
        message: Value,
    ) -> impl Future<Output = Option<Value>> + Send + 'static {
        let span = tracing::info_span!(
            "mcp_request",
            session_id = %self.shared.session_id,
            request_id = %id,
            method = %method,
        );
        let cancel = CancellationToken::new();
        let duplicate = {
            let mut requests = lock(&self.shared.requests);
            if requests.contains_key(&id) {
                true
            } else {
                requests.insert(id.clone(), cancel.clone());
                false
            }
        };
        async move {
            tracing::debug!("request received");
            if duplicate {
                let error =
                    rpc_error::invalid_request(format!("request id {id} is already in use"));
                return Some(error_response(Some(&id), &error));
            }
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            let outcome = catch_panic(self.dispatch(&id, &method, params, cancel))
                .await
                .unwrap_or_else(|reason| {
                    tracing::error!(reason, "request handler panicked");
                    Some(Err(rpc_error::internal_error(format!(
                        "internal error: {reason}"
                    ))))
                });
            lock(&self.shared.requests).remove(&id);
            match outcome {
                Some(Ok(result)) if self.is_modern() => Some(response(
                    &id,
                    crate::mcp::modern::complete_result(&method, result),
                )),
                Some(Ok(result)) => Some(response(&id, result)),
                Some(Err(error)) => {
                    tracing::info!(code = error.code, message = %error.message, "request failed");
                    Some(error_response(Some(&id), &error))
                }
                None => {
                    tracing::info!("request cancelled; no response");
                    None
                }
            }
        }
        .instrument(span)
    }

    async fn dispatch(
        &self,
        id: &RequestId,
        method: &str,
        params: Value,
        cancel: CancellationToken,
    ) -> Option<Result<Value, JsonRpcErrorBody>> {
        if self.is_modern()
            && let Some(answer) = self.modern_method(method)
        {
            return Some(answer);
        }
        match method {
            "initialize" => return Some(self.initialize(&params)),
            "ping" => return Some(Ok(json!({}))),
            // 2026-07-28 clients probe with `server/discover` and fall back to `initialize`
            // on any JSON-RPC error.
            "server/discover" => return Some(Err(rpc_error::method_not_found(method))),
            _ => {}
        }
        if self.shared.negotiated.get().is_none() {
            return Some(Err(rpc_error::invalid_request(
                "server not initialized: send `initialize` first",
            )));
        }
        match method {
            "tools/list" => Some(match params.get("cursor") {
                Some(Value::Null) | None => Ok(self.list_tools()),
                Some(_) => Err(rpc_error::invalid_params("invalid cursor")),
            }),
            "subscriptions/listen" if self.is_modern() => self.listen(id, &params, cancel).await,
            "tasks/get" | "tasks/update" | "tasks/cancel" if self.is_modern() => {
                self.tasks_method(method, &params).await
            }
            "tools/call" if self.task_mode(&params).is_some() => match self.task_mode(&params) {
                Some(Err(error)) => Some(Err(error)),
                _ => self.task_call(id, &params).await,
            },
            "tools/call" if self.is_multi_round_call(&params) => {
                self.multi_round_call(id, &params, cancel).await
            }
            "tools/call" => self.call_tool(id, &params, cancel).await,
            "logging/setLevel" => Some(self.set_log_level(&params)),
            _ if self.shared.options.families.serves_method(method) => {
                Some(self.conversation_request(id, method, params).await)
            }
            #[cfg(feature = "conformance-fixtures")]
            _ if self.shared.options.conformance_fixtures => Some(
                self.fixture_method(method, &params)
                    .unwrap_or_else(|| Err(rpc_error::method_not_found(method))),
            ),
            _ => Some(Err(rpc_error::method_not_found(method))),
        }
    }

    fn initialize(&self, params: &Value) -> Result<Value, JsonRpcErrorBody> {
        let Some(requested) = params.get("protocolVersion").and_then(Value::as_str) else {
            return Err(rpc_error::invalid_params(
                "initialize: missing string field `protocolVersion`",
            ));
        };
        protocol::check_client_info(params)?;
        let version = negotiate_version(requested);
        let negotiated = Negotiated {
            version,
            capabilities: ClientCapabilities::from_params(params),
        };
        if self.shared.negotiated.set(negotiated).is_err() {
            return Err(rpc_error::invalid_request("already initialized"));
        }
        if let Some(name) = params.pointer("/clientInfo/name").and_then(Value::as_str) {
            self.engine.set_originator(name);
            let version = params
                .pointer("/clientInfo/version")
                .and_then(Value::as_str)
                .unwrap_or("");
            self.conversation_api
                .set_user_agent(crate::compat::requests::user_agent(
                    &self.shared.options.os_release,
                    name,
                    version,
                ));
        }
        tracing::info!(requested, version, "initialized");
        #[cfg(feature = "conformance-fixtures")]
        if self.shared.options.conformance_fixtures {
            let mut result = initialize_result(version);
            result["capabilities"] = crate::mcp::fixtures::capabilities();
            return Ok(result);
        }
        Ok(initialize_result(version))
    }

    fn list_tools(&self) -> Value {
        let options = &self.shared.options;
        #[allow(unused_mut, reason = "the conformance fixtures add their tools")]
        let mut result = tools::list_result(options.tools.as_deref(), options.history.is_some());
        #[cfg(feature = "conformance-fixtures")]
        if options.conformance_fixtures
            && let Some(list) = result["tools"].as_array_mut()
        {
            list.extend(crate::mcp::fixtures::tools());
        }
        result
    }

    fn set_log_level(&self, params: &Value) -> Result<Value, JsonRpcErrorBody> {
        let level = params.get("level").and_then(Value::as_str).unwrap_or("");
        let Some(rank) = log_level_rank(level) else {
            return Err(rpc_error::invalid_params(format!(
                "invalid log level `{level}`; expected one of {}",
                protocol::LOG_LEVELS.join(", ")
            )));
        };
        self.shared.log_level.store(rank, Ordering::Relaxed);
        Ok(json!({}))
    }

    /// `tools/call`: `None` when the client cancelled it.
    pub(crate) async fn call_tool(
        &self,
        id: &RequestId,
        params: &Value,
        cancel: CancellationToken,
    ) -> Option<Result<Value, JsonRpcErrorBody>> {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Some(Err(rpc_error::invalid_params(
                "tools/call: missing string field `name`",
            )));
        };
        let arguments = params.get("arguments");
        let progress_token = params
            .pointer("/_meta/progressToken")
            .filter(|token| token.is_string() || token.is_i64() || token.is_u64())
            .cloned();
        let options = &self.shared.options;
        match tools::offered(name, options.tools.as_deref(), options.history.is_some()) {
            Some(tool) => {
                let call = tools::McpCall {
                    session: self,
                    id,
                    progress_token,
                    cancel,
                };
                tool.call(call, arguments).await
            }
            None => {
                #[cfg(feature = "conformance-fixtures")]
                if options.conformance_fixtures
                    && tools::tool_enabled(options.tools.as_deref(), name)
                {
                    if let Some(result) = self.mrtr_fixture("tools/call", name, params) {
                        return Some(result);
                    }
                    if let Some(result) = self.stateless_fixture(id, name, params).await {
                        return Some(result);
                    }
                    if let Some(outcome) = self.task_fixture(name, params, &cancel).await {
                        return outcome;
                    }
                    if let Some(result) = self.call_fixture(id, name, params).await {
                        return Some(Ok(result));
                    }
                }
                Some(Err(rpc_error::invalid_params(format!(
                    "unknown tool: {name}"
                ))))
            }
        }
    }

    /// Handles a client notification.
    pub fn handle_notification(&self, method: &str, message: &Value) {
        match method {
            "notifications/initialized" => {
                tracing::debug!(session_id = %self.shared.session_id, "client initialized");
                // A server restricted to other tools (`--tools search,open`) has no index to warm.
                let enabled = self.shared.options.tools.as_deref();
                if tools::tool_enabled(enabled, tandem_core::project_index::QUERY_PROJECT_TOOL) {
                    index_tools::spawn_auto_warm(
                        &self.engine.config().query_project_index,
                        &self.shared.options.warm_up_started,
                    );
                }
            }
            "notifications/cancelled" => {
                let request_id = message
                    .pointer("/params/requestId")
                    .cloned()
                    .and_then(|id| serde_json::from_value::<RequestId>(id).ok());
                let Some(request_id) = request_id else {
                    tracing::debug!("ignoring notifications/cancelled without a valid requestId");
                    return;
                };
                let token = lock(&self.shared.requests).get(&request_id).cloned();
                match token {
                    Some(token) => {
                        tracing::info!(session_id = %self.shared.session_id, request_id = %request_id, "client cancelled the call");
                        token.cancel();
                    }
                    // Finished or unknown: the spec says to ignore it.
                    None => {
                        tracing::debug!(request_id = %request_id, "cancellation of a request that is not running")
                    }
                }
            }
            other => tracing::debug!(method = other, "ignoring client notification"),
        }
    }

    /// Delivers the client's answer to one of our requests.
    pub fn handle_response(&self, id: RequestId, outcome: Result<Value, Value>) {
        if !self.shared.pending.resolve(&id, outcome) {
            tracing::warn!(session_id = %self.shared.session_id, %id, "ignoring a response to a request that is not pending");
        }
    }

    /// Ends the session: running calls are cancelled, turns interrupted and flushed,
    /// pending elicitations withdrawn and the session's threads released.
    pub async fn close(&self) {
        let tokens: Vec<CancellationToken> =
            lock(&self.shared.requests).values().cloned().collect();
        for token in tokens {
            token.cancel();
        }
        self.conversation_api.close();
        self.engine.shutdown().await;
        self.shared.pending.cancel_all();
        self.owners.release_session(&self.shared.session_id);
    }
}

impl SessionShared {
    /// Sends a request to the client and returns its id.
    pub(crate) async fn send_request(
        &self,
        route: Route,
        method: &str,
        params: Value,
    ) -> (RequestId, oneshot::Receiver<RequestOutcome>) {
        let (id, receiver) = self.pending.register();
        self.outbound
            .send(route, protocol::request(&id, method, params))
            .await;
        (id, receiver)
    }

    /// Sends a request to the client and waits for its answer (`Err`: the error message, a
    /// timeout or the session closing).
    #[cfg(feature = "conformance-fixtures")]
    pub(crate) async fn ask_client(
        &self,
        route: Route,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let (id, receiver) = self.send_request(route.clone(), method, params).await;
        let never = CancellationToken::new();
        match self
            .pending
            .wait(&id, receiver, self.options.approval_timeout, &never)
            .await
        {
            Answer::Result(result) => Ok(result),
            Answer::Error(error) => Err(error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("error")
                .to_string()),
            Answer::Closed | Answer::Cancelled => Err("the session closed".to_string()),
            Answer::TimedOut => {
                self.withdraw(route, &id, "request timed out").await;
                Err("request timed out".to_string())
            }
        }
    }

    /// Drops request `id` from those in flight: a cancellation of it no longer reaches its
    /// handler.
    pub(crate) fn forget_request(&self, id: &RequestId) {
        lock(&self.requests).remove(id);
    }

    pub(crate) async fn withdraw(&self, route: Route, id: &RequestId, reason: &str) {
        self.pending.cancel(id);
        self.outbound
            .send(
                route,
                notification(
                    "notifications/cancelled",
                    json!({"requestId": id, "reason": reason}),
                ),
            )
            .await;
    }

    async fn ask(&self, request: ApprovalRequest, cancel: CancellationToken) -> ApprovalReply {
        if let Some(reply) = self.ask_conversation(&request, &cancel).await {
            return reply;
        }
        let (call, announcement) = {
            let mut calls = lock(&self.calls);
            let call = calls.call_for_thread(request.thread_id()).cloned();
            (call, calls.approval_event(&request))
        };
        // Codex announces the question as an event first (`exec_approval_request`,
        // `apply_patch_approval_request`), then asks.
        if let Some((route, message)) = &announcement {
            self.outbound.send(route.clone(), message.clone()).await;
        }
        let Some(negotiated) = self.negotiated.get() else {
            return ApprovalReply::Failed("the MCP session is not initialized".into());
        };
        // A 2026 request gets no server requests: a client that can answer elicitations is
        // asked through its call's `input_required` result; for others, the fallback decides.
        if negotiated.version == crate::mcp::modern::MODERN_VERSION
            && let Some(reply) = self
                .ask_through_task(
                    &request,
                    call.as_ref(),
                    announcement.as_ref().map(|(_, message)| message),
                    &cancel,
                )
                .await
        {
            return reply;
        }
        if negotiated.version == crate::mcp::modern::MODERN_VERSION
            && negotiated.capabilities.form_elicitation
            && let Some(reply) = self
                .ask_through_result(
                    &request,
                    call.as_ref(),
                    announcement.as_ref().map(|(_, message)| message),
                    &cancel,
                )
                .await
        {
            return reply;
        }
        if !negotiated.capabilities.form_elicitation
            || negotiated.version == crate::mcp::modern::MODERN_VERSION
        {
            let (reply, note) = fallback_reply(&request, self.options.approval_fallback);
            tracing::info!(session_id = %self.session_id, %note, "approval decided by the fallback");
            if let Some(call) = &call
                && let Some(state) = lock(&self.calls).get_mut(call)
            {
                state.notes.push(note);
            }
            return reply;
        }
        let params = elicitation_params(
            &request,
            call.as_ref(),
            negotiated.version,
            announcement.as_ref().map(|(_, message)| message),
        );
        let route = call.map_or(Route::Standalone, Route::Request);
        let (id, receiver) = self
            .send_request(route.clone(), "elicitation/create", params)
            .await;
        let answer = self
            .pending
            .wait(&id, receiver, self.options.approval_timeout, &cancel)
            .await;
        match answer {
            Answer::Result(result) => reply_from_answer(&request, Ok(result)),
            Answer::Error(error) => reply_from_answer(&request, Err(error)),
            // The session is closing.
            Answer::Closed => ApprovalReply::Withdrawn,
            Answer::TimedOut => {
                self.withdraw(route, &id, "approval request timed out")
                    .await;
                ApprovalReply::Failed("approval request timed out".into())
            }
            Answer::Cancelled => {
                self.withdraw(route, &id, "the turn ended").await;
                ApprovalReply::Withdrawn
            }
        }
    }

    async fn emit_event(&self, notification: &ServerNotification) {
        let log_message = log_message_for(notification, self.log_level.load(Ordering::Relaxed));
        let conversation = self.conversation_messages(notification);
        let mut dispatch = lock(&self.calls).dispatch(notification);
        // A conversation's events carry the id of the request that started its turn.
        if let Some(messages) = conversation
            && dispatch.route == Route::Standalone
        {
            dispatch.messages = messages;
        }
        for message in dispatch.messages {
            self.outbound.send(dispatch.route.clone(), message).await;
        }
        if let Some(message) = log_message {
            self.outbound.send(dispatch.route.clone(), message).await;
        }
        if let Some((done, turn)) = dispatch.finished {
            let _ = done.send(turn);
        }
    }
}

impl EventSink for SessionShared {
    fn emit(
        &self,
        notification: ServerNotification,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(async move { self.emit_event(&notification).await })
    }
}

impl Approver for SessionShared {
    fn request(
        &self,
        request: ApprovalRequest,
        cancel: CancellationToken,
    ) -> Pin<Box<dyn Future<Output = ApprovalReply> + Send + '_>> {
        Box::pin(self.ask(request, cancel))
    }
}
