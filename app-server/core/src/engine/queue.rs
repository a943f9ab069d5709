//! `thread/queue/add` and `thread/queue/list`: inputs queued behind a thread's running turn,
//! each starting a turn of its own, in order, when the turn before it completes.
//!
//! An input added to an idle thread starts its turn at once. A turn that fails or is
//! interrupted leaves the queue as it is (the user stopped, or something went wrong), and the
//! next completed turn takes it up again. Every change is announced as `thread/queue/changed`.

use std::sync::Arc;

use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread_queue::{
    QueuedSubmission, ThreadQueueAddParams, ThreadQueueAddResponse, ThreadQueueChangedNotification,
    ThreadQueueListParams, ThreadQueueListResponse,
};
use app_server_protocol::turn_requests::TurnStartParams;

use crate::engine::settings::normalize_thread_id;
use crate::engine::thread::LoadedThread;
use crate::engine::turn_control::TurnLauncher;
use crate::engine::{Engine, EngineError, EngineInner};
use crate::sync::lock;

/// At most this many inputs wait behind one thread's turn.
pub const MAX_QUEUED_INPUTS: usize = 100;

/// What follows the answer to `thread/queue/add`.
pub enum QueueFollowUp {
    /// The thread was idle: the input's turn starts.
    Start(Box<TurnLauncher>),
    /// The input waits: the queue changed.
    Queued {
        /// The engine that announces it.
        engine: Arc<EngineInner>,
        /// The thread.
        thread_id: String,
    },
}

impl QueueFollowUp {
    /// Starts the turn, or announces `thread/queue/changed`.
    pub async fn run(self) {
        match self {
            QueueFollowUp::Start(launcher) => (*launcher).launch(),
            QueueFollowUp::Queued { engine, thread_id } => {
                engine
                    .sink
                    .emit(ServerNotification::ThreadQueueChanged(
                        ThreadQueueChangedNotification { thread_id },
                    ))
                    .await;
            }
        }
    }
}

impl Engine {
    /// `thread/queue/add`: the answer, and what follows it.
    pub fn queue_add(
        &self,
        params: ThreadQueueAddParams,
    ) -> Result<(ThreadQueueAddResponse, QueueFollowUp), EngineError> {
        if params.input.is_empty() {
            return Err(EngineError::InvalidRequest(
                "input must not be empty".into(),
            ));
        }
        let id = normalize_thread_id(&params.thread_id)?;
        let thread = self
            .thread(&id)
            .ok_or_else(|| EngineError::InvalidRequest(format!("thread not found: {id}")))?;
        let submission = QueuedSubmission {
            id: uuid::Uuid::now_v7().to_string(),
            input: params.input,
            client_user_message_id: params.client_user_message_id,
            responsesapi_client_metadata: params.responsesapi_client_metadata,
        };
        let response = ThreadQueueAddResponse {
            queued_submission: submission.clone(),
        };
        {
            let mut state = lock(&thread.state);
            if state.active.is_some() {
                if state.queue.len() >= MAX_QUEUED_INPUTS {
                    return Err(EngineError::InvalidRequest(format!(
                        "the queue of thread {id} is full: at most {MAX_QUEUED_INPUTS} inputs wait"
                    )));
                }
                state.queue.push_back(submission);
                return Ok((
                    response,
                    QueueFollowUp::Queued {
                        engine: self.inner.clone(),
                        thread_id: id,
                    },
                ));
            }
        }
        match self.start_turn(turn_params(&id, submission))? {
            (_, Some(launcher)) => Ok((response, QueueFollowUp::Start(Box::new(launcher)))),
            // A turn started in between: the input joined it, as `turn/start`'s would.
            (_, None) => Ok((
                response,
                QueueFollowUp::Queued {
                    engine: self.inner.clone(),
                    thread_id: id,
                },
            )),
        }
    }

    /// `thread/queue/list`, in the order the inputs will start.
    pub fn queue_list(
        &self,
        params: ThreadQueueListParams,
    ) -> Result<ThreadQueueListResponse, EngineError> {
        let id = normalize_thread_id(&params.thread_id)?;
        let thread = self
            .thread(&id)
            .ok_or_else(|| EngineError::InvalidRequest(format!("thread not found: {id}")))?;
        let offset = match &params.cursor {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .map_err(|error| EngineError::InvalidRequest(format!("invalid cursor: {error}")))?,
        };
        let queued: Vec<QueuedSubmission> = lock(&thread.state).queue.iter().cloned().collect();
        let total = queued.len();
        let limit = match params.limit {
            None | Some(0) => total,
            Some(limit) => usize::try_from(limit).unwrap_or(usize::MAX),
        };
        let data: Vec<QueuedSubmission> = queued.into_iter().skip(offset).take(limit).collect();
        let end = offset.saturating_add(data.len());
        Ok(ThreadQueueListResponse {
            data,
            next_cursor: (end < total).then(|| end.to_string()),
        })
    }
}

/// After a turn of `thread` completed: starts the first queued input's turn, if any, and
/// announces that the queue changed.
pub(super) async fn start_next_queued(engine: &Arc<EngineInner>, thread: &Arc<LoadedThread>) {
    let next = lock(&thread.state).queue.pop_front();
    let Some(next) = next else { return };
    engine
        .sink
        .emit(ServerNotification::ThreadQueueChanged(
            ThreadQueueChangedNotification {
                thread_id: thread.id.clone(),
            },
        ))
        .await;
    let engine = Engine {
        inner: engine.clone(),
    };
    match engine.start_turn(turn_params(&thread.id, next)) {
        Ok((_, Some(launcher))) => launcher.launch(),
        Ok((_, None)) => {}
        Err(error) => {
            tracing::warn!(thread_id = %thread.id, %error, "a queued input could not start its turn");
        }
    }
}

fn turn_params(thread_id: &str, submission: QueuedSubmission) -> TurnStartParams {
    TurnStartParams {
        thread_id: thread_id.to_string(),
        input: submission.input,
        client_user_message_id: Some(submission.client_user_message_id),
        ..TurnStartParams::default()
    }
}
