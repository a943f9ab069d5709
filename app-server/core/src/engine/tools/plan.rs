//! `update_plan`: the model's task list, announced as `turn/plan/updated`.
//!
//! As on the observed wire, no item is created; the plan lives in the notification.

use app_server_protocol::notifications::{
    TurnPlanStep, TurnPlanStepStatus, TurnPlanUpdatedNotification,
};
use app_server_protocol::tables::ServerNotification;
use serde::Deserialize;

use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;

/// `update_plan` arguments (`model-wire.md` §2.4).
#[derive(Debug, Deserialize)]
struct UpdatePlanArgs {
    #[serde(default)]
    explanation: Option<String>,
    plan: Vec<PlanStepArgs>,
}

#[derive(Debug, Deserialize)]
struct PlanStepArgs {
    step: String,
    status: String,
}

impl TurnTask {
    /// `update_plan`: validates the steps and emits `turn/plan/updated`.
    pub(super) async fn update_plan(&mut self, call: &ToolCall) -> ToolOutcome {
        let args: UpdatePlanArgs = match call.arguments() {
            Ok(args) => args,
            Err(message) => return call.reply(message),
        };
        let plan = match plan_steps(args.plan) {
            Ok(plan) => plan,
            Err(message) => return call.reply(message),
        };
        self.engine
            .sink
            .emit(ServerNotification::TurnPlanUpdated(
                TurnPlanUpdatedNotification {
                    thread_id: self.thread.id.clone(),
                    turn_id: self.turn_id.clone(),
                    explanation: args.explanation,
                    plan,
                },
            ))
            .await;
        call.reply("Plan updated")
    }
}

/// The wire steps, or why the plan is invalid.
fn plan_steps(steps: Vec<PlanStepArgs>) -> Result<Vec<TurnPlanStep>, String> {
    let mut plan = Vec::with_capacity(steps.len());
    for step in steps {
        let status = match step.status.as_str() {
            "pending" => TurnPlanStepStatus::Pending,
            "in_progress" | "inProgress" => TurnPlanStepStatus::InProgress,
            "completed" => TurnPlanStepStatus::Completed,
            other => {
                return Err(format!(
                    "failed to parse function arguments: unknown plan status `{other}` (expected pending, in_progress or completed)"
                ));
            }
        };
        plan.push(TurnPlanStep {
            step: step.step,
            status,
        });
    }
    let in_progress = plan
        .iter()
        .filter(|step| step.status == TurnPlanStepStatus::InProgress)
        .count();
    if in_progress > 1 {
        return Err("update_plan failed: at most one step can be in_progress".into());
    }
    Ok(plan)
}
