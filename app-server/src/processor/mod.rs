//! Per-connection dispatch of app-server requests: the `initialize` gate, typed decoding,
//! experimental gating, and mapping engine results to responses and notifications.

mod account_requests;
pub mod approvals;
mod config_requests;
mod fs_requests;
mod fuzzy_sessions;
mod history_requests;
mod housekeeping_requests;
mod index_requests;
mod initialize;
mod process_requests;
mod skills_requests;
pub mod subscriptions;
mod thread_attachments;
mod thread_lifecycle;
mod thread_open;
mod thread_read_state;
mod thread_sections;
mod thread_settings;
mod thread_subscriptions;
mod utility_requests;

use std::sync::{Arc, OnceLock};

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::notifications::ThreadTokenUsageUpdatedNotification;
use app_server_protocol::policy::CollaborationModeListResponse;
use app_server_protocol::shell_command::ThreadShellCommandResponse;
use app_server_protocol::tables::{ClientRequestPayload, ServerNotification};
use app_server_protocol::thread_goal::ThreadGoalGetResponse;
use app_server_protocol::thread_requests::EmptyResponse;
use app_server_protocol::turn_requests::{TurnStartResponse, TurnSteerResponse};
use serde::Serialize;
use serde_json::Value;

use crate::compat::conversations::Conversations;
use crate::compat::legacy_requests::{ConversationApi, Reply};
use crate::compat::requests::OsRelease;
use crate::outgoing::OutgoingSender;
use crate::processor::utility_requests::Utilities;
use crate::rpc_error::{internal_error, invalid_request};
use crate::unwind::catch_panic;
use tandem_core::config::config_read_response;
use tandem_core::engine::{Engine, EngineError};
use tandem_core::families::Families;

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
    history: Option<Arc<crate::history::History>>,
    conversation_api: ConversationApi,
    approver: Option<Arc<approvals::ClientApprover>>,
    families: Families,
    /// The operating system named in the user agent (read once by the server).
    os_release: OsRelease,
    /// On a listener: the principal's hub and this connection's place in it, so that the
    /// connection receives the events of the threads it subscribes to.
    hub: Option<(Arc<subscriptions::ThreadHub>, subscriptions::ConnectionId)>,
}

impl Processor {
    /// A processor answering through `outgoing` and driving `engine`, naming `os_release` in
    /// its user agent.
    pub fn new(outgoing: Arc<OutgoingSender>, engine: Engine, os_release: OsRelease) -> Self {
        Self {
            outgoing,
            os_release,
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
            families: tandem_core::families::front_ends::app_server_stdio(),
            hub: None,
        }
    }

    /// Makes this connection one of several on `hub`'s engine, as `connection`.
    pub fn with_hub(
        mut self,
        hub: Arc<subscriptions::ThreadHub>,
        connection: subscriptions::ConnectionId,
    ) -> Self {
        self.hub = Some((hub, connection));
        self
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
    pub fn with_history(mut self, history: Option<Arc<crate::history::History>>) -> Self {
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
        match crate::compat::requests::gate_request(id, message, session.experimental) {
            Ok((id, payload)) if !self.families.serves(payload.kind()) => {
                let error = crate::rpc_error::method_not_found(payload.method());
                self.outgoing.send_error(id, error).await;
            }
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
            ClientRequestPayload::ThreadStart(params) => self.thread_start(id, params).await,
            ClientRequestPayload::ThreadResume(params) => self.thread_resume(id, params).await,
            ClientRequestPayload::ThreadFork(params) => self.thread_fork(id, params).await,
            ClientRequestPayload::ThreadList(params) => {
                let result = self.engine.list_threads(params).await;
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadRead(params) => self.thread_read(id, params).await,
            ClientRequestPayload::ThreadReadStateUpdate(params) => {
                self.thread_read_state_update(id, params).await
            }
            ClientRequestPayload::ThreadTurnsList(params) => {
                let result = self.engine.list_turns(params).await;
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadItemsList(params) => {
                let result = self.engine.list_items(params).await;
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadArchive(params) => self.thread_archive(id, params).await,
            ClientRequestPayload::ThreadDelete(params) => self.thread_delete(id, params).await,
            ClientRequestPayload::ThreadMetadataUpdate(params) => {
                let result = self.engine.update_thread_metadata(params).await;
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadInjectItems(params) => {
                let result = self.engine.inject_items(params).await;
                self.respond(id, result.map(|()| EmptyResponse {})).await;
            }
            ClientRequestPayload::ThreadRevert(params) => self.thread_revert(id, params).await,
            ClientRequestPayload::ThreadGoalSet(params) => self.thread_goal_set(id, params).await,
            ClientRequestPayload::ThreadAttachmentAdd(params) => {
                self.thread_attachment_add(id, params).await
            }
            ClientRequestPayload::ThreadAttachmentList(params) => {
                let result = self.engine.list_attachments(params).await;
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadAttachmentRemove(params) => {
                self.thread_attachment_remove(id, params).await
            }
            ClientRequestPayload::ThreadGoalGet(params) => {
                let result = self.engine.goal(params).await;
                self.respond(id, result.map(|goal| ThreadGoalGetResponse { goal }))
                    .await;
            }
            ClientRequestPayload::ThreadGoalClear(params) => {
                self.thread_goal_clear(id, params).await
            }
            ClientRequestPayload::ThreadUnarchive(params) => {
                self.thread_unarchive(id, params).await
            }
            ClientRequestPayload::ThreadSetName(params) => self.thread_set_name(id, params).await,
            ClientRequestPayload::ThreadLoadedList(params) => {
                let result = self.engine.loaded_threads(params);
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadUnsubscribe(params) => {
                self.unsubscribe(id, &params.thread_id).await;
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
            ClientRequestPayload::ThreadShellCommand(params) => {
                match self.engine.start_shell_command(params) {
                    Ok(launcher) => {
                        self.outgoing
                            .send_response(id, &ThreadShellCommandResponse {})
                            .await;
                        launcher.launch();
                    }
                    Err(error) => self.send_engine_error(id, error).await,
                }
            }
            ClientRequestPayload::ReviewStart(params) => {
                match self.engine.start_review(params).await {
                    Ok((response, launcher)) => {
                        self.outgoing.send_response(id, &response).await;
                        launcher.launch();
                    }
                    Err(error) => self.send_engine_error(id, error).await,
                }
            }
            ClientRequestPayload::ThreadBackgroundTerminalsList(params) => {
                let result = self.engine.list_background_terminals(params);
                self.respond(id, result).await;
            }
            ClientRequestPayload::ThreadQueueAdd(params) => match self.engine.queue_add(params) {
                Ok((response, follow_up)) => {
                    self.outgoing.send_response(id, &response).await;
                    follow_up.run().await;
                }
                Err(error) => self.send_engine_error(id, error).await,
            },
            ClientRequestPayload::ThreadSectionCreate(params) => {
                self.thread_section_create(id, params).await
            }
            ClientRequestPayload::ThreadSectionList(params) => {
                self.thread_section_list(id, params).await
            }
            ClientRequestPayload::ThreadSectionUpdate(params) => {
                self.thread_section_update(id, params).await
            }
            ClientRequestPayload::ThreadSectionDelete(params) => {
                self.thread_section_delete(id, params).await
            }
            ClientRequestPayload::ThreadSectionMove(params) => {
                self.thread_section_move(id, params).await
            }
            ClientRequestPayload::ThreadSettingsUpdate(params) => {
                self.thread_settings_update(id, params).await
            }
            ClientRequestPayload::ThreadQueueList(params) => {
                let result = self.engine.queue_list(params);
                self.respond(id, result).await;
            }
            ClientRequestPayload::TurnStart(params) => match self.start_turn(params).await {
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
                        handle.announced().await;
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
                    data: tandem_core::engine::collaboration_mode_presets(),
                };
                self.reply(id, Ok(response)).await;
            }
            ClientRequestPayload::ConfigRead(params) => {
                // The file may have changed since it was loaded (another process, an editor):
                // answer with what it says now, so that its version is the one a write checks.
                if let Err(error) = self.engine.reload_config().await {
                    tracing::warn!("config/read: config.toml not read again: {error}");
                }
                let mut response = config_read_response(
                    &self.engine.config(),
                    params.include_layers.unwrap_or(false),
                );
                let config = self.engine.config();
                let docs = tandem_core::engine::agents_md::load_async(
                    config.home.clone(),
                    tandem_core::engine::resolve_cwd(params.cwd.as_deref()),
                    config.project_doc_max_bytes,
                )
                .await;
                response.instruction_sources = (!docs.sources.is_empty()).then_some(docs.sources);
                if !self.engine.client_policy().reveal_credentials() {
                    tandem_core::access::redact_config_secrets(&mut response.config);
                    for layer in response.layers.iter_mut().flatten() {
                        tandem_core::access::redact_config_secrets(&mut layer.config);
                    }
                }
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
            ClientRequestPayload::ProcessSpawn(params) => self.process_spawn(id, params).await,
            ClientRequestPayload::ProcessWriteStdin(params) => {
                let result = self.process_write_stdin(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::ProcessKill(params) => {
                let result = self.process_kill(params);
                self.reply(id, result).await;
            }
            ClientRequestPayload::ProcessResizePty(params) => {
                let result = self.process_resize_pty(params);
                self.reply(id, result).await;
            }
            ClientRequestPayload::FuzzyFileSearchSessionStart(params) => {
                self.fuzzy_session_start(id, params).await;
            }
            ClientRequestPayload::FuzzyFileSearchSessionUpdate(params) => {
                self.fuzzy_session_update(id, params).await;
            }
            ClientRequestPayload::FuzzyFileSearchSessionStop(params) => {
                self.fuzzy_session_stop(&params);
                self.reply(id, Ok(EmptyResponse {})).await;
            }
            ClientRequestPayload::FsReadFile(params) => {
                let result = self.fs_read_file(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::FsWriteFile(params) => {
                let result = self.fs_write_file(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::FsCreateDirectory(params) => {
                let result = self.fs_create_directory(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::FsGetMetadata(params) => {
                let result = self.fs_get_metadata(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::FsReadDirectory(params) => {
                let result = self.fs_read_directory(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::FsRemove(params) => {
                let result = self.fs_remove(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::FsCopy(params) => {
                let result = self.fs_copy(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::FsWatch(params) => {
                let result = self.fs_watch(params).await;
                self.reply(id, result).await;
            }
            ClientRequestPayload::FsUnwatch(params) => {
                let result = self.fs_unwatch(params).await;
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
            ClientRequestPayload::MemoryStatus(_) => {
                let response = app_server_protocol::thread_search::MemoryStatusResponse {
                    v2_consolidated_threads: 0,
                    v2_ready: false,
                };
                self.reply(id, Ok(response)).await;
            }
            ClientRequestPayload::ThreadSearch(params) => {
                let result = self.thread_search(params).await;
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
            ClientRequestPayload::ConfigValueWrite(params) => {
                self.config_value_write(id, params).await;
            }
            ClientRequestPayload::ConfigBatchWrite(params) => {
                self.config_batch_write(id, params).await;
            }
            ClientRequestPayload::ConfigMcpServerReload(_) => {
                self.config_mcp_server_reload(id).await;
            }
            ClientRequestPayload::ConfigRequirementsRead(_) => {
                self.config_requirements_read(id).await;
            }
            ClientRequestPayload::ExperimentalFeatureList(params) => {
                self.experimental_feature_list(id, params).await;
            }
            ClientRequestPayload::ExperimentalFeatureEnablementSet(params) => {
                self.experimental_feature_enablement_set(id, params).await;
            }
            ClientRequestPayload::PermissionProfileList(params) => {
                self.permission_profile_list(id, params).await;
            }
            ClientRequestPayload::ModelProviderList(_) => self.model_provider_list(id).await,
            ClientRequestPayload::ModelProviderCapabilitiesRead(_) => {
                self.model_provider_capabilities_read(id).await;
            }
            ClientRequestPayload::ModelProviderConfigWrite(params) => {
                self.model_provider_config_write(id, params).await;
            }
            ClientRequestPayload::ModelProviderDefaultSet(params) => {
                self.model_provider_default_set(id, params).await;
            }
            ClientRequestPayload::SkillsList(params) => self.skills_list(id, params).await,
            ClientRequestPayload::SkillsConfigWrite(params) => {
                self.skills_config_write(id, params).await;
            }
            ClientRequestPayload::SkillsExtraRootsSet(params) => {
                self.skills_extra_roots_set(id, params).await;
            }
            ClientRequestPayload::HooksList(params) => {
                let result = self.engine.list_hooks(params).await;
                self.respond(id, result).await;
            }
            ClientRequestPayload::McpServerToolCall(params) => {
                let result = self.engine.call_mcp_tool(params).await;
                self.respond(id, result).await;
            }
            ClientRequestPayload::McpResourceRead(params) => {
                let result = self.engine.read_mcp_resource(params).await;
                self.respond(id, result).await;
            }
            ClientRequestPayload::FeedbackSave(params) => self.feedback_save(id, params).await,
            ClientRequestPayload::PluginList(params) => self.plugin_list(id, params).await,
            ClientRequestPayload::ExternalAgentConfigDetect(params) => {
                self.external_agent_detect(id, params).await;
            }
            ClientRequestPayload::ExternalAgentConfigImport(params) => {
                self.external_agent_import(id, params).await;
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

/// Turns a processor failure into a response (used by the stdio loop for overload).
pub fn overloaded() -> JsonRpcErrorBody {
    crate::rpc_error::overloaded()
}
