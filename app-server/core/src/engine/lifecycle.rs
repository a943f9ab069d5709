//! Thread lifecycle operations: `thread/start`, `thread/resume`, `thread/fork`,
//! `thread/archive`, `thread/unarchive`, `thread/name/set` and `thread/unsubscribe`, plus the
//! registry of loaded threads.

use std::sync::Arc;

use app_server_protocol::PROTOCOL_VERSION;
use app_server_protocol::notifications::{
    DeprecationNoticeNotification, ThreadIdNotification, ThreadStatusChangedNotification,
};
use app_server_protocol::policy::ApprovalsReviewer;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{Thread, ThreadStatus, ThreadTokenUsage, Turn};
use app_server_protocol::thread_requests::{
    ThreadForkParams, ThreadResumeParams, ThreadResumeResponse, ThreadStartParams,
    ThreadStartResponse, ThreadUnsubscribeStatus,
};

use crate::audit::AuditEvent;
use crate::clock::unix_millis;
use crate::engine::history_repair::close_dangling_calls;
use crate::engine::settings::{
    SettingsOverrides, no_rollout, normalize_thread_id, provider_not_found, resolve_cwd,
    sandbox_policy,
};
use crate::engine::thread::{ActiveTurn, LoadedThread, ThreadState, thread_from_meta};
use crate::engine::{Engine, EngineError};
use crate::model::{ModelClient, ResponseItem};
use crate::store::{RolloutRecord, RolloutWriter, Store, StoreError, StoredThread, ThreadMeta};
use crate::sync::lock;

/// The `deprecationNotice` summary sent by `thread/resume` when it returns full history.
pub const RESUME_DEPRECATION: &str = "Full-history hydration is deprecated for paginated threads; use `excludeTurns: true`, then page with `thread/turns/list` and `thread/items/list`.";

impl Engine {
    fn register(&self, state: ThreadState) -> Arc<LoadedThread> {
        crate::engine::compaction::prefetch_context_window(
            &state.context_limits,
            state.client.as_ref(),
            &state.meta.model,
        );
        let (mcp, host) = crate::engine::mcp::start_thread_servers(
            self,
            &state.meta.id,
            std::path::PathBuf::from(&state.meta.cwd),
        );
        let thread = Arc::new(LoadedThread {
            id: state.meta.id.clone(),
            owner: state.meta.owner.clone(),
            state: std::sync::Mutex::new(state),
            tools: crate::engine::tools::ThreadTools::new(),
            mcp,
            emit_order: tokio::sync::Mutex::new(()),
        });
        crate::engine::mcp::attach_thread(&host, &thread);
        self.inner.threads.insert(thread.clone());
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
            client,
            environment_sent_for: None,
            instruction_sources: Vec::new(),
            pending_instructions: None,
            pending_skills: None,
            pending_warnings: Vec::new(),
            turn_starts: Vec::new(),
            queue: std::collections::VecDeque::new(),
            context_limits: crate::engine::compaction::ContextLimits::from_config(
                &self.inner.config(),
            ),
            goal: None,
            attachments: Vec::new(),
            next_turn_settings: None,
            service_tier: None,
        }
    }

    /// `thread/start`. Loads the AGENTS.md files that apply to the thread's cwd.
    pub async fn start_thread(
        &self,
        params: ThreadStartParams,
    ) -> Result<ThreadStartResponse, EngineError> {
        // `config` overrides apply to this thread's settings only, and only the keys the
        // operator lets a client set.
        let base = self.inner.config();
        let overridden;
        let config = match &params.config {
            Some(overrides) if !overrides.is_empty() => {
                overridden = self.client_config(overrides).map_err(|error| {
                    EngineError::InvalidRequest(format!("failed to load configuration: {error}"))
                })?;
                &overridden
            }
            _ => &*base,
        };
        let provider_id = params
            .model_provider
            .clone()
            .unwrap_or_else(|| config.model_provider.clone());
        let provider = config
            .model_providers
            .get(&provider_id)
            .cloned()
            .ok_or_else(|| provider_not_found(&provider_id))?;
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
        let dynamic_tools = params.dynamic_tools.clone().unwrap_or_default();
        crate::engine::tools::dynamic::validate(&dynamic_tools)
            .map_err(EngineError::InvalidRequest)?;
        let id = uuid::Uuid::now_v7().to_string();
        let now_ms = unix_millis();
        let created_at = now_ms / 1000;
        let ephemeral = params.ephemeral.unwrap_or(false);
        let cwd = resolve_cwd(params.cwd.as_deref());
        // The sandbox the client asked for (by name or through `config`) must lie within
        // `clients.max_sandbox`; the operator's default is narrowed to it.
        let asked = params.sandbox.is_some()
            || params.config.as_ref().is_some_and(|overrides| {
                overrides.keys().any(|key| {
                    let key = key.trim_start();
                    key.starts_with("sandbox_mode") || key.starts_with("sandbox_workspace_write")
                })
            });
        let sandbox = self
            .inner
            .access
            .admit(
                sandbox_policy(params.sandbox.unwrap_or(config.sandbox_mode), config),
                std::path::Path::new(&cwd),
                asked,
            )
            .map_err(|error| self.beyond_ceiling(error))?;
        let meta = ThreadMeta {
            git_info: None,
            daybreak_enabled: None,
            collaboration_mode: None,
            compact_prompt: None,
            id: id.clone(),
            created_at,
            updated_at_ms: now_ms,
            cwd,
            model_provider: provider.id.clone(),
            model,
            reasoning_effort: config.model_reasoning_effort,
            reasoning_summary: config.model_reasoning_summary,
            approval_policy: params.approval_policy.unwrap_or(config.approval_policy),
            sandbox,
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
            owner: self.principal().clone(),
            dynamic_tools,
        };
        // A provider changed by the overrides gets its own client, not the shared one.
        let client = if base.model_providers.get(&provider.id) == Some(&provider) {
            self.client(&provider)?
        } else {
            crate::model::client_for(&provider, self.account()).map_err(|error| {
                EngineError::InvalidRequest(format!("failed to load configuration: {error}"))
            })?
        };
        let docs = crate::engine::agents_md::load_async(
            config.home.clone(),
            meta.cwd.clone(),
            config.project_doc_max_bytes,
        )
        .await;
        let skills = self.skills_message(&meta.cwd).await;
        let mut state = self.new_state(meta, client, ephemeral);
        state.pending_instructions = docs.message(&state.meta.cwd);
        state.pending_skills = skills;
        state.pending_warnings = docs.warnings;
        state.instruction_sources = docs.sources;
        state.approvals_reviewer = params.approvals_reviewer.unwrap_or(ApprovalsReviewer::User);
        state.context_limits = crate::engine::compaction::ContextLimits::from_config(config);
        let response = start_response(&state, params.service_tier);
        self.audit(&AuditEvent::thread_started(&response));
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
        self.resume_thread_subscribing(params, |_| {}).await
    }

    /// `thread/resume`, calling `subscribe` with the thread id at the moment its turns are
    /// read: a running turn is shown `inProgress` with its items so far, and every one of its
    /// notifications emitted after that moment reaches whoever `subscribe` registers (see
    /// [`crate::engine::live_turn`]).
    pub async fn resume_thread_subscribing(
        &self,
        params: ThreadResumeParams,
        subscribe: impl FnOnce(&str) + Send,
    ) -> Result<(ThreadResumeResponse, Option<ThreadTokenUsage>), EngineError> {
        let owned = self.owned_thread(&params.thread_id, no_rollout).await?;
        let id = owned.id().to_owned();
        let overrides = SettingsOverrides {
            model: params.model.as_ref(),
            model_provider: params.model_provider.as_ref(),
            cwd: params.cwd.as_ref(),
            approval_policy: params.approval_policy,
            sandbox: params.sandbox,
            base_instructions: params.base_instructions.as_ref(),
            developer_instructions: params.developer_instructions.as_ref(),
            config: params.config.as_ref(),
        };
        let exclude_turns = params.exclude_turns.unwrap_or(false);
        let thread = match owned.loaded().cloned() {
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
                let loading = id.clone();
                let (stored, writer) = self
                    .inner
                    .store
                    .blocking(move |store| {
                        let stored = store.load(&loading)?;
                        let writer = if stored.meta.archived {
                            None
                        } else {
                            Some(store.append_writer(&loading)?)
                        };
                        Ok((stored, writer))
                    })
                    .await
                    .map_err(|error| match error {
                        StoreError::NotFound(_) => no_rollout(&id),
                        other => other.into(),
                    })?;
                let Some(writer) = writer else {
                    return Err(no_rollout(&id));
                };
                if stored.meta.archived {
                    return Err(no_rollout(&id));
                }
                let StoredThread {
                    mut meta,
                    turns,
                    mut history,
                    token_usage,
                    instruction_sources,
                    turn_starts,
                    goal,
                    attachments,
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
                state.instruction_sources = instruction_sources;
                state.turn_starts = turn_starts;
                state.goal = goal;
                state.attachments = attachments;
                state.environment_sent_for = sent_for;
                state.writer = Some(writer);
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
        let order = thread.emit_order.lock().await;
        let (status, mut response, usage) = {
            let state = lock(&thread.state);
            let base = start_response(&state, None);
            let mut thread_view = base.thread;
            if !exclude_turns {
                thread_view.turns = state.turns.clone();
                thread_view
                    .turns
                    .extend(state.active.as_ref().map(ActiveTurn::in_progress));
            }
            let response = ThreadResumeResponse {
                thread: thread_view,
                model: base.model,
                model_provider: base.model_provider,
                service_tier: params.service_tier.clone(),
                disabled_plugin_ids: Vec::new(),
                cwd: base.cwd,
                runtime_workspace_roots: base.runtime_workspace_roots,
                instruction_sources: base.instruction_sources,
                approval_policy: base.approval_policy,
                approvals_reviewer: params
                    .approvals_reviewer
                    .unwrap_or(state.approvals_reviewer),
                sandbox: base.sandbox,
                active_permission_profile: None,
                reasoning_effort: base.reasoning_effort,
                collaboration_mode: Some(state.meta.collaboration_mode.clone().unwrap_or_else(
                    || app_server_protocol::policy::CollaborationMode {
                        mode: app_server_protocol::policy::ModeKind::Default,
                        settings: app_server_protocol::policy::CollaborationModeSettings {
                            model: state.meta.model.clone(),
                            reasoning_effort: state.meta.reasoning_effort,
                            developer_instructions: None,
                        },
                    },
                )),
                multi_agent_mode: base.multi_agent_mode,
                initial_turns_page: None,
                turns_backwards_cursor: None,
                items_backwards_cursor: None,
            };
            (state.status.clone(), response, state.token_usage.clone())
        };
        if let Err(error) = self
            .with_sections(std::slice::from_mut(&mut response.thread))
            .await
        {
            tracing::warn!(thread_id = %id, "resumed thread shown without its section: {error}");
        }
        subscribe(&id);
        drop(order);
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
    pub async fn fork_thread(
        &self,
        params: ThreadForkParams,
    ) -> Result<(ThreadStartResponse, Option<ThreadTokenUsage>), EngineError> {
        let owned = self.owned_thread(&params.thread_id, no_rollout).await?;
        let source_id = owned.id().to_owned();
        let ephemeral = params.ephemeral.unwrap_or(false);
        let exclude_turns = params.exclude_turns.unwrap_or(false);
        if ephemeral && !exclude_turns {
            return Err(EngineError::InvalidRequest(
                "ephemeral paginated thread/fork requires `excludeTurns: true`".into(),
            ));
        }
        let (mut meta, mut turns, mut history, usage, sources, mut turn_starts, pending) =
            match owned.loaded() {
                Some(thread) => {
                    let state = lock(&thread.state);
                    (
                        state.meta.clone(),
                        state.turns.clone(),
                        state.history.clone(),
                        state.token_usage.clone(),
                        state.instruction_sources.clone(),
                        state.turn_starts.clone(),
                        state.pending_instructions.clone(),
                    )
                }
                None => {
                    let stored = self.load_stored(&source_id, no_rollout).await?;
                    (
                        stored.meta,
                        stored.turns,
                        stored.history,
                        stored.token_usage,
                        stored.instruction_sources,
                        stored.turn_starts,
                        None,
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
        let kept: std::collections::HashSet<&str> =
            turns.iter().map(|turn| turn.id.as_str()).collect();
        turn_starts.retain(|(turn_id, _)| kept.contains(turn_id.as_str()));
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
        meta.owner = self.principal().clone();
        let overrides = SettingsOverrides {
            model: params.model.as_ref(),
            model_provider: params.model_provider.as_ref(),
            cwd: params.cwd.as_ref(),
            approval_policy: params.approval_policy,
            sandbox: params.sandbox,
            base_instructions: params.base_instructions.as_ref(),
            developer_instructions: params.developer_instructions.as_ref(),
            config: params.config.as_ref(),
        };
        let provider = self.apply_overrides(&mut meta, &overrides)?;
        let client = self.client(&provider)?;
        let mut state = self.new_state(meta.clone(), client, ephemeral);
        state.environment_sent_for = Some(meta.cwd.clone());
        if !ephemeral && !turns.is_empty() {
            // The rewrite is file I/O with an fsync: it runs on the blocking pool.
            let source = ForkSource {
                history,
                turns,
                turn_starts,
                usage: usage.clone(),
                instruction_sources: sources.clone(),
            };
            let meta = meta.clone();
            let (writer, written) = self
                .inner
                .store
                .blocking(move |store| {
                    let writer = write_fork(store, &meta, &source)?;
                    Ok((writer, source))
                })
                .await?;
            state.writer = Some(writer);
            history = written.history;
            turns = written.turns;
            turn_starts = written.turn_starts;
        }
        state.turns = turns;
        state.history = history;
        state.turn_starts = turn_starts;
        state.instruction_sources = sources;
        state.pending_instructions = pending;
        state.token_usage = usage.clone();
        let mut response = start_response(&state, params.service_tier.clone());
        self.audit(&AuditEvent::thread_started(&response));
        if !exclude_turns {
            response.thread.turns = state.turns.clone();
        }
        self.register(state);
        Ok((response, usage))
    }

    /// `thread/archive`. Emits `thread/status/changed notLoaded` first when the thread is loaded.
    pub async fn archive_thread(&self, thread_id: &str) -> Result<(), EngineError> {
        let id = self
            .owned_thread(thread_id, no_rollout)
            .await?
            .id()
            .to_owned();
        let finding = id.clone();
        let found = self
            .inner
            .store
            .blocking(move |store| store.find(&finding))
            .await?;
        if found.is_none_or(|meta| meta.archived) {
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
        let archiving = id.clone();
        self.inner
            .store
            .blocking(move |store| store.archive(&archiving))
            .await
            .map_err(|error| match error {
                StoreError::NotFound(_) => no_rollout(&id),
                other => other.into(),
            })?;
        Ok(())
    }

    /// `thread/unarchive`.
    pub async fn unarchive_thread(&self, thread_id: &str) -> Result<Thread, EngineError> {
        let id = self
            .owned_thread(thread_id, no_archived_rollout)
            .await?
            .id()
            .to_owned();
        let unarchiving = id.clone();
        let meta = self
            .inner
            .store
            .blocking(move |store| store.unarchive(&unarchiving))
            .await
            .map_err(|error| match error {
                StoreError::NotFound(_) | StoreError::NotArchived(_) => no_archived_rollout(&id),
                other => other.into(),
            })?;
        Ok(thread_from_meta(&meta, ThreadStatus::NotLoaded, false))
    }

    /// `thread/name/set`.
    pub async fn set_thread_name(
        &self,
        thread_id: &str,
        name: &str,
    ) -> Result<String, EngineError> {
        let owned = self.owned_thread(thread_id, no_rollout).await?;
        let id = owned.id().to_owned();
        let name = name.trim().to_string();
        if name.is_empty() {
            return Err(EngineError::InvalidRequest(
                "thread name must not be empty".into(),
            ));
        }
        let record = RolloutRecord::ThreadName { name: name.clone() };
        if let Some(thread) = owned.loaded() {
            let meta = {
                let mut state = lock(&thread.state);
                state.meta.name = Some(name);
                state.record(&record);
                state.writer.is_some().then(|| state.meta.clone())
            };
            if let Some(meta) = meta {
                self.inner
                    .store
                    .blocking(move |store| {
                        store.update_meta(&meta)?;
                        let name = meta.name.as_deref().unwrap_or_default();
                        store.record_thread_name(&meta.id, name)
                    })
                    .await?;
            }
            return Ok(id);
        }
        let renaming = id.clone();
        let renamed = self
            .inner
            .store
            .blocking(move |store| {
                let Some(mut meta) = store.find(&renaming)? else {
                    return Ok(false);
                };
                if meta.archived {
                    return Ok(false);
                }
                let mut writer = store.append_writer(&renaming)?;
                writer.append(&record)?;
                writer.sync()?;
                store.update_meta(&meta)?;
                store.record_thread_name(&renaming, &name)?;
                meta.name = Some(name);
                Ok(true)
            })
            .await?;
        if !renamed {
            return Err(no_rollout(&id));
        }
        Ok(id)
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

    /// Removes a thread of the engine's principal from the registry, interrupting its turn.
    /// Returns whether it was loaded (another principal's thread never is, for this engine).
    pub(super) fn unload(&self, id: &str) -> bool {
        let Some(thread) = self.inner.threads.remove(self.principal(), id) else {
            return false;
        };
        let sync = {
            let state = lock(&thread.state);
            if let Some(active) = &state.active {
                active.cancel.cancel();
            }
            state.writer.as_ref().map(RolloutWriter::sync_handle)
        };
        if !thread.mcp.is_empty() {
            tokio::spawn(async move { thread.mcp.shutdown().await });
        }
        // The fsync runs on the blocking pool, outside the thread's lock.
        if let Some(sync) = sync {
            let thread_id = id.to_string();
            tokio::task::spawn_blocking(move || {
                if let Err(error) = sync.sync() {
                    tracing::error!(%thread_id, %error, "cannot fsync rollout");
                }
            });
        }
        true
    }
}

/// The error `thread/unarchive` gives for a thread with no archived rollout (or none at all).
fn no_archived_rollout(id: &str) -> EngineError {
    EngineError::InvalidRequest(format!("no archived rollout found for thread id {id}"))
}

/// What a fork copies from its source.
struct ForkSource {
    history: Vec<ResponseItem>,
    turns: Vec<Turn>,
    turn_starts: Vec<(String, usize)>,
    usage: Option<ThreadTokenUsage>,
    instruction_sources: Vec<String>,
}

/// Writes the rollout of a fork: the instructions, history, turns and usage of its source,
/// each turn's history before its turn so that a rollback of the fork finds where each turn
/// began, then fsyncs it. Blocking.
fn write_fork(
    store: &Store,
    meta: &ThreadMeta,
    source: &ForkSource,
) -> Result<RolloutWriter, StoreError> {
    let mut writer = store.create(meta)?;
    if !source.instruction_sources.is_empty() {
        writer.append(&RolloutRecord::Instructions {
            sources: source.instruction_sources.clone(),
        })?;
    }
    let starts: std::collections::HashMap<&str, usize> = source
        .turn_starts
        .iter()
        .map(|(turn_id, start)| (turn_id.as_str(), *start))
        .collect();
    let mut written = 0;
    let mut write_history = |writer: &mut RolloutWriter, until: usize| {
        let until = until.min(source.history.len()).max(written);
        for item in &source.history[written..until] {
            writer.append(&RolloutRecord::ResponseItem {
                turn_id: String::new(),
                item: item.clone(),
            })?;
        }
        written = until;
        Ok::<(), StoreError>(())
    };
    for turn in &source.turns {
        if let Some(start) = starts.get(turn.id.as_str()) {
            write_history(&mut writer, *start)?;
        }
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
    write_history(&mut writer, source.history.len())?;
    if let Some(usage) = &source.usage {
        writer.append(&RolloutRecord::TokenUsage {
            turn_id: String::new(),
            usage: usage.clone(),
        })?;
    }
    writer.sync()?;
    Ok(writer)
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
        instruction_sources: state.instruction_sources.clone(),
        approval_policy: state.meta.approval_policy,
        approvals_reviewer: state.approvals_reviewer,
        sandbox: state.meta.sandbox.clone(),
        active_permission_profile: None,
        reasoning_effort: state.meta.reasoning_effort,
        multi_agent_mode: Some("explicitRequestOnly".to_string()),
    }
}
