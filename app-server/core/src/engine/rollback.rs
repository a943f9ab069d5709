//! `thread/rollback`: drops the last turns of a loaded, idle thread.
//!
//! The turns leave the thread's turn list and their items leave the model history, which is
//! cut back to where the first dropped turn began. The rollout keeps everything it had and
//! gains a rollback record, so that a reader or a later resume rebuilds the same thread.
//! Files that the dropped turns changed stay as they are.

use app_server_protocol::thread::TurnItemsView;
use app_server_protocol::thread_context::{ThreadRollbackParams, ThreadRollbackResponse};

use crate::engine::owner::thread_not_found;
use crate::engine::{Engine, EngineError};
use crate::store::{RolloutRecord, RolloutWriter};
use crate::sync::lock;

impl Engine {
    /// `thread/rollback`. Refused while a turn runs.
    pub async fn rollback_thread(
        &self,
        params: ThreadRollbackParams,
    ) -> Result<ThreadRollbackResponse, EngineError> {
        let owned = self
            .owned_thread(&params.thread_id, thread_not_found)
            .await?;
        if params.num_turns == 0 {
            return Err(EngineError::InvalidRequest(
                "numTurns must be at least 1".into(),
            ));
        }
        // Only a loaded thread rolls back; a stored one is "not found" here, as it always was.
        let Some(thread) = owned.loaded().cloned() else {
            return Err(thread_not_found(owned.id()));
        };
        let (response, sync) = {
            let mut state = lock(&thread.state);
            if state.active.is_some() {
                return Err(EngineError::InvalidRequest(
                    "cannot roll back while a turn is in progress".into(),
                ));
            }
            let count = usize::try_from(params.num_turns).unwrap_or(usize::MAX);
            let keep = state.turns.len().saturating_sub(count);
            let first_dropped = state.turns.get(keep).map(|turn| turn.id.clone());
            let history_len = first_dropped
                .and_then(|turn_id| {
                    state
                        .turn_starts
                        .iter()
                        .find(|(started, _)| *started == turn_id)
                        .map(|(_, start)| *start)
                })
                .unwrap_or(state.history.len())
                .min(state.history.len());
            state.turns.truncate(keep);
            state.history.truncate(history_len);
            let kept: std::collections::HashSet<String> =
                state.turns.iter().map(|turn| turn.id.clone()).collect();
            state
                .turn_starts
                .retain(|(turn_id, _)| kept.contains(turn_id));
            state.record(&RolloutRecord::Rollback {
                num_turns: params.num_turns,
                history_len,
            });
            let mut thread_view = state.to_thread();
            thread_view.turns = state.turns.clone();
            for turn in &mut thread_view.turns {
                turn.items_view = TurnItemsView::Full;
            }
            (
                ThreadRollbackResponse {
                    thread: thread_view,
                },
                state.writer.as_ref().map(RolloutWriter::sync_handle),
            )
        };
        // The rollback is durable before it is answered; the fsync runs off the async workers.
        if let Some(sync) = sync {
            tokio::task::spawn_blocking(move || sync.sync())
                .await
                .map_err(|error| EngineError::Internal(error.to_string()))?
                .map_err(|error| EngineError::Internal(error.to_string()))?;
        }
        Ok(response)
    }
}
