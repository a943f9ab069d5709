//! Thread and turn operations: what each `thread/*` and `turn/*` request does.

use std::path::PathBuf;
use std::sync::Arc;

use app_server_protocol::PROTOCOL_VERSION;
use app_server_protocol::item::{ThreadItem, ThreadItemDetails};
use app_server_protocol::notifications::{
    DeprecationNoticeNotification, ThreadIdNotification, ThreadStatusChangedNotification,
};
use app_server_protocol::policy::{ApprovalsReviewer, SandboxMode, SandboxPolicy, SortDirection};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{
    Thread, ThreadStatus, ThreadTokenUsage, Turn, TurnItemsView, TurnStatus,
};
use app_server_protocol::thread_requests::{
    ThreadForkParams, ThreadListCwdFilter, ThreadListParams, ThreadListResponse,
    ThreadLoadedListParams, ThreadLoadedListResponse, ThreadReadParams, ThreadResumeParams,
    ThreadResumeResponse, ThreadSortKey, ThreadSourceKind, ThreadStartParams, ThreadStartResponse,
    ThreadTurnsListParams, ThreadTurnsListResponse, ThreadUnsubscribeStatus,
};
use app_server_protocol::turn_requests::{TurnStartParams, TurnSteerParams};
use app_server_protocol::utility::{
    InputModality, Model, ModelListParams, ModelListResponse, ReasoningEffortOption,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::config::{Config, ProviderConfig};
use crate::engine::thread::{ActiveTurn, LoadedThread, SteerInput, ThreadState, thread_from_meta};
use crate::engine::turn::TurnTask;
use crate::engine::{Engine, EngineError, EngineInner, lock};
use crate::model::{ModelClient, ResponseItem};
use crate::outgoing::unix_millis;
use crate::store::{ListQuery, RolloutRecord, StoreError, StoredThread, ThreadMeta};

const INCLUDE_TURNS_DEPRECATION: &str = "Full-history hydration is deprecated for paginated threads; omit `includeTurns` or set it to `false`, then page with `thread/turns/list` and `thread/items/list`.";
pub const RESUME_DEPRECATION: &str = "Full-history hydration is deprecated for paginated threads; use `excludeTurns: true`, then page with `thread/turns/list` and `thread/items/list`.";

/// Starts a prepared turn; returned by [`Engine::start_turn`] so that the caller can answer
/// the request before the turn's first notification.
pub struct TurnLauncher {
    engine: Arc<EngineInner>,
    task: TurnTask,
}

impl TurnLauncher {
    /// Spawns the turn.
    pub fn launch(self) {
        self.engine.tasks.spawn(self.task.run());
    }
}

/// Interrupts a turn; returned by [`Engine::prepare_interrupt`] so that the caller can answer
/// the request before `turn/completed`.
pub struct InterruptHandle {
    cancel: CancellationToken,
}

impl InterruptHandle {
    /// Interrupts the turn.
    pub fn interrupt(self) {
        self.cancel.cancel();
    }
}

/// Parses a thread id the way the reference server does (UUID, `urn:uuid:` and upper case
/// accepted, normalised to lowercase hyphenated).
pub fn normalize_thread_id(raw: &str) -> Result<String, EngineError> {
    uuid::Uuid::parse_str(raw)
        .map(|id| id.hyphenated().to_string())
        .map_err(|error| EngineError::InvalidRequest(format!("invalid thread id: {error}")))
}

fn resolve_cwd(cwd: Option<&str>) -> String {
    let base = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    let path = match cwd {
        Some(cwd) if !cwd.is_empty() => base.join(cwd),
        _ => base,
    };
    normalize_path(&path)
}

/// Removes `.` and `..` components without touching the file system (the directory may not
/// exist).
fn normalize_path(path: &std::path::Path) -> String {
    let mut parts: Vec<std::ffi::OsString> = Vec::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::CurDir
            | std::path::Component::RootDir
            | std::path::Component::Prefix(_) => {}
            std::path::Component::Normal(part) => parts.push(part.to_os_string()),
        }
    }
    let mut out = PathBuf::from("/");
    out.extend(parts);
    out.to_string_lossy().into_owned()
}

/// The object form of a sandbox mode, with the configured workspace-write settings.
pub fn sandbox_policy(mode: SandboxMode, config: &Config) -> SandboxPolicy {
    match mode {
        SandboxMode::ReadOnly => SandboxPolicy::ReadOnly {
            network_access: Some(false),
        },
        SandboxMode::DangerFullAccess => SandboxPolicy::DangerFullAccess,
        SandboxMode::WorkspaceWrite => {
            let settings = &config.sandbox_workspace_write;
            SandboxPolicy::WorkspaceWrite {
                writable_roots: Some(
                    settings
                        .writable_roots
                        .iter()
                        .map(|root| root.to_string_lossy().into_owned())
                        .collect(),
                ),
                network_access: Some(settings.network_access),
                exclude_tmpdir_env_var: Some(settings.exclude_tmpdir_env_var),
                exclude_slash_tmp: Some(settings.exclude_slash_tmp),
            }
        }
    }
}

fn provider_not_found(id: &str) -> EngineError {
    EngineError::InvalidRequest(format!(
        "failed to load configuration: Model provider `{id}` not found"
    ))
}

fn not_loaded(id: &str) -> EngineError {
    EngineError::InvalidRequest(format!("thread not loaded: {id}"))
}

fn no_rollout(id: &str) -> EngineError {
    EngineError::InvalidRequest(format!("no rollout found for thread id {id}"))
}

/// Overrides shared by start, resume and fork.
struct SettingsOverrides<'a> {
    model: Option<&'a String>,
    model_provider: Option<&'a String>,
    cwd: Option<&'a String>,
    approval_policy: Option<app_server_protocol::policy::AskForApproval>,
    sandbox: Option<SandboxMode>,
    base_instructions: Option<&'a String>,
    developer_instructions: Option<&'a String>,
}

impl Engine {
    fn thread(&self, id: &str) -> Option<Arc<LoadedThread>> {
        lock(&self.inner.threads).get(id).cloned()
    }

    fn client(&self, provider: &ProviderConfig) -> Result<Arc<dyn ModelClient>, EngineError> {
        let mut clients = lock(&self.inner.clients);
        if let Some(client) = clients.get(&provider.id) {
            return Ok(client.clone());
        }
        let client = crate::model::client_for(provider).map_err(|error| {
            EngineError::InvalidRequest(format!("failed to load configuration: {error}"))
        })?;
        clients.insert(provider.id.clone(), client.clone());
        Ok(client)
    }

    fn provider(&self, id: &str) -> Result<ProviderConfig, EngineError> {
        self.inner
            .config
            .model_providers
            .get(id)
            .cloned()
            .ok_or_else(|| provider_not_found(id))
    }

    /// Applies overrides to `meta`; returns the provider the thread now uses.
    fn apply_overrides(
        &self,
        meta: &mut ThreadMeta,
        overrides: &SettingsOverrides<'_>,
    ) -> Result<ProviderConfig, EngineError> {
        let config = &self.inner.config;
        if let Some(provider_id) = overrides.model_provider {
            let provider = self.provider(provider_id)?;
            meta.model_provider = provider.id.clone();
            if overrides.model.is_none() {
                meta.model = provider.default_model;
            }
        }
        let provider = self.provider(&meta.model_provider)?;
        if let Some(model) = overrides.model {
            meta.model = model.clone();
        }
        if let Some(cwd) = overrides.cwd {
            meta.cwd = resolve_cwd(Some(cwd));
        }
        if let Some(approval) = overrides.approval_policy {
            meta.approval_policy = approval;
        }
        if let Some(mode) = overrides.sandbox {
            meta.sandbox = sandbox_policy(mode, config);
        }
        if let Some(text) = overrides.base_instructions {
            meta.base_instructions = Some(text.clone());
        }
        if let Some(text) = overrides.developer_instructions {
            meta.developer_instructions = Some(text.clone());
        }
        Ok(provider)
    }

    fn register(&self, state: ThreadState) -> Arc<LoadedThread> {
        let thread = Arc::new(LoadedThread {
            id: state.meta.id.clone(),
            state: std::sync::Mutex::new(state),
        });
        lock(&self.inner.threads).insert(thread.id.clone(), thread.clone());
        thread
    }

    fn new_state(
        &self,
        meta: ThreadMeta,
        client: Arc<dyn ModelClient>,
        ephemeral: bool,
    ) -> ThreadState {
        ThreadState {
            meta,
            ephemeral,
            writer: None,
            status: ThreadStatus::Idle,
            turns: Vec::new(),
            history: Vec::new(),
            token_usage: None,
            active: None,
            approvals_reviewer: ApprovalsReviewer::User,
            collaboration_mode: None,
            client,
            environment_sent_for: None,
        }
    }

    async fn emit(&self, notification: ServerNotification) {
        self.inner.sink.emit(notification).await;
    }

    /// `thread/start`.
    pub fn start_thread(
        &self,
        params: ThreadStartParams,
    ) -> Result<ThreadStartResponse, EngineError> {
        let config = &self.inner.config;
        if let Some(overrides) = &params.config
            && !overrides.is_empty()
        {
            config.with_overrides(overrides).map_err(|error| {
                EngineError::InvalidRequest(format!("failed to load configuration: {error}"))
            })?;
        }
        let provider_id = params
            .model_provider
            .clone()
            .unwrap_or_else(|| config.model_provider.clone());
        let provider = self.provider(&provider_id)?;
        let model = params
            .model
            .clone()
            .or_else(|| {
                config
                    .model
                    .clone()
                    .filter(|_| provider_id == config.model_provider)
            })
            .unwrap_or_else(|| provider.default_model.clone());
        let id = uuid::Uuid::now_v7().to_string();
        let now_ms = unix_millis();
        let created_at = now_ms / 1000;
        let ephemeral = params.ephemeral.unwrap_or(false);
        let meta = ThreadMeta {
            id: id.clone(),
            created_at,
            updated_at_ms: now_ms,
            cwd: resolve_cwd(params.cwd.as_deref()),
            model_provider: provider.id.clone(),
            model,
            reasoning_effort: config.model_reasoning_effort,
            reasoning_summary: config.model_reasoning_summary,
            approval_policy: params.approval_policy.unwrap_or(config.approval_policy),
            sandbox: sandbox_policy(params.sandbox.unwrap_or(config.sandbox_mode), config),
            originator: lock(&self.inner.originator).clone(),
            source: "vscode".into(),
            cli_version: PROTOCOL_VERSION.into(),
            preview: String::new(),
            name: None,
            forked_from_id: None,
            thread_source: params.thread_source.clone(),
            base_instructions: params
                .base_instructions
                .clone()
                .or_else(|| config.base_instructions.clone()),
            developer_instructions: params
                .developer_instructions
                .clone()
                .or_else(|| config.developer_instructions.clone()),
            archived: false,
            rollout_path: self.inner.store.rollout_path_for(&id, created_at),
        };
        let client = self.client(&provider)?;
        let mut state = self.new_state(meta, client, ephemeral);
        state.approvals_reviewer = params.approvals_reviewer.unwrap_or(ApprovalsReviewer::User);
        let response = start_response(&state, params.service_tier);
        self.register(state);
        Ok(response)
    }

    /// `thread/resume`. Emits `deprecationNotice` (unless `excludeTurns`) and
    /// `thread/status/changed` before returning; the caller sends the result and then
    /// `thread/tokenUsage/updated` with the returned usage.
    pub async fn resume_thread(
        &self,
        params: ThreadResumeParams,
    ) -> Result<(ThreadResumeResponse, Option<ThreadTokenUsage>), EngineError> {
        let id = normalize_thread_id(&params.thread_id)?;
        let overrides = SettingsOverrides {
            model: params.model.as_ref(),
            model_provider: params.model_provider.as_ref(),
            cwd: params.cwd.as_ref(),
            approval_policy: params.approval_policy,
            sandbox: params.sandbox,
            base_instructions: params.base_instructions.as_ref(),
            developer_instructions: params.developer_instructions.as_ref(),
        };
        let exclude_turns = params.exclude_turns.unwrap_or(false);
        let thread = match self.thread(&id) {
            Some(thread) => {
                let mut state = lock(&thread.state);
                let mut meta = state.meta.clone();
                let provider = self.apply_overrides(&mut meta, &overrides)?;
                state.client = self.client(&provider)?;
                if meta != state.meta {
                    state.meta = meta.clone();
                    state.record(&RolloutRecord::Settings { meta });
                }
                drop(state);
                thread
            }
            None => {
                let stored = self.inner.store.load(&id).map_err(|error| match error {
                    StoreError::NotFound(_) => no_rollout(&id),
                    other => other.into(),
                })?;
                if stored.meta.archived {
                    return Err(no_rollout(&id));
                }
                let StoredThread {
                    mut meta,
                    turns,
                    mut history,
                    token_usage,
                } = stored;
                let sent_for = Some(meta.cwd.clone());
                let before = meta.clone();
                let provider = self.apply_overrides(&mut meta, &overrides)?;
                let client = self.client(&provider)?;
                close_dangling_calls(&mut history);
                let mut state = self.new_state(meta.clone(), client, false);
                state.turns = turns;
                state.history = history;
                state.token_usage = token_usage;
                state.environment_sent_for = sent_for;
                state.writer = Some(self.inner.store.append_writer(&id)?);
                if before != meta {
                    state.record(&RolloutRecord::Settings { meta });
                }
                self.register(state)
            }
        };
        if !exclude_turns {
            self.emit(ServerNotification::DeprecationNotice(
                DeprecationNoticeNotification {
                    summary: RESUME_DEPRECATION.into(),
                    details: None,
                },
            ))
            .await;
        }
        let (status, response, usage) = {
            let state = lock(&thread.state);
            let base = start_response(&state, None);
            let mut thread_view = base.thread;
            if !exclude_turns {
                thread_view.turns = state.turns.clone();
            }
            let response = ThreadResumeResponse {
                thread: thread_view,
                model: base.model,
                model_provider: base.model_provider,
                service_tier: params.service_tier.clone(),
                disabled_plugin_ids: Vec::new(),
                cwd: base.cwd,
                runtime_workspace_roots: base.runtime_workspace_roots,
                instruction_sources: Vec::new(),
                approval_policy: base.approval_policy,
                approvals_reviewer: params
                    .approvals_reviewer
                    .unwrap_or(state.approvals_reviewer),
                sandbox: base.sandbox,
                active_permission_profile: None,
                reasoning_effort: base.reasoning_effort,
                collaboration_mode: Some(state.collaboration_mode.clone().unwrap_or_else(|| {
                    app_server_protocol::policy::CollaborationMode {
                        mode: app_server_protocol::policy::ModeKind::Default,
                        settings: app_server_protocol::policy::CollaborationModeSettings {
                            model: state.meta.model.clone(),
                            reasoning_effort: state.meta.reasoning_effort,
                            developer_instructions: None,
                        },
                    }
                })),
                multi_agent_mode: base.multi_agent_mode,
                initial_turns_page: None,
                turns_backwards_cursor: None,
                items_backwards_cursor: None,
            };
            (state.status.clone(), response, state.token_usage.clone())
        };
        self.emit(ServerNotification::ThreadStatusChanged(
            ThreadStatusChangedNotification {
                thread_id: id,
                status,
            },
        ))
        .await;
        Ok((response, usage))
    }

    /// `thread/fork`. The caller sends the result, then `thread/tokenUsage/updated` with the
    /// returned usage and `thread/started`.
    pub fn fork_thread(
        &self,
        params: ThreadForkParams,
    ) -> Result<(ThreadStartResponse, Option<ThreadTokenUsage>), EngineError> {
        let source_id = normalize_thread_id(&params.thread_id)?;
        let ephemeral = params.ephemeral.unwrap_or(false);
        let exclude_turns = params.exclude_turns.unwrap_or(false);
        if ephemeral && !exclude_turns {
            return Err(EngineError::InvalidRequest(
                "ephemeral paginated thread/fork requires `excludeTurns: true`".into(),
            ));
        }
        let (mut meta, mut turns, mut history, usage) = match self.thread(&source_id) {
            Some(thread) => {
                let state = lock(&thread.state);
                (
                    state.meta.clone(),
                    state.turns.clone(),
                    state.history.clone(),
                    state.token_usage.clone(),
                )
            }
            None => {
                let stored = self
                    .inner
                    .store
                    .load(&source_id)
                    .map_err(|error| match error {
                        StoreError::NotFound(_) => no_rollout(&source_id),
                        other => other.into(),
                    })?;
                (
                    stored.meta,
                    stored.turns,
                    stored.history,
                    stored.token_usage,
                )
            }
        };
        if let Some(last_turn_id) = &params.last_turn_id {
            let Some(position) = turns.iter().position(|turn| &turn.id == last_turn_id) else {
                return Err(EngineError::InvalidRequest(format!(
                    "turn not found: {last_turn_id}"
                )));
            };
            if position + 1 != turns.len() {
                return Err(EngineError::InvalidRequest(format!(
                    "forking before the last turn is not supported yet: `{last_turn_id}` is not the last turn"
                )));
            }
            turns.truncate(position + 1);
        }
        close_dangling_calls(&mut history);
        let id = uuid::Uuid::now_v7().to_string();
        let now_ms = unix_millis();
        meta.id = id.clone();
        meta.created_at = now_ms / 1000;
        meta.updated_at_ms = now_ms;
        meta.forked_from_id = Some(source_id);
        meta.name = None;
        meta.archived = false;
        meta.thread_source = params.thread_source.clone().or(meta.thread_source);
        meta.originator = lock(&self.inner.originator).clone().or(meta.originator);
        meta.rollout_path = self.inner.store.rollout_path_for(&id, meta.created_at);
        let overrides = SettingsOverrides {
            model: params.model.as_ref(),
            model_provider: params.model_provider.as_ref(),
            cwd: params.cwd.as_ref(),
            approval_policy: params.approval_policy,
            sandbox: params.sandbox,
            base_instructions: params.base_instructions.as_ref(),
            developer_instructions: params.developer_instructions.as_ref(),
        };
        let provider = self.apply_overrides(&mut meta, &overrides)?;
        let client = self.client(&provider)?;
        let mut state = self.new_state(meta.clone(), client, ephemeral);
        state.environment_sent_for = Some(meta.cwd.clone());
        if !ephemeral && !turns.is_empty() {
            let mut writer = self.inner.store.create(&meta)?;
            for item in &history {
                writer.append(&RolloutRecord::ResponseItem {
                    turn_id: String::new(),
                    item: item.clone(),
                })?;
            }
            for turn in &turns {
                writer.append(&RolloutRecord::TurnStarted {
                    turn_id: turn.id.clone(),
                    started_at: turn.started_at.unwrap_or(meta.created_at),
                })?;
                for item in &turn.items {
                    writer.append(&RolloutRecord::Item {
                        turn_id: turn.id.clone(),
                        item: item.clone(),
                    })?;
                }
                writer.append(&RolloutRecord::TurnCompleted {
                    turn_id: turn.id.clone(),
                    status: turn.status,
                    error: turn.error.clone(),
                    completed_at: turn.completed_at.unwrap_or(meta.created_at),
                    duration_ms: turn.duration_ms.unwrap_or(0),
                })?;
            }
            if let Some(usage) = &usage {
                writer.append(&RolloutRecord::TokenUsage {
                    turn_id: String::new(),
                    usage: usage.clone(),
                })?;
            }
            writer.sync()?;
            state.writer = Some(writer);
        }
        state.turns = turns;
        state.history = history;
        state.token_usage = usage.clone();
        let mut response = start_response(&state, params.service_tier.clone());
        if !exclude_turns {
            response.thread.turns = state.turns.clone();
        }
        self.register(state);
        Ok((response, usage))
    }

    /// `thread/list`.
    pub fn list_threads(
        &self,
        params: ThreadListParams,
    ) -> Result<ThreadListResponse, EngineError> {
        let sources = match &params.source_kinds {
            Some(kinds) if !kinds.is_empty() => kinds
                .iter()
                .map(|kind| source_kind_name(*kind).to_string())
                .collect(),
            _ => vec!["cli".to_string(), "vscode".to_string()],
        };
        let cwds = match &params.cwd {
            None => Vec::new(),
            Some(ThreadListCwdFilter::One(cwd)) => vec![resolve_cwd(Some(cwd))],
            Some(ThreadListCwdFilter::Many(cwds)) => {
                cwds.iter().map(|cwd| resolve_cwd(Some(cwd))).collect()
            }
        };
        let query = ListQuery {
            cursor: params.cursor.clone(),
            limit: params.limit.map(|limit| limit.max(1) as usize),
            sort_key: params.sort_key.unwrap_or(ThreadSortKey::CreatedAt),
            sort_direction: params.sort_direction.unwrap_or(SortDirection::Desc),
            model_providers: params.model_providers.clone().unwrap_or_default(),
            sources,
            originators: params.originators.clone().unwrap_or_default(),
            archived: params.archived.unwrap_or(false),
            cwds,
            search_term: params.search_term.clone(),
            excluded_ids: params.excluded_thread_ids.unwrap_or_default(),
        };
        let page = self.inner.store.list(&query)?;
        let data = page
            .threads
            .iter()
            .map(|meta| {
                let status = self
                    .thread(&meta.id)
                    .map_or(ThreadStatus::NotLoaded, |thread| {
                        lock(&thread.state).status.clone()
                    });
                thread_from_meta(meta, status, false)
            })
            .collect();
        Ok(ThreadListResponse {
            data,
            read_states: None,
            next_cursor: page.next_cursor,
            backwards_cursor: None,
        })
    }

    /// `thread/read`. Emits `deprecationNotice` before returning when turns are included.
    pub async fn read_thread(&self, params: ThreadReadParams) -> Result<Thread, EngineError> {
        let id = normalize_thread_id(&params.thread_id)?;
        let include_turns = params.include_turns.unwrap_or(false);
        let thread = match self.thread(&id) {
            Some(loaded) => {
                let state = lock(&loaded.state);
                let mut thread = state.to_thread();
                if include_turns {
                    thread.turns = state.turns.clone();
                }
                thread
            }
            None => {
                if include_turns {
                    let stored = self.inner.store.load(&id).map_err(|error| match error {
                        StoreError::NotFound(_) => not_loaded(&id),
                        other => other.into(),
                    })?;
                    let mut thread = thread_from_meta(&stored.meta, ThreadStatus::NotLoaded, false);
                    thread.turns = stored.turns;
                    thread
                } else {
                    let meta = self.inner.store.find(&id)?.ok_or_else(|| not_loaded(&id))?;
                    thread_from_meta(&meta, ThreadStatus::NotLoaded, false)
                }
            }
        };
        if include_turns {
            self.emit(ServerNotification::DeprecationNotice(
                DeprecationNoticeNotification {
                    summary: INCLUDE_TURNS_DEPRECATION.into(),
                    details: None,
                },
            ))
            .await;
        }
        Ok(thread)
    }

    /// `thread/turns/list`.
    pub fn list_turns(
        &self,
        params: ThreadTurnsListParams,
    ) -> Result<ThreadTurnsListResponse, EngineError> {
        let id = normalize_thread_id(&params.thread_id)?;
        let mut turns = match self.thread(&id) {
            Some(thread) => lock(&thread.state).turns.clone(),
            None => {
                self.inner
                    .store
                    .load(&id)
                    .map_err(|error| match error {
                        StoreError::NotFound(_) => not_loaded(&id),
                        other => other.into(),
                    })?
                    .turns
            }
        };
        if params.sort_direction.unwrap_or(SortDirection::Desc) == SortDirection::Desc {
            turns.reverse();
        }
        let offset = match &params.cursor {
            None => 0,
            Some(cursor) => decode_offset_cursor(cursor)?,
        };
        let view = params.items_view.unwrap_or(TurnItemsView::Summary);
        let limit = params
            .limit
            .map_or(usize::MAX, |limit| limit.max(1) as usize);
        let end = offset.saturating_add(limit).min(turns.len());
        let data = turns
            .get(offset.min(turns.len())..end)
            .unwrap_or_default()
            .iter()
            .cloned()
            .map(|turn| apply_items_view(turn, view))
            .collect();
        let next_cursor = (end < turns.len()).then(|| encode_offset_cursor(end));
        Ok(ThreadTurnsListResponse {
            data,
            next_cursor,
            backwards_cursor: None,
        })
    }

    /// `thread/archive`. Emits `thread/status/changed notLoaded` first when the thread is loaded.
    pub async fn archive_thread(&self, thread_id: &str) -> Result<(), EngineError> {
        let id = normalize_thread_id(thread_id)?;
        if self.inner.store.find(&id)?.is_none_or(|meta| meta.archived) {
            return Err(no_rollout(&id));
        }
        if self.unload(&id) {
            self.emit(ServerNotification::ThreadStatusChanged(
                ThreadStatusChangedNotification {
                    thread_id: id.clone(),
                    status: ThreadStatus::NotLoaded,
                },
            ))
            .await;
        }
        self.inner.store.archive(&id).map_err(|error| match error {
            StoreError::NotFound(_) => no_rollout(&id),
            other => other.into(),
        })?;
        Ok(())
    }

    /// `thread/unarchive`.
    pub fn unarchive_thread(&self, thread_id: &str) -> Result<Thread, EngineError> {
        let id = normalize_thread_id(thread_id)?;
        let meta = self
            .inner
            .store
            .unarchive(&id)
            .map_err(|error| match error {
                StoreError::NotFound(_) | StoreError::NotArchived(_) => {
                    EngineError::InvalidRequest(format!(
                        "no archived rollout found for thread id {id}"
                    ))
                }
                other => other.into(),
            })?;
        Ok(thread_from_meta(&meta, ThreadStatus::NotLoaded, false))
    }

    /// `thread/name/set`.
    pub fn set_thread_name(&self, thread_id: &str, name: &str) -> Result<String, EngineError> {
        let id = normalize_thread_id(thread_id)?;
        let name = name.trim();
        if name.is_empty() {
            return Err(EngineError::InvalidRequest(
                "thread name must not be empty".into(),
            ));
        }
        let record = RolloutRecord::ThreadName {
            name: name.to_string(),
        };
        if let Some(thread) = self.thread(&id) {
            let meta = {
                let mut state = lock(&thread.state);
                state.meta.name = Some(name.to_string());
                state.record(&record);
                state.writer.is_some().then(|| state.meta.clone())
            };
            if let Some(meta) = meta {
                self.inner.store.update_meta(&meta)?;
            }
            return Ok(id);
        }
        let mut meta = self.inner.store.find(&id)?.ok_or_else(|| no_rollout(&id))?;
        if meta.archived {
            return Err(no_rollout(&id));
        }
        let mut writer = self.inner.store.append_writer(&id)?;
        writer.append(&record)?;
        writer.sync()?;
        meta.name = Some(name.to_string());
        self.inner.store.update_meta(&meta)?;
        Ok(id)
    }

    /// `thread/loaded/list`.
    pub fn loaded_threads(
        &self,
        params: ThreadLoadedListParams,
    ) -> Result<ThreadLoadedListResponse, EngineError> {
        let mut ids: Vec<String> = lock(&self.inner.threads).keys().cloned().collect();
        ids.sort();
        let offset = match &params.cursor {
            None => 0,
            Some(cursor) => decode_offset_cursor(cursor)?,
        };
        let limit = params
            .limit
            .map_or(usize::MAX, |limit| limit.max(1) as usize);
        let end = offset.saturating_add(limit).min(ids.len());
        let data = ids
            .get(offset.min(ids.len())..end)
            .unwrap_or_default()
            .to_vec();
        let next_cursor = (end < ids.len()).then(|| encode_offset_cursor(end));
        Ok(ThreadLoadedListResponse { data, next_cursor })
    }

    /// `thread/unsubscribe`: unloads the thread (this connection is its only subscriber) and
    /// emits `thread/status/changed notLoaded` and `thread/closed`.
    pub async fn unsubscribe(
        &self,
        thread_id: &str,
    ) -> Result<ThreadUnsubscribeStatus, EngineError> {
        let id = normalize_thread_id(thread_id)?;
        if !self.unload(&id) {
            return Ok(ThreadUnsubscribeStatus::NotLoaded);
        }
        self.emit(ServerNotification::ThreadStatusChanged(
            ThreadStatusChangedNotification {
                thread_id: id.clone(),
                status: ThreadStatus::NotLoaded,
            },
        ))
        .await;
        self.emit(ServerNotification::ThreadClosed(ThreadIdNotification {
            thread_id: id,
        }))
        .await;
        Ok(ThreadUnsubscribeStatus::Unsubscribed)
    }

    /// Removes a thread from the registry, interrupting its turn. Returns whether it was loaded.
    fn unload(&self, id: &str) -> bool {
        let Some(thread) = lock(&self.inner.threads).remove(id) else {
            return false;
        };
        let mut state = lock(&thread.state);
        if let Some(active) = &state.active {
            active.cancel.cancel();
        }
        if let Err(error) = state.sync() {
            tracing::error!(thread_id = %id, %error, "cannot fsync rollout");
        }
        true
    }

    /// `turn/start`. On a busy thread the input joins the running turn, which is returned
    /// with no launcher.
    pub fn start_turn(
        &self,
        params: TurnStartParams,
    ) -> Result<(Turn, Option<TurnLauncher>), EngineError> {
        let id = normalize_thread_id(&params.thread_id)?;
        let thread = self
            .thread(&id)
            .ok_or_else(|| EngineError::InvalidRequest(format!("thread not found: {id}")))?;
        let input = SteerInput {
            input: params.input.clone(),
            client_id: params.client_user_message_id.clone(),
        };
        let mut state = lock(&thread.state);
        if let Some(active) = &state.active {
            let turn = in_progress_turn(&active.id, Some(active.started_at));
            if !input.input.is_empty() {
                let _ = active.steer.send(input);
            }
            return Ok((turn, None));
        }
        let mut meta = state.meta.clone();
        if let Some(cwd) = &params.cwd {
            meta.cwd = resolve_cwd(Some(cwd));
        }
        if let Some(model) = &params.model {
            meta.model = model.clone();
        }
        if let Some(effort) = params.effort {
            meta.reasoning_effort = Some(effort);
        }
        if let Some(summary) = params.summary {
            meta.reasoning_summary = Some(summary);
        }
        if let Some(approval) = params.approval_policy {
            meta.approval_policy = approval;
        }
        if let Some(sandbox) = &params.sandbox_policy {
            meta.sandbox = sandbox.clone();
        }
        if meta != state.meta {
            state.meta = meta.clone();
            state.record(&RolloutRecord::Settings { meta });
        }
        if let Some(mode) = &params.collaboration_mode {
            state.collaboration_mode = Some(mode.clone());
        }
        if let Some(reviewer) = params.approvals_reviewer {
            state.approvals_reviewer = reviewer;
        }
        let turn_id = uuid::Uuid::now_v7().to_string();
        let cancel = self.inner.shutdown.child_token();
        let (steer_sender, steer_receiver) = mpsc::unbounded_channel();
        let started_at_ms = unix_millis();
        state.active = Some(ActiveTurn {
            id: turn_id.clone(),
            cancel: cancel.clone(),
            steer: steer_sender,
            started_at: started_at_ms / 1000,
        });
        state.status = ThreadStatus::Active {
            active_flags: Vec::new(),
        };
        drop(state);
        let task = TurnTask {
            engine: self.inner.clone(),
            thread,
            turn_id: turn_id.clone(),
            started_at: started_at_ms / 1000,
            started_at_ms,
            input,
            output_schema: params.output_schema,
            cancel,
            steer: steer_receiver,
        };
        Ok((
            in_progress_turn(&turn_id, None),
            Some(TurnLauncher {
                engine: self.inner.clone(),
                task,
            }),
        ))
    }

    /// `turn/steer`: returns the running turn's id.
    pub fn steer_turn(&self, params: TurnSteerParams) -> Result<String, EngineError> {
        let id = normalize_thread_id(&params.thread_id)?;
        let thread = self
            .thread(&id)
            .ok_or_else(|| EngineError::InvalidRequest(format!("thread not found: {id}")))?;
        let state = lock(&thread.state);
        let Some(active) = &state.active else {
            return Err(EngineError::InvalidRequest(
                "no active turn to steer".into(),
            ));
        };
        if active.id != params.expected_turn_id {
            return Err(EngineError::InvalidRequest(format!(
                "expected active turn id `{}` but found `{}`",
                params.expected_turn_id, active.id
            )));
        }
        let _ = active.steer.send(SteerInput {
            input: params.input,
            client_id: params.client_user_message_id,
        });
        Ok(active.id.clone())
    }

    /// `turn/interrupt`: validates and returns a handle that performs the interrupt.
    pub fn prepare_interrupt(
        &self,
        thread_id: &str,
        turn_id: &str,
    ) -> Result<InterruptHandle, EngineError> {
        let id = normalize_thread_id(thread_id)?;
        let thread = self
            .thread(&id)
            .ok_or_else(|| EngineError::InvalidRequest(format!("thread not found: {id}")))?;
        let state = lock(&thread.state);
        let Some(active) = &state.active else {
            return Err(EngineError::InvalidRequest(
                "no active turn to interrupt".into(),
            ));
        };
        if active.id != turn_id {
            return Err(EngineError::InvalidRequest(format!(
                "expected active turn id {turn_id} but found {}",
                active.id
            )));
        }
        Ok(InterruptHandle {
            cancel: active.cancel.clone(),
        })
    }

    /// `model/list`.
    pub async fn list_models(
        &self,
        params: ModelListParams,
    ) -> Result<ModelListResponse, EngineError> {
        let config = &self.inner.config;
        let provider_id = params
            .model_provider
            .clone()
            .unwrap_or_else(|| config.model_provider.clone());
        let provider = self.provider(&provider_id)?;
        let client = self.client(&provider)?;
        let mut slugs = match client.list_models().await {
            Ok(slugs) if !slugs.is_empty() => slugs,
            Ok(_) | Err(_) => provider.models.clone(),
        };
        if slugs.is_empty() {
            slugs.push(provider.default_model.clone());
        }
        let default_model = config
            .model
            .clone()
            .unwrap_or_else(|| provider.default_model.clone());
        let offset = match &params.cursor {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .map_err(|_| EngineError::InvalidRequest(format!("invalid cursor: {cursor}")))?,
        };
        let limit = params
            .limit
            .map_or(usize::MAX, |limit| limit.max(1) as usize);
        let end = offset.saturating_add(limit).min(slugs.len());
        let data = slugs
            .get(offset.min(slugs.len())..end)
            .unwrap_or_default()
            .iter()
            .map(|slug| model_entry(slug, &provider, slug == &default_model))
            .collect();
        let next_cursor = (end < slugs.len()).then(|| end.to_string());
        Ok(ModelListResponse { data, next_cursor })
    }
}

fn start_response(state: &ThreadState, service_tier: Option<String>) -> ThreadStartResponse {
    ThreadStartResponse {
        thread: state.to_thread(),
        model: state.meta.model.clone(),
        model_provider: state.meta.model_provider.clone(),
        service_tier,
        disabled_plugin_ids: Vec::new(),
        cwd: state.meta.cwd.clone(),
        runtime_workspace_roots: vec![state.meta.cwd.clone()],
        instruction_sources: Vec::new(),
        approval_policy: state.meta.approval_policy,
        approvals_reviewer: state.approvals_reviewer,
        sandbox: state.meta.sandbox.clone(),
        active_permission_profile: None,
        reasoning_effort: state.meta.reasoning_effort,
        multi_agent_mode: Some("explicitRequestOnly".to_string()),
    }
}

fn in_progress_turn(id: &str, started_at: Option<i64>) -> Turn {
    Turn {
        id: id.to_string(),
        root_turn_id: Some(id.to_string()),
        items: Vec::new(),
        items_view: TurnItemsView::NotLoaded,
        status: TurnStatus::InProgress,
        error: None,
        started_at,
        completed_at: None,
        duration_ms: None,
    }
}

fn source_kind_name(kind: ThreadSourceKind) -> &'static str {
    match kind {
        ThreadSourceKind::Cli => "cli",
        ThreadSourceKind::Vscode => "vscode",
        ThreadSourceKind::Exec => "exec",
        ThreadSourceKind::AppServer => "appServer",
        ThreadSourceKind::SubAgent => "subAgent",
        ThreadSourceKind::SubAgentReview => "subAgentReview",
        ThreadSourceKind::SubAgentCompact => "subAgentCompact",
        ThreadSourceKind::SubAgentThreadSpawn => "subAgentThreadSpawn",
        ThreadSourceKind::SubAgentOther => "subAgentOther",
        ThreadSourceKind::Unknown => "unknown",
    }
}

/// `summary`: the user messages and the final agent message; `full`: everything;
/// `notLoaded`: nothing.
fn apply_items_view(mut turn: Turn, view: TurnItemsView) -> Turn {
    turn.items_view = view;
    match view {
        TurnItemsView::Full => {}
        TurnItemsView::NotLoaded => turn.items.clear(),
        TurnItemsView::Summary => {
            let last_agent = turn
                .items
                .iter()
                .rposition(|item| matches!(item.details, ThreadItemDetails::AgentMessage { .. }));
            let items: Vec<ThreadItem> = turn
                .items
                .iter()
                .enumerate()
                .filter(|(index, item)| {
                    matches!(item.details, ThreadItemDetails::UserMessage { .. })
                        || Some(*index) == last_agent
                })
                .map(|(_, item)| item.clone())
                .collect();
            turn.items = items;
        }
    }
    turn
}

fn encode_offset_cursor(offset: usize) -> String {
    serde_json::json!({ "offset": offset }).to_string()
}

fn decode_offset_cursor(cursor: &str) -> Result<usize, EngineError> {
    serde_json::from_str::<serde_json::Value>(cursor)
        .ok()
        .and_then(|value| value.get("offset").and_then(serde_json::Value::as_u64))
        .and_then(|offset| usize::try_from(offset).ok())
        .ok_or_else(|| EngineError::InvalidRequest(format!("invalid cursor: {cursor}")))
}

/// Gives every tool call without an output (the process died mid-turn) an "aborted" output,
/// so that the next model request is valid.
fn close_dangling_calls(history: &mut Vec<ResponseItem>) {
    let answered: std::collections::HashSet<String> = history
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCallOutput { call_id, .. }
            | ResponseItem::CustomToolCallOutput { call_id, .. } => Some(call_id.clone()),
            _ => None,
        })
        .collect();
    let missing: Vec<ResponseItem> = history
        .iter()
        .filter_map(|item| match item {
            ResponseItem::FunctionCall { call_id, .. } if !answered.contains(call_id) => {
                Some(ResponseItem::FunctionCallOutput {
                    call_id: call_id.clone(),
                    output: "aborted: the turn ended before this call finished".into(),
                })
            }
            ResponseItem::CustomToolCall { call_id, .. } if !answered.contains(call_id) => {
                Some(ResponseItem::CustomToolCallOutput {
                    call_id: call_id.clone(),
                    output: "aborted: the turn ended before this call finished".into(),
                })
            }
            _ => None,
        })
        .collect();
    history.extend(missing);
}

fn model_entry(slug: &str, provider: &ProviderConfig, is_default: bool) -> Model {
    use app_server_protocol::policy::ReasoningEffort;
    let efforts = [
        (
            ReasoningEffort::Low,
            "Fast responses with lighter reasoning",
        ),
        (
            ReasoningEffort::Medium,
            "Balances speed and reasoning depth for everyday tasks",
        ),
        (
            ReasoningEffort::High,
            "Greater reasoning depth for complex problems",
        ),
    ];
    Model {
        id: slug.to_string(),
        model: slug.to_string(),
        upgrade: None,
        upgrade_info: None,
        availability_nux: None,
        display_name: slug.to_string(),
        description: format!("{slug} via {}", provider.name),
        model_specialty: None,
        hidden: false,
        supported_reasoning_efforts: efforts
            .iter()
            .map(|(effort, description)| ReasoningEffortOption {
                reasoning_effort: *effort,
                description: (*description).to_string(),
            })
            .collect(),
        default_reasoning_effort: ReasoningEffort::Medium,
        input_modalities: vec![InputModality::Text, InputModality::Image],
        supports_personality: false,
        multi_agent_version: None,
        additional_speed_tiers: Vec::new(),
        service_tiers: Vec::new(),
        default_service_tier: None,
        available_access_programs: None,
        is_default,
    }
}
