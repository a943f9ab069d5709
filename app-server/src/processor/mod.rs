//! Per-connection dispatch of app-server requests: the `initialize` gate, typed decoding,
//! experimental gating, and mapping engine results to responses and notifications.

mod account_requests;
pub mod approvals;
pub(crate) mod conversation_summary;
pub mod conversations;
mod experimental;
mod history_requests;
mod index_requests;
pub mod legacy_requests;
mod utility_requests;

use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use app_server_protocol::PROTOCOL_VERSION;
use app_server_protocol::initialize::{InitializeParams, InitializeResponse};
use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::notifications::{
    DeprecationNoticeNotification, ThreadIdNotification, ThreadNameUpdatedNotification,
    ThreadStartedNotification, ThreadTokenUsageUpdatedNotification,
};
use app_server_protocol::policy::CollaborationModeListResponse;
use app_server_protocol::tables::{ClientRequest, ClientRequestPayload, ServerNotification};
use app_server_protocol::tables_meta::Stability;
use app_server_protocol::thread_requests::{
    EmptyResponse, ThreadReadResponse, ThreadSortKey, ThreadUnarchiveResponse,
    ThreadUnsubscribeResponse,
};
use app_server_protocol::turn_requests::{TurnStartResponse, TurnSteerResponse};
use serde::Serialize;
use serde_json::Value;

use crate::config::config_read_response;
use crate::engine::{Engine, EngineError};
use crate::outgoing::{NotificationFilter, OutgoingSender};
use crate::processor::conversations::Conversations;
use crate::processor::legacy_requests::{ConversationApi, Reply};
use crate::processor::utility_requests::Utilities;
use crate::rpc_error::{internal_error, invalid_request};
use crate::unwind::catch_panic;

/// What `initialize` fixed for the connection.
#[derive(Debug)]
struct Session {
    experimental: bool,
}

/// Handles the messages of one connection.
pub struct Processor {
    outgoing: Arc<OutgoingSender>,
    engine: Engine,
    session: OnceLock<Session>,
    initialize_lock: tokio::sync::Mutex<()>,
    utilities: Utilities,
    history: Option<Arc<tandem_history::service::HistoryService>>,
    conversation_api: ConversationApi,
    approver: Option<Arc<approvals::ClientApprover>>,
}

impl Processor {
    /// A processor answering through `outgoing` and driving `engine`.
    pub fn new(outgoing: Arc<OutgoingSender>, engine: Engine) -> Self {
        Self {
            outgoing,
            conversation_api: ConversationApi::new(
                engine.clone(),
                Arc::new(Conversations::default()),
            ),
            engine,
            session: OnceLock::new(),
            initialize_lock: tokio::sync::Mutex::new(()),
            utilities: Utilities::new(),
            history: None,
            approver: None,
        }
    }

    /// Shares the conversation state with the connection's approver, which sends their
    /// events and questions in the first-generation shapes.
    pub fn with_conversations(mut self, conversations: Arc<Conversations>) -> Self {
        self.conversation_api = ConversationApi::new(self.engine.clone(), conversations);
        self
    }

    /// Tells `approver` which request carries `request_user_input` questions once the client
    /// has chosen at `initialize`.
    pub fn with_approver(mut self, approver: Arc<approvals::ClientApprover>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Serves `history/search` and `history/open` from `history`.
    pub fn with_history(
        mut self,
        history: Option<Arc<tandem_history::service::HistoryService>>,
    ) -> Self {
        self.history = history;
        self
    }

    /// Handles one request; always answers it, with `-32603` if its handler panics.
    pub async fn handle_request(&self, id: RequestId, method: &str, message: Value) {
        let handling = self.handle_request_unguarded(id.clone(), method, message);
        if let Err(reason) = catch_panic(handling).await {
            tracing::error!(%id, method, reason, "request handler panicked");
            let error = internal_error(format!("internal error: {reason}"));
            self.outgoing.send_error(id, error).await;
        }
    }

    async fn handle_request_unguarded(&self, id: RequestId, method: &str, message: Value) {
        if method == "initialize" {
            self.initialize(id, message).await;
            return;
        }
        let Some(session) = self.session.get() else {
            self.outgoing
                .send_error(id, invalid_request("Not initialized"))
                .await;
            return;
        };
        match gate_request(id, message, session.experimental) {
            Ok((id, payload)) => self.dispatch(id, payload).await,
            Err((id, error)) => self.outgoing.send_error(id, error).await,
        }
    }

    /// Handles a client notification (`initialized` is accepted; others are logged).
    pub fn handle_notification(&self, method: &str) {
        if method != "initialized" {
            tracing::warn!(method, "ignoring unknown client notification");
        }
    }

    /// Delivers a client's answer to a server request.
    pub fn handle_response(&self, id: RequestId, outcome: Result<Value, Value>) {
        if !self.outgoing.pending().resolve(&id, outcome) {
            tracing::warn!(%id, "ignoring a response to a server request that is not pending");
        }
    }

    async fn initialize(&self, id: RequestId, message: Value) {
        let _guard = self.initialize_lock.lock().await;
        if self.session.get().is_some() {
            self.outgoing
                .send_error(id, invalid_request("Already initialized"))
                .await;
            return;
        }
        let params: InitializeParams = match serde_json::from_value::<ClientRequest>(message) {
            Ok(ClientRequest::Initialize { params, .. }) => params,
            Ok(_) => {
                self.outgoing
                    .send_error(id, internal_error("initialize decoded as another method"))
                    .await;
                return;
            }
            Err(error) => {
                self.outgoing
                    .send_error(id, invalid_request(format!("Invalid request: {error}")))
                    .await;
                return;
            }
        };
        let capabilities = params.capabilities.unwrap_or_default();
        let experimental = capabilities.experimental_api.unwrap_or(false);
        self.outgoing.set_filter(NotificationFilter {
            experimental,
            opted_out: capabilities
                .opt_out_notification_methods
                .unwrap_or_default()
                .into_iter()
                .collect::<HashSet<_>>(),
        });
        self.engine.set_originator(&params.client_info.name);
        // The structured dialogs are experimental server requests: only a client that opted
        // in can answer them, so only its model is offered `ask_user` and `ask_user_question`.
        self.engine.set_dialogs(experimental);
        if let Some(approver) = &self.approver {
            approver
                .set_user_input_method(capabilities.request_user_input_method.unwrap_or_default());
        }
        let agent = user_agent(&params.client_info.name, &params.client_info.version);
        self.conversation_api.set_user_agent(agent.clone());
        let _ = self.session.set(Session { experimental });
        let response = InitializeResponse {
            user_agent: agent,
            codex_home: self.engine.config().home.to_string_lossy().into_owned(),
            platform_family: if cfg!(windows) { "windows" } else { "unix" }.to_string(),
            platform_os: std::env::consts::OS.to_string(),
        };
        self.outgoing.send_response(id, &response).await;
    }

    async fn respond<T: Serialize>(&self, id: RequestId, result: Result<T, EngineError>) -> bool {
        match result {
            Ok(value) => {
                self.outgoing.send_response(id, &value).await;
                true
            }
            Err(error) => {
                self.send_engine_error(id, error).await;
                false
            }
        }
    }

    async fn send_engine_error(&self, id: RequestId, error: EngineError) {
        let body = match &error {
            EngineError::InvalidRequest(message) => invalid_request(message),
            EngineError::Internal(message) => internal_error(message),
        };
        self.outgoing.send_error(id, body).await;
    }

    /// Sends a conversation-API reply: the response, its notifications, then its turn.
    async fn finish(&self, id: RequestId, reply: Reply) {
        match reply.response {
            Ok(value) => self.outgoing.send_response(id, &value).await,
            Err(error) => self.outgoing.send_error(id, error).await,
        }
        for notification in reply.notifications {
            self.notify(notification).await;
        }
        if let Some(launcher) = reply.launcher {
            launcher.launch();
        }
    }

    async fn notify(&self, notification: ServerNotification) {
        self.outgoing.send_notification(&notification).await;
    }

    /// One arm per method; no wildcard, so a new table entry fails to compile until handled.
    async fn dispatch(&self, id: RequestId, payload: ClientRequestPayload) {
        match payload {
            ClientRequestPayload::Initialize(_) => {
                self.outgoing
                    .send_error(id, invalid_request("Already initialized"))
                    .await;
            }
            ClientRequestPayload::ThreadStart(params) => {
                let result = self.engine.start_thread(params).await;
                if let Ok(response) = &result {
                    let thread = response.thread.clone();
                    self.outgoing.send_response(id, response).await;
                    self.notify(ServerNotification::ThreadStarted(
                        ThreadStartedNotification { thread },
                    ))
                    .await;
                } else {
                    self.respond(id, result).await;
                }
            }
            ClientRequestPayload::ThreadResume(params) => {
                match self.engine.resume_thread(params).await {
                    Ok((response, usage)) => {
                        let thread_id = response.thread.id.clone();
                        self.outgoing.send_response(id, &response).await;
                        self.replay_usage(&thread_id, usage).await;
                        self.notify(ServerNotification::ThreadGoalCleared(
                            ThreadIdNotification { thread_id },
                        ))
                        .await;
                    }
                    Err(error) => self.send_engine_error(id, error).await,
                }
            }
            ClientRequestPayload::ThreadFork(params) => match self.engine.fork_thread(params).await
            {
                Ok((response, usage)) => {
                    if !response.thread.turns.is_empty() {
                        self.notify(ServerNotification::DeprecationNotice(
                            DeprecationNoticeNotification {
                                summary: crate::engine::RESUME_DEPRECATION.to_string(),
                                details: None,
                            },
                        ))
                        .await;
                    }
                    let thread = response.thread.clone();
                    self.outgoing.send_response(id, &response).await;
                    self.replay_usage(&thread.id, usage).await;
                    let mut started = thread;
                    started.turns.clear();
                    self.notify(ServerNotification::ThreadStarted(
                        ThreadStartedNotification { thread: started },
                    ))
                    .await;
                }
                Err(error) => self.send_engine_error(id, error).await,
            },
            ClientRequestPayload::ThreadList(params) => {
                let result = self.engine.list_threads(params).await;
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadRead(params) => {
                let result = self
                    .engine
                    .read_thread(params)
                    .await
                    .map(|thread| ThreadReadResponse { thread });
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadTurnsList(params) => {
                let result = self.engine.list_turns(params);
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadArchive(params) => {
                let result = self.engine.archive_thread(&params.thread_id).await;
                if let Ok(()) = result {
                    self.outgoing.send_response(id, &EmptyResponse {}).await;
                    let thread_id = crate::engine::normalize_thread_id(&params.thread_id)
                        .unwrap_or(params.thread_id);
                    self.notify(ServerNotification::ThreadArchived(ThreadIdNotification {
                        thread_id,
                    }))
                    .await;
                } else {
                    self.respond(id, result).await;
                }
            }
            ClientRequestPayload::ThreadUnarchive(params) => {
                match self.engine.unarchive_thread(&params.thread_id).await {
                    Ok(thread) => {
                        let thread_id = thread.id.clone();
                        self.outgoing
                            .send_response(id, &ThreadUnarchiveResponse { thread })
                            .await;
                        self.notify(ServerNotification::ThreadUnarchived(ThreadIdNotification {
                            thread_id,
                        }))
                        .await;
                    }
                    Err(error) => self.send_engine_error(id, error).await,
                }
            }
            ClientRequestPayload::ThreadSetName(params) => {
                match self
                    .engine
                    .set_thread_name(&params.thread_id, &params.name)
                    .await
                {
                    Ok(thread_id) => {
                        self.outgoing.send_response(id, &EmptyResponse {}).await;
                        self.notify(ServerNotification::ThreadNameUpdated(
                            ThreadNameUpdatedNotification {
                                thread_id,
                                thread_name: Some(params.name.trim().to_string()),
                            },
                        ))
                        .await;
                    }
                    Err(error) => self.send_engine_error(id, error).await,
                }
            }
            ClientRequestPayload::ThreadLoadedList(params) => {
                let result = self.engine.loaded_threads(params);
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadUnsubscribe(params) => {
                let result = self
                    .engine
                    .unsubscribe(&params.thread_id)
                    .await
                    .map(|status| ThreadUnsubscribeResponse { status });
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadRollback(params) => {
                let result = self.engine.rollback_thread(params).await;
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadCompactStart(params) => {
                match self.engine.start_compaction(&params.thread_id) {
                    Ok(launcher) => {
                        self.outgoing.send_response(id, &EmptyResponse {}).await;
                        launcher.launch();
                    }
                    Err(error) => self.send_engine_error(id, error).await,
                }
            }
            ClientRequestPayload::TurnStart(params) => match self.engine.start_turn(params) {
                Ok((turn, launcher)) => {
                    self.outgoing
                        .send_response(id, &TurnStartResponse { turn })
                        .await;
                    if let Some(launcher) = launcher {
                        launcher.launch();
                    }
                }
                Err(error) => self.send_engine_error(id, error).await,
            },
            ClientRequestPayload::TurnInterrupt(params) => {
                match self
                    .engine
                    .prepare_interrupt(&params.thread_id, &params.turn_id)
                {
                    Ok(handle) => {
                        self.outgoing.send_response(id, &EmptyResponse {}).await;
                        handle.interrupt();
                    }
                    Err(error) => self.send_engine_error(id, error).await,
                }
            }
            ClientRequestPayload::TurnSteer(params) => {
                let result = self
                    .engine
                    .steer_turn(params)
                    .map(|turn_id| TurnSteerResponse { turn_id });
                self.respond(id, result).await;
            }
            ClientRequestPayload::ModelList(params) => {
                let result = self.engine.list_models(params).await;
                self.respond(id, result).await;
            }
            ClientRequestPayload::CollaborationModeList(_) => {
                let response = CollaborationModeListResponse {
                    data: crate::engine::collaboration_mode_presets(),
                };
                self.reply(id, Ok(response)).await;
            }
            ClientRequestPayload::ConfigRead(params) => {
                let mut response = config_read_response(
                    self.engine.config(),
                    params.include_layers.unwrap_or(false),
                );
                let config = self.engine.config();
                let docs = crate::engine::agents_md::load_async(
                    config.home.clone(),
                    crate::engine::resolve_cwd(params.cwd.as_deref()),
                    config.project_doc_max_bytes,
                )
                .await;
                response.instruction_sources = (!docs.sources.is_empty()).then_some(docs.sources);
                self.outgoing.send_response(id, &response).await;
            }
            ClientRequestPayload::CommandExec(params) => {
                let result = self.command_exec(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::CommandExecWrite(params) => {
                let result = self.command_exec_write(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::CommandExecResize(params) => {
                let result = self.command_exec_resize(params);
                self.reply(id, result).await;
            }
            ClientRequestPayload::CommandExecTerminate(params) => {
                let result = self.command_exec_terminate(params);
                self.reply(id, result).await;
            }
            ClientRequestPayload::FuzzyFileSearch(params) => {
                let result = self.fuzzy_file_search(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::GitDiffToRemote(params) => {
                let reply = self.conversation_api.git_diff_to_remote(params).await;
                self.finish(id, reply).await;
            }
            ClientRequestPayload::GetAuthStatus(params) => {
                let reply = self.conversation_api.auth_status(&params);
                self.finish(id, reply).await;
            }
            ClientRequestPayload::AccountRead(_) => {
                let response = self.account_read();
                self.reply(id, Ok(response)).await;
            }
            ClientRequestPayload::AccountLoginStart(params) => {
                match self.account_login_start(params).await {
                    Ok(response) => {
                        self.outgoing.send_response(id, &response).await;
                        self.announce_login().await;
                    }
                    Err(error) => self.outgoing.send_error(id, error).await,
                }
            }
            ClientRequestPayload::AccountLoginCancel(_) => {
                let response = self.account_login_cancel();
                self.reply(id, Ok(response)).await;
            }
            ClientRequestPayload::AccountLogout(_) => match self.account_logout().await {
                Ok(auth_mode) => {
                    self.outgoing.send_response(id, &EmptyResponse {}).await;
                    self.announce_auth_mode(auth_mode).await;
                }
                Err(error) => self.outgoing.send_error(id, error).await,
            },
            ClientRequestPayload::AccountRateLimitsRead(_) => {
                let response = self.account_rate_limits();
                self.reply(id, Ok(response)).await;
            }
            ClientRequestPayload::GetConversationSummary(params) => {
                let reply = self.conversation_api.conversation_summary(params).await;
                self.finish(id, reply).await;
            }
            ClientRequestPayload::NewConversation(params) => {
                let reply = self.conversation_api.new_conversation(params).await;
                self.finish(id, reply).await;
            }
            ClientRequestPayload::SendUserMessage(params) => {
                let reply = self.conversation_api.send_user_message(id.clone(), params);
                self.finish(id, reply).await;
            }
            ClientRequestPayload::SendUserTurn(params) => {
                let reply = self.conversation_api.send_user_turn(id.clone(), params);
                self.finish(id, reply).await;
            }
            ClientRequestPayload::InterruptConversation(params) => {
                let reply = self.conversation_api.interrupt_conversation(params).await;
                self.finish(id, reply).await;
            }
            ClientRequestPayload::ListConversations(params) => {
                let reply = self.conversation_api.list_conversations(params).await;
                self.finish(id, reply).await;
            }
            ClientRequestPayload::ResumeConversation(params) => {
                let reply = self.conversation_api.resume_conversation(params).await;
                self.finish(id, reply).await;
            }
            ClientRequestPayload::ArchiveConversation(params) => {
                let reply = self.conversation_api.archive_conversation(params).await;
                self.finish(id, reply).await;
            }
            ClientRequestPayload::GetUserSavedConfig(_) => {
                let reply = self.conversation_api.user_saved_config().await;
                self.finish(id, reply).await;
            }
            ClientRequestPayload::SetDefaultModel(params) => {
                let reply = self.conversation_api.set_default_model(params).await;
                self.finish(id, reply).await;
            }
            ClientRequestPayload::GetUserAgent(_) => {
                let reply = self.conversation_api.user_agent();
                self.finish(id, reply).await;
            }
            ClientRequestPayload::UserInfo(_) => {
                let reply = self.conversation_api.user_info();
                self.finish(id, reply).await;
            }
            ClientRequestPayload::ExecOneOffCommand(params) => {
                let reply = self.conversation_api.exec_one_off_command(params).await;
                self.finish(id, reply).await;
            }
            ClientRequestPayload::HistorySearch(params) => {
                let result = self.history_search(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::HistoryOpen(params) => {
                let result = self.history_open(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::IndexQuery(params) => {
                let result = self.index_query(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::IndexRefresh(params) => {
                let result = self.index_refresh(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::McpServerStatusList(params) => {
                let result = self.engine.list_mcp_server_status(params);
                self.respond(id, result).await;
            }
        }
    }

    async fn replay_usage(
        &self,
        thread_id: &str,
        usage: Option<app_server_protocol::thread::ThreadTokenUsage>,
    ) {
        if let Some(token_usage) = usage {
            self.notify(ServerNotification::ThreadTokenUsageUpdated(
                ThreadTokenUsageUpdatedNotification {
                    thread_id: thread_id.to_string(),
                    turn_id: String::new(),
                    token_usage,
                },
            ))
            .await;
        }
    }
}

/// Typed decoding and the experimental gates of one request (after `initialize`): the payload
/// to dispatch, or the error that answers the request.
pub(crate) fn gate_request(
    id: RequestId,
    mut message: Value,
    experimental: bool,
) -> Result<(RequestId, ClientRequestPayload), (RequestId, JsonRpcErrorBody)> {
    if !experimental && let Some(descriptor) = experimental::ungated_experimental_use(&message) {
        let message = format!("{descriptor} requires experimentalApi capability");
        return Err((id, invalid_request(&message)));
    }
    if experimental && let Some(method) = experimental::unimplemented_experimental_method(&message)
    {
        return Err((id, method_not_supported(method)));
    }
    // Methods typed `NoParams` take none: an omitted `params` reads as `{}`; legacy methods
    // without params may also send `null`, as Codex's first-generation clients do. Every other
    // method requires `params`, as on the reference.
    if let Some(object) = message.as_object_mut()
        && let Some(method) = object.get("method").and_then(Value::as_str)
        && let Some(spec) = ClientRequest::METHODS
            .iter()
            .find(|spec| spec.method == method)
        && ((spec.params == "NoParams" && !object.contains_key("params"))
            || (spec.params == "LegacyEmptyParams"
                && object.get("params").is_none_or(Value::is_null)))
    {
        object.insert("params".to_string(), Value::Object(serde_json::Map::new()));
    }
    let request = match serde_json::from_value::<ClientRequest>(message) {
        Ok(request) => request,
        Err(error) => {
            return Err((id, invalid_request(format!("Invalid request: {error}"))));
        }
    };
    if request.stability() == Stability::Experimental && !experimental {
        let message = format!("{} requires experimentalApi capability", request.method());
        return Err((id, invalid_request(&message)));
    }
    let (id, payload) = request.into_parts();
    if let Some(field) = experimental_field(&payload)
        && !experimental
    {
        let message = format!("{field} requires experimentalApi capability");
        return Err((id, invalid_request(&message)));
    }
    Ok((id, payload))
}

/// `-32601 "method not supported: <method>"`: an experimental method of the reference that
/// Tandem does not implement.
fn method_not_supported(method: &str) -> JsonRpcErrorBody {
    crate::rpc_error::with_code(
        app_server_protocol::jsonrpc::error_codes::METHOD_NOT_FOUND,
        format!("method not supported: {method}"),
    )
}

/// The first experimental field or enum value a payload uses, with the reference's
/// descriptor (`<method>.<field>`, or `<type>.<value>` for an enum value; the reference names
/// `persistExtendedHistory` `persistFullHistory`). A boolean counts when `true`, an optional
/// field when present (`projectId` even when `null`, which selects threads of no project).
fn experimental_field(payload: &ClientRequestPayload) -> Option<&'static str> {
    match payload {
        ClientRequestPayload::TurnStart(params) if params.collaboration_mode.is_some() => {
            Some("turn/start.collaborationMode")
        }
        ClientRequestPayload::ThreadStart(params)
            if params.persist_extended_history == Some(true) =>
        {
            Some("thread/start.persistFullHistory")
        }
        ClientRequestPayload::ThreadResume(params)
            if params.persist_extended_history == Some(true) =>
        {
            Some("thread/resume.persistFullHistory")
        }
        ClientRequestPayload::ThreadFork(params)
            if params.persist_extended_history == Some(true) =>
        {
            Some("thread/fork.persistFullHistory")
        }
        ClientRequestPayload::ThreadList(params) => {
            if params.project_id.is_some() {
                Some("thread/list.projectId")
            } else if params.parent_thread_id.is_some() {
                Some("thread/list.parentThreadId")
            } else if params.ancestor_thread_id.is_some() {
                Some("thread/list.ancestorThreadId")
            } else if params.sort_key == Some(ThreadSortKey::RecencyAt) {
                Some("threadSortKey.recency_at")
            } else if params.sort_key == Some(ThreadSortKey::SectionPosition) {
                Some("threadSortKey.section_position")
            } else {
                None
            }
        }
        _ => None,
    }
}

/// `<client>/<protocol version> (<os> <os version>; <arch>) tandem/<version> (<client>; <client version>)`.
pub(crate) fn user_agent(client_name: &str, client_version: &str) -> String {
    format!(
        "{client_name}/{PROTOCOL_VERSION} ({} {}; {}) tandem/{} ({client_name}; {client_version})",
        os_name(),
        os_version(),
        std::env::consts::ARCH,
        env!("CARGO_PKG_VERSION"),
    )
}

fn os_name() -> &'static str {
    &os_release().0
}

fn os_version() -> &'static str {
    &os_release().1
}

/// The operating system's name and version for the user agent, read from `/etc/os-release`
/// once per process. `main` reads it before the runtime starts, so `initialize` does no file
/// I/O on an async worker.
pub(crate) fn os_release() -> &'static (String, String) {
    static OS_RELEASE: std::sync::OnceLock<(String, String)> = std::sync::OnceLock::new();
    OS_RELEASE.get_or_init(|| {
        let text = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
        let name = os_release_field(&text, "NAME").unwrap_or(std::env::consts::OS);
        let version = os_release_field(&text, "VERSION_ID").unwrap_or("unknown");
        (name.to_string(), version.to_string())
    })
}

fn os_release_field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let value = line.strip_prefix(key)?.strip_prefix('=')?;
        let value = value.trim_matches('"');
        if key == "NAME" {
            value.split(' ').next()
        } else {
            Some(value)
        }
    })
}

/// Turns a processor failure into a response (used by the stdio loop for overload).
pub fn overloaded() -> JsonRpcErrorBody {
    crate::rpc_error::overloaded()
}
