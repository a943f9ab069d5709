//! Legacy: the first-generation conversation API (`newConversation`, `sendUserMessage`, …)
//! on top of the thread API, served by both front ends: the app-server [`Processor`] and the
//! MCP session (`crate::mcp::legacy`) call the same [`ConversationApi`] methods and send the
//! [`Reply`] each returns in their own framing (the app-server processor and the MCP session).
//!
//! A conversation is a thread: these handlers translate the params, call the same engine
//! methods as `thread/*` and `turn/*`, and mark the thread as a conversation so that its
//! events also go out as `codex/event` and its approvals as `applyPatchApproval` /
//! `execCommandApproval` ([`crate::compat::conversations`]).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use app_server_protocol::codex_event::{CodexEventMeta, CodexEventNotification};
use app_server_protocol::config_requests::{ConfigEdit, MergeStrategy};
use app_server_protocol::conversation_summary::GetConversationSummaryParams;
use app_server_protocol::item::UserInput;
use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::legacy::{
    ArchiveConversationParams, ConversationSummary, ExecOneOffCommandParams,
    ExecOneOffCommandResponse, GetUserAgentResponse, GetUserSavedConfigResponse, InputItem,
    InterruptConversationParams, InterruptConversationResponse, LegacyApprovalPolicy,
    LegacyEmptyResponse, LegacyInputItem, ListConversationsParams, ListConversationsResponse,
    NewConversationParams, NewConversationResponse, ResumeConversationParams,
    ResumeConversationResponse, SendUserMessageParams, SendUserMessageResponse, SendUserTurnParams,
    SetDefaultModelParams, UserInfoResponse, UserSavedConfig,
};
use app_server_protocol::notifications::{ThreadIdNotification, ThreadStartedNotification};
use app_server_protocol::policy::{AskForApproval, SandboxPolicy};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{Thread, TurnStatus};
use app_server_protocol::thread_requests::{
    ThreadListParams, ThreadResumeParams, ThreadStartParams,
};
use app_server_protocol::turn_requests::TurnStartParams;
use app_server_protocol::utility::{CommandExecParams, GetAuthStatusParams, GitDiffToRemoteParams};
use serde::Serialize;
use serde_json::Value;

use crate::compat::codex_events::{history_events, session_configured};
use crate::compat::conversations::Conversations;
use crate::rpc_error::{internal_error, invalid_request};
use tandem_core::engine::{Engine, EngineError, TurnLauncher, normalize_thread_id};
use tandem_core::tools::exec::command_exec::CommandExecRegistry;

/// How long `interruptConversation` waits for the turn to stop before answering anyway.
const INTERRUPT_WAIT: Duration = Duration::from_secs(30);

/// `listConversations` page size when none is given.
const DEFAULT_PAGE_SIZE: u32 = 25;

/// The conversation API of one app-server connection or one MCP session, over its engine.
pub struct ConversationApi {
    engine: Engine,
    /// The threads opened (or driven) through this API.
    conversations: Arc<Conversations>,
    /// The running `execOneOffCommand`s, killed when the connection closes.
    commands: CommandExecRegistry,
    /// The user agent `getUserAgent` answers (fixed at `initialize`).
    user_agent: OnceLock<String>,
}

/// What one request produced. The front end sends, in this order: the response, the
/// notifications (thread-API notifications and `codex/event`s; the MCP adapter sends only the
/// latter), then launches the turn, so that no event of the turn precedes the response.
pub struct Reply {
    /// The response body or the error.
    pub response: Result<Value, JsonRpcErrorBody>,
    /// Notifications that follow the response.
    pub notifications: Vec<ServerNotification>,
    /// The turn to launch once the response is out.
    pub launcher: Option<TurnLauncher>,
}

impl Reply {
    /// A reply with no follow-up.
    fn of<T: Serialize>(result: Result<T, JsonRpcErrorBody>) -> Self {
        let response = result.and_then(|value| {
            serde_json::to_value(value)
                .map_err(|error| internal_error(format!("response not serializable: {error}")))
        });
        Self {
            response,
            notifications: Vec::new(),
            launcher: None,
        }
    }

    /// An engine failure.
    fn engine_error(error: EngineError) -> Self {
        Self::of::<Value>(Err(engine_error(error)))
    }
}

/// The JSON-RPC error of an engine failure.
pub fn engine_error(error: EngineError) -> JsonRpcErrorBody {
    match error {
        EngineError::InvalidRequest(message) => invalid_request(message),
        EngineError::Internal(message) => internal_error(message),
    }
}

impl ConversationApi {
    /// The API over `engine`, recording its conversations in `conversations` (shared with the
    /// front end's event sink and approver).
    pub fn new(engine: Engine, conversations: Arc<Conversations>) -> Self {
        Self {
            engine,
            conversations,
            commands: CommandExecRegistry::default(),
            user_agent: OnceLock::new(),
        }
    }

    /// Fixes the user agent `getUserAgent` answers; later calls are ignored.
    pub fn set_user_agent(&self, user_agent: String) {
        let _ = self.user_agent.set(user_agent);
    }

    /// Kills every running `execOneOffCommand` (and any started later).
    pub fn close(&self) {
        self.commands.terminate_all();
    }

    /// `newConversation`: `thread/start` with the legacy params; the conversation's first
    /// events (`session_configured`, `mcp_startup_complete`) follow the response.
    pub async fn new_conversation(&self, mut params: NewConversationParams) -> Reply {
        let compact_prompt = params.compact_prompt.take();
        let start = match thread_start_params(params) {
            Ok(start) => start,
            Err(error) => return Reply::of::<Value>(Err(error)),
        };
        let response = match self.engine.start_thread(start).await {
            Ok(response) => response,
            Err(error) => return Reply::engine_error(error),
        };
        let thread_id = response.thread.id.clone();
        if let Some(prompt) = compact_prompt
            && let Err(error) = self.engine.set_compact_prompt(&thread_id, prompt)
        {
            return Reply::engine_error(error);
        }
        self.conversations.open(&thread_id);
        let result = NewConversationResponse {
            conversation_id: thread_id.clone(),
            model: response.model.clone(),
            reasoning_effort: response.reasoning_effort,
            rollout_path: response.thread.path.clone().unwrap_or_default(),
        };
        let mut reply = Reply::of(Ok(result));
        reply.notifications.push(ServerNotification::ThreadStarted(
            ThreadStartedNotification {
                thread: response.thread.clone(),
            },
        ));
        for msg in session_configured(&response) {
            reply
                .notifications
                .push(ServerNotification::CodexEvent(CodexEventNotification {
                    meta: CodexEventMeta {
                        request_id: None,
                        thread_id: thread_id.clone(),
                    },
                    id: String::new(),
                    msg,
                }));
        }
        reply
    }

    /// `sendUserMessage`: `turn/start` with the conversation's settings; the turn's events
    /// carry `request_id`.
    pub fn send_user_message(&self, request_id: RequestId, params: SendUserMessageParams) -> Reply {
        let start = TurnStartParams {
            thread_id: params.conversation_id,
            input: user_inputs(params.items),
            ..turn_start_defaults()
        };
        self.start_conversation_turn(request_id, start)
    }

    /// `sendUserTurn`: `turn/start` with explicit settings, which stay for later turns.
    pub fn send_user_turn(&self, request_id: RequestId, params: SendUserTurnParams) -> Reply {
        let start = TurnStartParams {
            thread_id: params.conversation_id,
            input: user_inputs(params.items),
            cwd: Some(params.cwd),
            approval_policy: Some(approval_policy(params.approval_policy)),
            sandbox_policy: Some(params.sandbox_policy),
            model: Some(params.model),
            effort: params.effort,
            summary: Some(params.summary),
            personality: params.personality,
            output_schema: params.output_schema,
            ..turn_start_defaults()
        };
        self.start_conversation_turn(request_id, start)
    }

    fn start_conversation_turn(&self, request_id: RequestId, start: TurnStartParams) -> Reply {
        let thread_id = match normalize_thread_id(&start.thread_id) {
            Ok(thread_id) => thread_id,
            Err(error) => return Reply::engine_error(error),
        };
        // A thread becomes a conversation when a legacy method drives it.
        self.conversations.open(&thread_id);
        self.conversations.set_request(&thread_id, request_id);
        match self.engine.start_turn(start) {
            Ok((_turn, launcher)) => {
                let mut reply = Reply::of(Ok(SendUserMessageResponse {}));
                reply.launcher = launcher;
                reply
            }
            Err(error) => Reply::engine_error(error),
        }
    }

    /// `interruptConversation`: interrupts the running turn and answers once it has stopped.
    pub async fn interrupt_conversation(&self, params: InterruptConversationParams) -> Reply {
        let thread_id = match normalize_thread_id(&params.conversation_id) {
            Ok(thread_id) => thread_id,
            Err(error) => return Reply::engine_error(error),
        };
        let handle = self
            .engine
            .active_turn_id(&thread_id)
            .and_then(|turn_id| self.engine.prepare_interrupt(&thread_id, &turn_id));
        let handle = match handle {
            Ok(handle) => handle,
            Err(error) => return Reply::engine_error(error),
        };
        self.conversations.open(&thread_id);
        let ended = self.conversations.wait_turn_end(&thread_id);
        handle.interrupt();
        let status = tokio::time::timeout(INTERRUPT_WAIT, ended).await;
        let abort_reason = match status {
            Ok(Ok(TurnStatus::Completed)) => "completed",
            Ok(Ok(TurnStatus::Failed)) => "failed",
            _ => "interrupted",
        };
        Reply::of(Ok(InterruptConversationResponse {
            abort_reason: abort_reason.to_string(),
        }))
    }

    /// `listConversations`: `thread/list`, newest first, as conversation summaries.
    pub async fn list_conversations(&self, params: ListConversationsParams) -> Reply {
        let list = ThreadListParams {
            cursor: params.cursor,
            limit: Some(params.page_size.unwrap_or(DEFAULT_PAGE_SIZE)),
            model_providers: params.model_providers,
            ..ThreadListParams::default()
        };
        let result = self
            .engine
            .list_threads(list)
            .await
            .map(|page| ListConversationsResponse {
                items: page.data.iter().map(conversation_summary).collect(),
                next_cursor: page.next_cursor,
            });
        Reply::of(result.map_err(engine_error))
    }

    /// `resumeConversation`: `thread/resume` by id or rollout path; the stored messages come
    /// back as Codex events.
    pub async fn resume_conversation(&self, params: ResumeConversationParams) -> Reply {
        let thread_id = match (&params.conversation_id, &params.path) {
            (Some(conversation_id), _) => conversation_id.clone(),
            (None, Some(path)) => match thread_id_of_rollout(path) {
                Some(thread_id) => thread_id,
                None => {
                    let message = format!("not a rollout path: {path}");
                    return Reply::of::<Value>(Err(invalid_request(message)));
                }
            },
            (None, None) => {
                let message = "resumeConversation needs `conversationId` or `path`";
                return Reply::of::<Value>(Err(invalid_request(message)));
            }
        };
        let mut overrides = params.overrides.unwrap_or_default();
        let compact_prompt = overrides.compact_prompt.take();
        let start = match thread_start_params(overrides) {
            Ok(start) => start,
            Err(error) => return Reply::of::<Value>(Err(error)),
        };
        let resume = ThreadResumeParams {
            thread_id,
            model: start.model,
            model_provider: start.model_provider,
            service_tier: None,
            cwd: start.cwd,
            approval_policy: start.approval_policy,
            approvals_reviewer: None,
            sandbox: start.sandbox,
            config: start.config,
            base_instructions: start.base_instructions,
            developer_instructions: start.developer_instructions,
            personality: None,
            exclude_turns: Some(false),
            persist_extended_history: None,
        };
        match self.engine.resume_thread(resume).await {
            Ok((response, _usage)) => {
                let thread_id = response.thread.id.clone();
                if let Some(prompt) = compact_prompt
                    && let Err(error) = self.engine.set_compact_prompt(&thread_id, prompt)
                {
                    return Reply::engine_error(error);
                }
                self.conversations.open(&thread_id);
                Reply::of(Ok(ResumeConversationResponse {
                    conversation_id: thread_id,
                    model: response.model.clone(),
                    initial_messages: Some(history_events(&response.thread.turns)),
                    rollout_path: response.thread.path.clone().unwrap_or_default(),
                }))
            }
            Err(error) => Reply::engine_error(error),
        }
    }

    /// `archiveConversation`: `thread/archive`.
    pub async fn archive_conversation(&self, params: ArchiveConversationParams) -> Reply {
        match self.engine.archive_thread(&params.conversation_id).await {
            Ok(()) => {
                let thread_id =
                    normalize_thread_id(&params.conversation_id).unwrap_or(params.conversation_id);
                let mut reply = Reply::of(Ok(LegacyEmptyResponse {}));
                reply.notifications.push(ServerNotification::ThreadArchived(
                    ThreadIdNotification { thread_id },
                ));
                reply
            }
            Err(error) => Reply::engine_error(error),
        }
    }

    /// `getUserSavedConfig`: the settings of `$TANDEM_HOME/config.toml` as saved.
    pub async fn user_saved_config(&self) -> Reply {
        let path = self.engine.config().home.join("config.toml");
        let text = match tokio::fs::read_to_string(&path).await {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(error) => {
                let message = format!("cannot read {}: {error}", path.display());
                return Reply::of::<Value>(Err(internal_error(message)));
            }
        };
        let reveal = self.engine.client_policy().reveal_credentials();
        let result = toml::from_str::<toml::Table>(&text)
            .map(|table| {
                let mut config = saved_config(&table);
                if !reveal {
                    // Profiles and tools may hold provider headers or MCP servers' secrets.
                    config
                        .profiles
                        .values_mut()
                        .for_each(tandem_core::access::redact_config_secrets);
                    config
                        .tools
                        .iter_mut()
                        .for_each(tandem_core::access::redact_config_secrets);
                }
                GetUserSavedConfigResponse { config }
            })
            .map_err(|error| internal_error(format!("cannot parse {}: {error}", path.display())));
        Reply::of(result)
    }

    /// `setDefaultModel`: edits `model` and `model_reasoning_effort` in `config.toml`,
    /// keeping the rest of the file (comments, order, spacing) as it is.
    pub async fn set_default_model(&self, params: SetDefaultModelParams) -> Reply {
        let effort = params
            .reasoning_effort
            .map(|effort| serde_json::Value::String(tandem_core::audit::wire_name(&effort)));
        let edit = |key_path: &str, value: Option<serde_json::Value>| ConfigEdit {
            key_path: key_path.to_owned(),
            value: value.unwrap_or(serde_json::Value::Null),
            merge_strategy: MergeStrategy::Replace,
        };
        let edits = vec![
            edit("model", params.model.map(serde_json::Value::String)),
            edit("model_reasoning_effort", effort),
        ];
        // The same write as `config/batchWrite`: the operator's policy, the lock against
        // concurrent writers, and new threads using the new default.
        let written = self.engine.write_config(None, edits, None).await;
        Reply::of(match written {
            Ok(_) => Ok(LegacyEmptyResponse {}),
            Err(error) => Err(crate::rpc_error::config_write_error(&error)),
        })
    }

    /// `getUserAgent`.
    pub fn user_agent(&self) -> Reply {
        let user_agent = self.user_agent.get().cloned().unwrap_or_default();
        Reply::of(Ok(GetUserAgentResponse { user_agent }))
    }

    /// `userInfo`: Tandem knows no account e-mail.
    pub fn user_info(&self) -> Reply {
        Reply::of(Ok(UserInfoResponse {
            alleged_user_email: None,
        }))
    }

    /// `getAuthStatus`: the same state as `account/read`.
    pub fn auth_status(&self, params: &GetAuthStatusParams) -> Reply {
        Reply::of(Ok(crate::compat::auth::auth_status(&self.engine, params)))
    }

    /// `getConversationSummary`.
    pub async fn conversation_summary(&self, params: GetConversationSummaryParams) -> Reply {
        let result =
            crate::compat::conversation_summary::conversation_summary(&self.engine, params).await;
        Reply::of(result.map_err(engine_error))
    }

    /// `gitDiffToRemote`.
    pub async fn git_diff_to_remote(&self, params: GitDiffToRemoteParams) -> Reply {
        Reply::of(crate::compat::commands::git_diff(params).await)
    }

    /// `execOneOffCommand`: `command/exec` without streaming.
    pub async fn exec_one_off_command(&self, params: ExecOneOffCommandParams) -> Reply {
        let exec = CommandExecParams {
            command: params.command,
            process_id: None,
            tty: None,
            stream_stdin: None,
            stream_stdout_stderr: None,
            output_bytes_cap: None,
            disable_output_cap: None,
            timeout_ms: params
                .timeout_ms
                .map(|timeout| i64::try_from(timeout).unwrap_or(i64::MAX)),
            disable_timeout: None,
            cwd: params.cwd,
            env: None,
            size: None,
            sandbox_policy: params.sandbox_policy,
        };
        let result = crate::compat::commands::run_unstreamed(&self.engine, &self.commands, exec)
            .await
            .map(|response| ExecOneOffCommandResponse {
                exit_code: response.exit_code,
                stdout: response.stdout,
                stderr: response.stderr,
            });
        Reply::of(result)
    }
}

/// `thread/start` params for `newConversation` (and the overrides of `resumeConversation`).
fn thread_start_params(
    params: NewConversationParams,
) -> Result<ThreadStartParams, JsonRpcErrorBody> {
    let mut config: BTreeMap<String, serde_json::Value> =
        params.config.unwrap_or_default().into_iter().collect();
    if let Some(profile) = params.profile {
        config.insert("profile".to_string(), serde_json::Value::String(profile));
    }
    if params.sandbox == Some(app_server_protocol::legacy::LegacySandboxMode::ExternalSandbox) {
        // The host sandboxes the whole process; Tandem adds none of its own.
        let network = params
            .network_access
            .unwrap_or(app_server_protocol::policy::NetworkAccess::Restricted);
        tracing::info!(?network, "conversation runs in an external sandbox");
    } else if params.network_access.is_some() {
        return Err(invalid_request(
            "newConversation.networkAccess needs sandbox `external-sandbox`",
        ));
    }
    Ok(ThreadStartParams {
        model: params.model,
        model_provider: params.model_provider,
        cwd: params.cwd,
        approval_policy: params.approval_policy.map(approval_policy),
        sandbox: params.sandbox.map(|sandbox| sandbox.sandbox_mode()),
        config: (!config.is_empty()).then_some(config),
        base_instructions: params.base_instructions,
        developer_instructions: params.developer_instructions,
        ..ThreadStartParams::default()
    })
}

/// The thread API's approval policy for a legacy one (`on-failure` runs as `on-request`).
fn approval_policy(policy: LegacyApprovalPolicy) -> AskForApproval {
    match policy {
        LegacyApprovalPolicy::Untrusted => AskForApproval::Untrusted,
        LegacyApprovalPolicy::OnFailure | LegacyApprovalPolicy::OnRequest => {
            AskForApproval::OnRequest
        }
        LegacyApprovalPolicy::Never => AskForApproval::Never,
    }
}

fn turn_start_defaults() -> TurnStartParams {
    TurnStartParams {
        thread_id: String::new(),
        input: Vec::new(),
        client_user_message_id: None,
        cwd: None,
        approval_policy: None,
        approvals_reviewer: None,
        sandbox_policy: None::<SandboxPolicy>,
        model: None,
        service_tier: None,
        effort: None,
        summary: None,
        personality: None,
        output_schema: None,
        collaboration_mode: None,
    }
}

fn user_inputs(items: Vec<InputItem>) -> Vec<UserInput> {
    items
        .into_iter()
        .map(|item| match item {
            InputItem::Legacy(LegacyInputItem::Text { text }) => UserInput::Text {
                text,
                text_elements: None,
            },
            InputItem::Legacy(LegacyInputItem::Image { image_url }) => UserInput::Image {
                url: image_url,
                detail: None,
            },
            InputItem::Legacy(LegacyInputItem::LocalImage { path }) => {
                UserInput::LocalImage { detail: None, path }
            }
            InputItem::Flat(input) => input,
        })
        .collect()
}

fn conversation_summary(thread: &Thread) -> ConversationSummary {
    crate::compat::conversation_summary::summary_of(thread.clone())
}

use crate::compat::conversation_summary::thread_id_of_rollout;

fn saved_config(table: &toml::Table) -> UserSavedConfig {
    let string = |key: &str| {
        table
            .get(key)
            .and_then(|value| value.as_str())
            .map(str::to_string)
    };
    let json = |key: &str| {
        table
            .get(key)
            .and_then(|value| serde_json::to_value(value).ok())
    };
    UserSavedConfig {
        approval_policy: string("approval_policy"),
        sandbox_mode: typed(table, "sandbox_mode"),
        sandbox_settings: json("sandbox_workspace_write"),
        model: string("model"),
        model_reasoning_effort: typed(table, "model_reasoning_effort"),
        model_reasoning_summary: typed(table, "model_reasoning_summary"),
        model_verbosity: string("model_verbosity"),
        tools: json("tools"),
        profile: string("profile"),
        profiles: table
            .get("profiles")
            .and_then(|profiles| profiles.as_table())
            .map(|profiles| {
                profiles
                    .iter()
                    .filter_map(|(name, value)| {
                        serde_json::to_value(value)
                            .ok()
                            .map(|value| (name.clone(), value))
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// A setting decoded into its protocol type (`None` when absent or not a valid value).
fn typed<T: serde::de::DeserializeOwned>(table: &toml::Table, key: &str) -> Option<T> {
    let value = serde_json::to_value(table.get(key)?).ok()?;
    serde_json::from_value(value).ok()
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn rollout_paths_name_their_thread() {
        assert_eq!(
            thread_id_of_rollout(
                "/h/sessions/2026/11/21/rollout-2026-11-21T21-54-34-01a2001a-a166-7b70-878c-eac67e302289.jsonl"
            ),
            Some("01a2001a-a166-7b70-878c-eac67e302289".to_string())
        );
        assert_eq!(thread_id_of_rollout("/h/notes.txt"), None);
    }
}
