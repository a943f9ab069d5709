//! A loaded thread: its settings, status, history and running turn.

use std::sync::Arc;

use app_server_protocol::PROTOCOL_VERSION;
use app_server_protocol::item::UserInput;
use app_server_protocol::policy::ApprovalsReviewer;
use app_server_protocol::thread::{
    SessionSource, Thread, ThreadEnvironment, ThreadHistoryMode, ThreadStatus, ThreadTokenUsage,
    Turn,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::engine::prompt;
use crate::model::{ModelClient, ResponseItem};
use crate::principal::Principal;
use crate::store::{RolloutRecord, RolloutWriter, ThreadMeta};

/// A thread loaded in this engine.
pub struct LoadedThread {
    /// Thread id.
    pub id: String,
    /// The principal that owns the thread (`meta.owner`, which never changes), kept outside
    /// the state's lock for the owner check (`owner.rs`).
    pub owner: Principal,
    /// Mutable state; held only briefly, never across an `.await`.
    pub state: std::sync::Mutex<ThreadState>,
    /// Running commands and session-wide approvals.
    pub tools: crate::engine::tools::ThreadTools,
    /// The thread's MCP servers (`[mcp_servers]`), started in the background.
    pub mcp: tandem_mcp_client::McpServers,
    /// Held by the turn task while it applies an item notification to the live turn and
    /// emits it, and by `thread/resume` while it reads the live turn and subscribes its
    /// connection (see [`crate::engine::live_turn`]).
    pub emit_order: tokio::sync::Mutex<()>,
}

/// The mutable part of a loaded thread.
pub struct ThreadState {
    /// Settings and metadata (persisted in the rollout header and the index).
    pub meta: ThreadMeta,
    /// Inputs queued behind the running turn (`thread/queue/add`), first to start first.
    pub queue: std::collections::VecDeque<app_server_protocol::thread_queue::QueuedSubmission>,
    /// Ephemeral threads are never written to disk.
    pub ephemeral: bool,
    /// Rollout writer, once the rollout exists (created with the first turn).
    pub writer: Option<RolloutWriter>,
    /// Runtime status.
    pub status: ThreadStatus,
    /// Finished turns with every item (`itemsView: full`).
    pub turns: Vec<Turn>,
    /// Model-visible history.
    pub history: Vec<ResponseItem>,
    /// Cumulative token usage.
    pub token_usage: Option<ThreadTokenUsage>,
    /// The running turn, if any.
    pub active: Option<ActiveTurn>,
    /// Who reviews approvals.
    pub approvals_reviewer: ApprovalsReviewer,
    /// Model client for the thread's provider.
    pub client: Arc<dyn ModelClient>,
    /// Whether the environment context was sent for the current cwd.
    pub environment_sent_for: Option<String>,
    /// The AGENTS.md files the thread started with (see [`crate::engine::agents_md`]).
    pub instruction_sources: Vec<String>,
    /// The AGENTS.md message still to be sent before the first turn.
    pub pending_instructions: Option<ResponseItem>,
    /// The message listing the enabled skills, still to be sent before the first turn.
    pub pending_skills: Option<ResponseItem>,
    /// Warnings about the thread's setup (an AGENTS.md cut at `project_doc_max_bytes`) that
    /// its first turn emits.
    pub pending_warnings: Vec<String>,
    /// Where each turn's model history begins (turn id, history length at its start), for
    /// `thread/rollback`.
    pub turn_starts: Vec<(String, usize)>,
    /// The compaction keys this thread uses (its `config` overrides win).
    pub context_limits: crate::engine::compaction::ContextLimits,
    /// Settings `thread/settings/update` changed while a turn was running: the next turn
    /// takes their settings fields (`thread_settings::adopt_settings`) and records them, the
    /// running one keeps its own.
    pub next_turn_settings: Option<ThreadMeta>,
    /// The service tier `thread/settings/update` last set; reported, never sent.
    pub service_tier: Option<String>,
    /// The thread's goal (`thread/goal/*`), recorded in its rollout.
    pub goal: Option<app_server_protocol::thread_goal::ThreadGoal>,
    /// The thread's attachments (`thread/attachment/*`), recorded in its rollout.
    pub attachments: Vec<app_server_protocol::thread_attachment::ThreadAttachment>,
}

/// The running turn of a thread.
pub struct ActiveTurn {
    /// Turn id.
    pub id: String,
    /// Cancelled on interrupt, shutdown or `cancel` decisions.
    pub cancel: CancellationToken,
    /// Extra input from `turn/steer` (or `turn/start` on a busy thread).
    pub steer: mpsc::Sender<SteerInput>,
    /// Start time (Unix seconds).
    pub started_at: i64,
    /// The items so far, for a client that resumes the thread mid-turn.
    pub live: crate::engine::live_turn::LiveTurn,
    /// Cancelled once the turn's task has ended (its rollout synced and its index row
    /// written), or once its launcher was dropped unlaunched; `thread/delete` waits for it.
    pub ended: CancellationToken,
    /// Cancelled once the turn has announced itself (`thread/status/changed`,
    /// `turn/started`); an interrupt is answered only after that, as the reference orders it.
    pub announced: CancellationToken,
}

impl ActiveTurn {
    /// The running turn as `thread/resume` shows it: `inProgress`, with its items so far.
    pub fn in_progress(&self) -> app_server_protocol::thread::Turn {
        app_server_protocol::thread::Turn {
            id: self.id.clone(),
            root_turn_id: Some(self.id.clone()),
            items: self.live.items(),
            items_view: app_server_protocol::thread::TurnItemsView::Full,
            status: app_server_protocol::thread::TurnStatus::InProgress,
            error: None,
            started_at: Some(self.started_at),
            completed_at: None,
            duration_ms: None,
        }
    }
}

/// Input added to a running turn.
#[derive(Clone, Debug)]
pub struct SteerInput {
    /// The input items.
    pub input: Vec<UserInput>,
    /// Client id echoed in the user message item.
    pub client_id: Option<String>,
}

impl ThreadState {
    /// Appends a record to the rollout, if there is one. Errors are logged: a failed write
    /// must not kill the turn, and the next turn end retries the fsync.
    pub fn record(&mut self, record: &RolloutRecord) {
        if let Some(writer) = self.writer.as_mut()
            && let Err(error) = writer.append(record)
        {
            tracing::error!(thread_id = %self.meta.id, %error, "cannot append to rollout");
        }
    }

    /// Adds what the model must see before a turn's input and records it: the AGENTS.md
    /// message and the skills message (first turn only), and the environment context (first turn and whenever the
    /// cwd changed). Then marks where the turn's history begins.
    pub fn send_initial_context(&mut self, turn_id: &str) {
        if let Some(instructions) = self.pending_instructions.take() {
            self.record(&RolloutRecord::Instructions {
                sources: self.instruction_sources.clone(),
            });
            self.push_history(turn_id, instructions);
        }
        if let Some(skills) = self.pending_skills.take() {
            self.push_history(turn_id, skills);
        }
        let cwd = self.meta.cwd.clone();
        if self.environment_sent_for.as_deref() != Some(cwd.as_str()) {
            let context = prompt::environment_context(&cwd, &prompt::today());
            self.push_history(turn_id, context);
            self.environment_sent_for = Some(cwd);
        }
        self.turn_starts
            .push((turn_id.to_string(), self.history.len()));
    }

    /// Appends an item to the model history and records it.
    pub fn push_history(&mut self, turn_id: &str, item: ResponseItem) {
        self.record(&RolloutRecord::ResponseItem {
            turn_id: turn_id.to_string(),
            item: item.clone(),
        });
        self.history.push(item);
    }

    /// The thread as the protocol shows it, without turns.
    pub fn to_thread(&self) -> Thread {
        let mut thread = thread_from_meta(&self.meta, self.status.clone(), self.ephemeral);
        thread.environments = Some(vec![ThreadEnvironment {
            environment_id: "local".into(),
            cwd: self.meta.cwd.clone(),
            runtime_workspace_roots: vec![self.meta.cwd.clone()],
        }]);
        thread.can_accept_direct_input = Some(true);
        thread
    }
}

/// Builds the protocol `Thread` for stored metadata (listed threads: no environments).
pub fn thread_from_meta(meta: &ThreadMeta, status: ThreadStatus, ephemeral: bool) -> Thread {
    let updated_at = meta.updated_at_ms / 1000;
    Thread {
        id: meta.id.clone(),
        environments: None,
        extra: None,
        session_id: meta.id.clone(),
        forked_from_id: meta.forked_from_id.clone(),
        attached_to_thread_id: None,
        parent_thread_id: None,
        preview: meta.preview.clone(),
        ephemeral,
        section: None,
        section_entered_at: None,
        project_id: None,
        history_mode: ThreadHistoryMode::Paginated,
        model_provider: meta.model_provider.clone(),
        model: Some(meta.model.clone()),
        reasoning_effort: meta.reasoning_effort,
        created_at: meta.created_at,
        updated_at,
        recency_at: Some(updated_at),
        status,
        path: if ephemeral {
            None
        } else {
            Some(meta.rollout_path.to_string_lossy().into_owned())
        },
        cwd: meta.cwd.clone(),
        cli_version: if meta.cli_version.is_empty() {
            PROTOCOL_VERSION.to_string()
        } else {
            meta.cli_version.clone()
        },
        originator: meta.originator.clone(),
        source: match meta.source.as_str() {
            "cli" => SessionSource::Cli,
            "exec" => SessionSource::Exec,
            "appServer" => SessionSource::AppServer,
            "unknown" => SessionSource::Unknown,
            _ => SessionSource::Vscode,
        },
        can_accept_direct_input: None,
        thread_source: meta.thread_source.clone(),
        agent_nickname: None,
        agent_role: None,
        git_info: meta.git_info.clone(),
        name: meta.name.clone(),
        daybreak_enabled: meta.daybreak_enabled,
        turns: Vec::new(),
    }
}
