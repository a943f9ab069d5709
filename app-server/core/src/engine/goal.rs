//! A loaded thread's goal: `thread/goal/set`, `thread/goal/get` and `thread/goal/clear`.
//!
//! The goal lives in the thread's state and each change is a `goal` rollout record, so a
//! resumed thread has it back. Tandem stores and reports the goal; unlike the reference, it
//! does not start turns toward an active goal on its own, nor count the tokens and time spent
//! on it (both stay 0).

use app_server_protocol::thread_goal::{
    ThreadGoal, ThreadGoalClearParams, ThreadGoalGetParams, ThreadGoalSetParams, ThreadGoalStatus,
};

use crate::clock::unix_millis;
use crate::engine::owner::thread_not_found;
use crate::engine::{Engine, EngineError};
use crate::store::RolloutRecord;
use crate::sync::lock;

/// The longest objective a goal may have, in bytes.
pub const MAX_OBJECTIVE_BYTES: usize = 16 * 1024;

impl Engine {
    /// `thread/goal/set`: a new objective sets a new goal (status `active` unless given);
    /// without one, the existing goal's status and budget change.
    pub async fn set_goal(&self, params: ThreadGoalSetParams) -> Result<ThreadGoal, EngineError> {
        let owned = self
            .owned_thread(&params.thread_id, thread_not_found)
            .await?;
        let Some(thread) = owned.loaded().cloned() else {
            return Err(thread_not_found(owned.id()));
        };
        if let Some(objective) = &params.objective {
            if objective.trim().is_empty() {
                return Err(EngineError::InvalidRequest(
                    "goal objective must not be empty".into(),
                ));
            }
            if objective.len() > MAX_OBJECTIVE_BYTES {
                return Err(EngineError::InvalidRequest(format!(
                    "goal objective must be at most {MAX_OBJECTIVE_BYTES} bytes"
                )));
            }
        }
        self.persist_now(&thread).await?;
        let now = unix_millis() / 1000;
        let mut state = lock(&thread.state);
        let mut goal = match (state.goal.clone(), params.objective) {
            (Some(goal), None) => goal,
            (Some(goal), Some(objective)) if goal.objective == objective => goal,
            (_, Some(objective)) => ThreadGoal {
                thread_id: thread.id.clone(),
                objective,
                status: ThreadGoalStatus::Active,
                token_budget: None,
                tokens_used: 0,
                time_used_seconds: 0,
                created_at: now,
                updated_at: now,
            },
            (None, None) => {
                return Err(EngineError::InvalidRequest(format!(
                    "cannot update goal for thread {}: no goal exists",
                    thread.id
                )));
            }
        };
        if let Some(status) = params.status {
            goal.status = status;
        }
        if let Some(budget) = params.token_budget {
            goal.token_budget = Some(budget);
        }
        goal.updated_at = now;
        state.goal = Some(goal.clone());
        state.record(&RolloutRecord::Goal {
            goal: Some(goal.clone()),
        });
        Ok(goal)
    }

    /// `thread/goal/get`.
    pub async fn goal(
        &self,
        params: ThreadGoalGetParams,
    ) -> Result<Option<ThreadGoal>, EngineError> {
        let owned = self
            .owned_thread(&params.thread_id, thread_not_found)
            .await?;
        let Some(thread) = owned.loaded() else {
            return Err(thread_not_found(owned.id()));
        };
        Ok(lock(&thread.state).goal.clone())
    }

    /// `thread/goal/clear`: whether there was a goal to clear.
    pub async fn clear_goal(&self, params: ThreadGoalClearParams) -> Result<bool, EngineError> {
        let owned = self
            .owned_thread(&params.thread_id, thread_not_found)
            .await?;
        let Some(thread) = owned.loaded() else {
            return Err(thread_not_found(owned.id()));
        };
        let mut state = lock(&thread.state);
        if state.goal.take().is_none() {
            return Ok(false);
        }
        state.record(&RolloutRecord::Goal { goal: None });
        Ok(true)
    }

    /// The goal of loaded thread `thread_id` (for the notification that follows
    /// `thread/resume`).
    pub fn loaded_goal(&self, thread_id: &str) -> Option<ThreadGoal> {
        let thread = self.thread(thread_id)?;
        lock(&thread.state).goal.clone()
    }
}
