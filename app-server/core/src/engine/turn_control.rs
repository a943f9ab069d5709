//! Turn control: `turn/start`, `turn/steer` and `turn/interrupt`, and the persisted start of
//! a running turn (rollout creation, initial context, the thread's setup warnings).

use std::sync::Arc;

use app_server_protocol::notifications::WarningNotification;
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::{ThreadStatus, Turn, TurnItemsView, TurnStatus};
use app_server_protocol::turn_requests::{TurnStartParams, TurnSteerParams};
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::clock::unix_millis;
use crate::engine::settings::normalize_thread_id;
use crate::engine::thread::{ActiveTurn, SteerInput};
use crate::engine::turn::TurnTask;
use crate::engine::turn_end::run_guarded;
use crate::engine::{Engine, EngineError, EngineInner};
use crate::store::RolloutRecord;
use crate::sync::lock;
use crate::tools::apply_patch::diff::TurnDiffTracker;

/// How many steering inputs may wait for a running turn to take them.
const STEER_QUEUE: usize = 64;

/// Starts a prepared turn; returned by [`Engine::start_turn`] so that the caller can answer
/// the request before the turn's first notification.
pub struct TurnLauncher {
    engine: Arc<EngineInner>,
    pub(super) task: TurnTask,
    /// Cancels the turn's [`ActiveTurn::ended`] when dropped: at the end of the turn's task,
    /// or here when the launcher is dropped unlaunched.
    ended: DropGuard,
}

impl TurnLauncher {
    /// Spawns the turn.
    pub fn launch(self) {
        let ended = self.ended;
        let task = self.task;
        self.engine.tasks.spawn(async move {
            run_guarded(task).await;
            drop(ended);
        });
    }
}

impl TurnTask {
    /// Marks the turn announced (`turn/started` sent): a waiting interrupt may be answered.
    pub(super) fn announced(&self) {
        if let Some(active) = lock(&self.thread.state)
            .active
            .as_ref()
            .filter(|active| active.id == self.turn_id)
        {
            active.announced.cancel();
        }
    }

    /// Creates the rollout with the first turn (threads without turns are not persisted),
    /// records the turn start, and emits the thread's setup warnings (after `turn/started`,
    /// so that they belong to the first turn).
    pub(super) async fn begin_persisted_turn(&self) {
        let unpersisted = {
            let state = lock(&self.thread.state);
            (!state.ephemeral && state.writer.is_none()).then(|| state.meta.clone())
        };
        if let Some(meta) = unpersisted {
            // Creating the file and its index row is blocking I/O: off the async workers.
            match self
                .engine
                .store
                .blocking(move |store| store.create(&meta))
                .await
            {
                Ok(writer) => lock(&self.thread.state).writer = Some(writer),
                Err(error) => {
                    tracing::error!(thread_id = %self.thread.id, %error, "cannot create rollout")
                }
            }
        }
        let warnings = {
            let mut state = lock(&self.thread.state);
            state.send_initial_context(&self.turn_id);
            state.record(&RolloutRecord::TurnStarted {
                turn_id: self.turn_id.clone(),
                started_at: self.started_at,
            });
            std::mem::take(&mut state.pending_warnings)
        };
        for message in warnings {
            self.engine
                .sink
                .emit(ServerNotification::Warning(WarningNotification {
                    thread_id: Some(self.thread.id.clone()),
                    message,
                }))
                .await;
        }
    }
}

/// Interrupts a turn; returned by [`Engine::prepare_interrupt`] so that the caller can answer
/// the request before `turn/completed`.
pub struct InterruptHandle {
    cancel: CancellationToken,
    announced: CancellationToken,
}

/// How long an interrupt waits for its turn to announce itself before it is answered anyway.
const ANNOUNCE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

impl InterruptHandle {
    /// Waits until the turn has sent `thread/status/changed` and `turn/started` (at most
    /// [`ANNOUNCE_WAIT`]): an interrupt of a turn that is just starting is answered after them.
    pub async fn announced(&self) {
        let _ = tokio::time::timeout(ANNOUNCE_WAIT, self.announced.cancelled()).await;
    }

    /// Interrupts the turn.
    pub fn interrupt(self) {
        self.cancel.cancel();
    }
}

impl Engine {
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
                queue_steer(&active.steer, input)?;
            }
            return Ok((turn, None));
        }
        let mut meta = state.meta.clone();
        // Settings changed during the last turn (`thread/settings/update`) apply from now on.
        if let Some(next) = state.next_turn_settings.take() {
            crate::engine::thread_settings::adopt_settings(&mut meta, next);
        }
        crate::engine::thread_settings::SettingsOverrides {
            cwd: params.cwd.as_deref(),
            model: params.model.as_deref(),
            effort: params.effort,
            summary: params.summary,
            approval_policy: params.approval_policy,
            sandbox_policy: params.sandbox_policy.as_ref(),
            collaboration_mode: params.collaboration_mode.as_ref(),
        }
        .apply(&mut meta);
        // A sandbox the client names, and the working directory, must keep the thread's
        // effective access within `clients.max_sandbox`; the turn does not start otherwise.
        let asked = params.sandbox_policy.is_some();
        meta.sandbox = self
            .inner
            .access
            .admit(meta.sandbox.clone(), std::path::Path::new(&meta.cwd), asked)
            .map_err(|error| EngineError::InvalidRequest(error.to_string()))?;
        if meta != state.meta {
            state.meta = meta.clone();
            state.record(&RolloutRecord::Settings { meta });
        }
        if let Some(reviewer) = params.approvals_reviewer {
            state.approvals_reviewer = reviewer;
        }
        let cwd = state.meta.cwd.clone();
        let turn_id = uuid::Uuid::now_v7().to_string();
        let cancel = self.inner.shutdown.child_token();
        let (steer_sender, steer_receiver) = mpsc::channel(STEER_QUEUE);
        let started_at_ms = unix_millis();
        let ended = CancellationToken::new();
        state.active = Some(ActiveTurn {
            id: turn_id.clone(),
            cancel: cancel.clone(),
            steer: steer_sender,
            started_at: started_at_ms / 1000,
            live: Default::default(),
            ended: ended.clone(),
            announced: CancellationToken::new(),
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
            diff: TurnDiffTracker::new(std::path::PathBuf::from(&cwd)),
            compact_only: false,
            shell_command: None,
            review: None,
        };
        Ok((
            in_progress_turn(&turn_id, None),
            Some(TurnLauncher {
                engine: self.inner.clone(),
                task,
                ended: ended.drop_guard(),
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
        let input = SteerInput {
            input: params.input,
            client_id: params.client_user_message_id,
        };
        queue_steer(&active.steer, input)?;
        Ok(active.id.clone())
    }

    /// The id of a thread's running turn.
    pub fn active_turn_id(&self, thread_id: &str) -> Result<String, EngineError> {
        let id = normalize_thread_id(thread_id)?;
        let thread = self
            .thread(&id)
            .ok_or_else(|| EngineError::InvalidRequest(format!("thread not found: {id}")))?;
        let state = lock(&thread.state);
        match &state.active {
            Some(active) => Ok(active.id.clone()),
            None => Err(EngineError::InvalidRequest(
                "no active turn to interrupt".into(),
            )),
        }
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
            announced: active.announced.clone(),
        })
    }
}

/// Hands `input` to the running turn, or refuses it when the turn has not yet taken
/// [`STEER_QUEUE`] earlier inputs (the turn reads them between model responses).
fn queue_steer(steer: &mpsc::Sender<SteerInput>, input: SteerInput) -> Result<(), EngineError> {
    match steer.try_send(input) {
        Ok(()) => Ok(()),
        Err(mpsc::error::TrySendError::Full(_)) => Err(EngineError::InvalidRequest(format!(
            "the running turn already has {STEER_QUEUE} inputs waiting; retry once it takes them"
        ))),
        // The turn is ending; as before, input that arrives at that moment is not kept.
        Err(mpsc::error::TrySendError::Closed(_)) => Ok(()),
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
