//! The engine: threads, turns, items and the agent loop.
//!
//! Architecture invariant: the engine never sees a JSON-RPC id, method name or transport. It
//! receives typed params, returns typed results and emits protocol notifications through an
//! [`EventSink`]; the processor turns those into wire messages.

pub mod agents_md;
pub mod approval;
mod attachments;
mod background_terminals;
mod compaction;
pub mod config_requests;
mod delete;
mod external_agent;
#[cfg(test)]
mod external_agent_tests;
mod feedback;
mod goal;
mod history_repair;
mod hooks;
mod image_file;
mod items_list;
mod lifecycle;
mod live_turn;
pub mod mcp;
mod mcp_calls;
pub mod owner;
#[cfg(test)]
mod owner_tests;
mod plan_stream;
mod prompt;
mod proposed_plan;
mod queries;
pub mod queue;
mod rate_limits;
pub mod read_state;
mod review;
mod review_diff;
mod rollback;
mod sections;
pub mod server_requests;
mod settings;
mod shell_command;
mod skills;
#[cfg(test)]
mod test_support;
mod thread;
mod thread_edits;
mod thread_settings;
pub mod tools;
mod turn;
mod turn_control;
mod turn_end;
#[cfg(test)]
mod turn_end_tests;
mod turn_items;
mod turn_parts;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use app_server_protocol::tables::ServerNotification;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::access::ClientPolicy;
use crate::account::AccountState;
use crate::audit::{AuditEvent, AuditLog};
use crate::config::Config;
use crate::engine::approval::Approver;
use crate::engine::owner::LoadedThreads;
use crate::model::ModelClient;
use crate::principal::Principal;
use crate::store::{Store, StoreError};
use crate::sync::lock;

pub use lifecycle::RESUME_DEPRECATION;
pub use queries::collaboration_mode_presets;
pub use settings::normalize_thread_id;
pub use settings::resolve_cwd;
pub use settings::sandbox_policy;
pub use turn_control::TurnLauncher;

/// Where the engine sends notifications. Awaiting `emit` applies backpressure.
pub trait EventSink: Send + Sync + 'static {
    /// Delivers one notification.
    fn emit(
        &self,
        notification: ServerNotification,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

/// Why an engine operation failed.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The request cannot be served as asked (unknown thread, no active turn, bad cursor…);
    /// becomes `-32600` with this message.
    #[error("{0}")]
    InvalidRequest(String),
    /// Something failed inside the server; becomes `-32603`.
    #[error("{0}")]
    Internal(String),
}

impl From<StoreError> for EngineError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound(_) | StoreError::InvalidCursor(_) => {
                EngineError::InvalidRequest(error.to_string())
            }
            other => EngineError::Internal(other.to_string()),
        }
    }
}

/// The engine of one connection (or one MCP session).
#[derive(Clone)]
pub struct Engine {
    inner: Arc<EngineInner>,
}

/// How long [`Engine::shutdown`] waits for interrupted turns to end: well inside the 5 s a
/// server's whole shutdown may take.
pub const SHUTDOWN_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// The least time [`Engine::shutdown`] leaves the threads' MCP servers to stop, even when the
/// turns took all of [`SHUTDOWN_WAIT`].
const MCP_SHUTDOWN_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// Shared state of an [`Engine`].
pub struct EngineInner {
    /// Effective configuration (shared: every MCP session of a server has an engine), replaced
    /// whole when a config write or reload changes it; a thread keeps the one it started with.
    config: std::sync::RwLock<Arc<Config>>,
    /// Thread storage.
    pub store: Arc<Store>,
    /// Notification sink.
    pub sink: Arc<dyn EventSink>,
    /// Where approvals and questions for the user go.
    pub approver: Arc<dyn Approver>,
    /// The operator's ceiling on what this engine's client may obtain (`[clients]`).
    pub access: ClientPolicy,
    /// The stored login and rate limits of the home.
    account: Arc<AccountState>,
    /// The client answers the structured dialogs (`agent/requestUserInput`,
    /// `agent/askUserQuestion`), so the model is offered `ask_user` and `ask_user_question`.
    dialogs: AtomicBool,
    /// The model may ask the user questions at all: `false` (a front end with nobody to answer,
    /// `tandem exec`) leaves `request_user_input` and the dialog tools out of every request.
    questions: AtomicBool,
    /// The principal the engine acts for: it owns the threads the engine creates, and the
    /// engine reaches no other principal's thread (`owner.rs`).
    principal: Principal,
    /// Loaded threads by id, reachable only through the owner check.
    threads: LoadedThreads,
    /// Model clients by provider id.
    clients: Mutex<HashMap<String, Arc<dyn ModelClient>>>,
    /// `clientInfo.name`, recorded as the thread originator.
    originator: Mutex<Option<String>>,
    /// The process's audit trail and the name of the front end this engine serves (set once by
    /// the front end; nothing is audited until then).
    audit: std::sync::OnceLock<(AuditLog, &'static str)>,
    /// Cancelled at shutdown; every turn token is a child.
    shutdown: CancellationToken,
    /// Running turn tasks, awaited at shutdown.
    tasks: TaskTracker,
    /// The connection's extra skill roots (`skills/extraRoots/set`).
    skill_roots: Mutex<Vec<std::path::PathBuf>>,
}

impl EngineInner {
    /// The effective configuration, as of now.
    pub fn config(&self) -> Arc<Config> {
        self.config
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Makes `config` the configuration of threads started from now on.
    pub(crate) fn replace_config(&self, config: Arc<Config>) {
        *self
            .config
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = config;
        // A provider's settings may have changed: new threads build their clients anew, the
        // loaded ones keep theirs.
        lock(&self.clients).clear();
    }

    /// Records `event` as done by the engine's principal, once the front end set the trail.
    pub fn audit(&self, event: &AuditEvent) {
        if let Some((audit, front_end)) = self.audit.get() {
            audit.record(&self.principal, front_end, event);
        }
    }

    /// Whether the client answers the structured dialogs.
    pub fn dialogs_enabled(&self) -> bool {
        self.dialogs.load(Ordering::Relaxed)
    }

    /// Whether the model may be offered tools that ask the user questions.
    pub fn questions_enabled(&self) -> bool {
        self.questions.load(Ordering::Relaxed)
    }
}

impl Engine {
    /// A new engine over `store` and the home's `account` (both the server's, shared by every
    /// engine it builds), emitting to `sink`, asking the user through `approver` and acting
    /// for `principal` (the front end names its caller here, once, and every thread the engine
    /// creates or reaches is that principal's) and giving its client no more than `access`
    /// allows.
    pub fn new(
        config: impl Into<Arc<Config>>,
        store: Arc<Store>,
        account: Arc<AccountState>,
        sink: Arc<dyn EventSink>,
        approver: Arc<dyn Approver>,
        principal: Principal,
        access: ClientPolicy,
    ) -> Engine {
        let config: Arc<Config> = config.into();
        Engine {
            inner: Arc::new(EngineInner {
                account,
                dialogs: AtomicBool::new(false),
                questions: AtomicBool::new(true),
                config: std::sync::RwLock::new(config),
                store,
                sink,
                approver,
                principal,
                access,
                threads: LoadedThreads::default(),
                clients: Mutex::new(HashMap::new()),
                originator: Mutex::new(None),
                audit: std::sync::OnceLock::new(),
                shutdown: CancellationToken::new(),
                tasks: TaskTracker::new(),
                skill_roots: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Records what this engine's principal does in `audit`, naming `front_end` (`app-server`,
    /// `mcp-server stdio`, `mcp-server http`). Later calls are ignored.
    pub fn set_audit(&self, audit: AuditLog, front_end: &'static str) {
        let _ = self.inner.audit.set((audit, front_end));
    }

    /// Records `event` as done by this engine's principal. Never blocks.
    pub fn audit(&self, event: &AuditEvent) {
        self.inner.audit(event);
    }

    /// The effective configuration, as of now (a later config write replaces it).
    pub fn config(&self) -> Arc<Config> {
        self.inner.config()
    }

    /// The operator's ceiling on what this engine's client may obtain.
    pub fn client_policy(&self) -> &ClientPolicy {
        &self.inner.access
    }

    /// The stored login and rate limits of the home.
    pub fn account(&self) -> Arc<AccountState> {
        self.inner.account.clone()
    }

    /// Whether the client answers the structured dialogs (set at `initialize`).
    pub fn set_dialogs(&self, enabled: bool) {
        self.inner.dialogs.store(enabled, Ordering::Relaxed);
    }

    /// Whether anyone can answer the model's questions (default: yes). Without, the model is
    /// offered no tool that asks the user (`request_user_input`, `ask_user`,
    /// `ask_user_question`), as the reference's non-interactive `exec` removes them.
    pub fn set_questions(&self, enabled: bool) {
        self.inner.questions.store(enabled, Ordering::Relaxed);
    }

    /// Records the client name used as the originator of new threads.
    pub fn set_originator(&self, name: &str) {
        *lock(&self.inner.originator) = Some(name.to_string());
    }

    /// Interrupts every running turn and waits until they have ended (items recorded,
    /// rollouts flushed), then stops the threads' commands and MCP servers; each wait is
    /// bounded by [`SHUTDOWN_WAIT`], so that a server's shutdown never hangs on its engine.
    pub async fn shutdown(&self) {
        let deadline = tokio::time::Instant::now() + SHUTDOWN_WAIT;
        self.inner.shutdown.cancel();
        self.inner.tasks.close();
        if tokio::time::timeout_at(deadline, self.inner.tasks.wait())
            .await
            .is_err()
        {
            tracing::warn!("turns still running at shutdown; going on without them");
        }
        // Commands that outlived their turn (still running for `write_stdin`) die with us.
        let threads = self.inner.threads.all();
        for thread in &threads {
            thread.tools.unified.terminate_all();
        }
        let servers = async {
            for thread in &threads {
                thread.mcp.shutdown().await;
            }
        };
        let wait = deadline.max(tokio::time::Instant::now() + MCP_SHUTDOWN_WAIT);
        if tokio::time::timeout_at(wait, servers).await.is_err() {
            tracing::warn!("MCP servers still stopping at shutdown; going on without them");
        }
    }
}
