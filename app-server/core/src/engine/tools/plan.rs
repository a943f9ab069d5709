//! `update_plan`: the model's task list, announced as `turn/plan/updated`.
//!
//! As on the observed wire, no item is created; the plan lives in the notification.

use app_server_protocol::notifications::{
    TurnPlanStep, TurnPlanStepStatus, TurnPlanUpdatedNotification,
};
use app_server_protocol::tables::ServerNotification;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::engine::tools::registry::ModelCall;
use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;
use crate::tools::{Tool, ToolFuture};

/// `update_plan` (`model-wire.md` §2.4).
pub(crate) struct UpdatePlan;

impl Tool for UpdatePlan {
    const NAME: &'static str = "update_plan";
    const DESCRIPTION: &'static str = "Updates the task plan. Provide an optional explanation and a list of plan items, each with a step and status. At most one step can be in_progress at a time.";
    type Args = UpdatePlanArgs;
    type Context<'a> = ModelCall<'a>;
    type Output = ToolOutcome;

    fn run<'a>(context: Self::Context<'a>, args: UpdatePlanArgs) -> ToolFuture<'a, ToolOutcome> {
        Box::pin(context.task.update_plan(context.call, args))
    }
}

/// `update_plan` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct UpdatePlanArgs {
    #[serde(default)]
    explanation: Option<String>,
    /// The list of steps
    plan: Vec<PlanStepArgs>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
struct PlanStepArgs {
    step: String,
    /// One of: pending, in_progress, completed
    status: String,
}

impl TurnTask {
    /// `update_plan`: validates the steps and emits `turn/plan/updated`.
    async fn update_plan(&mut self, call: &ToolCall, args: UpdatePlanArgs) -> ToolOutcome {
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
