//! The model's tool registry: every tool the engine can offer the model, each a
//! [`Tool`](crate::tools::Tool) in its own module, with the names, descriptions and argument
//! shapes Codex-tuned models expect (`model-wire.md` §2). The tool definitions sent to the model
//! and the dispatch of the model's calls both read [`MODEL_TOOLS`]; a call by any other name
//! goes to the tools the client declared (`dynamic.rs`), then to the thread's MCP servers.

use serde_json::Value;

use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;
use crate::model::ToolSpec;
use crate::tools::{Tool, ToolFuture, input_schema};

use super::dialogs::{AskUserQuestionTool, AskUserTool};
use super::exec::{ExecCommand, WriteStdin};
use super::image::ViewImage;
use super::patch::ApplyPatch;
use super::permissions::RequestPermissions;
use super::plan::UpdatePlan;
use super::query_project::QueryProject;
use super::user_input::RequestUserInput;

/// A model tool's call: the turn it runs in and the call as the model sent it.
pub struct ModelCall<'a> {
    /// The turn.
    pub task: &'a mut TurnTask,
    /// The call (its id, and whether it was freeform).
    pub call: &'a ToolCall,
}

/// When a tool is offered to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offered {
    /// With every request that offers tools.
    Always,
    /// With every request, unless the front end has nobody to answer the user's questions
    /// (`tandem exec`, see `Engine::set_questions`).
    Question,
    /// Only to a client that answers the structured dialogs ([`DialogTools`](super::DialogTools)).
    Dialog,
    /// Only where the project index is usable (`query_project`).
    ProjectIndex,
    /// Only when the operator sets `request_permissions_tool`.
    Permissions,
}

/// One entry of the registry.
pub struct ModelTool {
    /// The name the model calls it by.
    pub name: &'static str,
    /// When it is offered.
    pub offered: Offered,
    description: &'static str,
    schema: fn() -> Value,
    run: for<'a> fn(&'a mut TurnTask, &'a ToolCall) -> ToolFuture<'a, ToolOutcome>,
    #[cfg(test)]
    decodes: fn(&Value) -> Result<(), String>,
}

impl ModelTool {
    /// Runs `call`: decodes the arguments (a decoding error is the call's output, so that the
    /// model can retry) and runs the handler.
    pub fn run<'a>(
        &self,
        task: &'a mut TurnTask,
        call: &'a ToolCall,
    ) -> ToolFuture<'a, ToolOutcome> {
        (self.run)(task, call)
    }

    /// The definition sent to the model.
    pub fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.into(),
            description: self.description.into(),
            parameters: (self.schema)(),
        }
    }
}

/// Every model tool, in the order they are offered.
pub const MODEL_TOOLS: &[ModelTool] = &[
    model_tool::<ExecCommand>(Offered::Always),
    model_tool::<WriteStdin>(Offered::Always),
    model_tool::<ApplyPatch>(Offered::Always),
    model_tool::<UpdatePlan>(Offered::Always),
    model_tool::<RequestUserInput>(Offered::Question),
    model_tool::<ViewImage>(Offered::Always),
    model_tool::<AskUserQuestionTool>(Offered::Dialog),
    model_tool::<AskUserTool>(Offered::Dialog),
    model_tool::<QueryProject>(Offered::ProjectIndex),
    model_tool::<RequestPermissions>(Offered::Permissions),
];

/// The tools offered with every request, in a stable order; `questions` says whether someone
/// answers the user's questions (else the tools that only ask are left out).
pub fn specs(questions: bool) -> Vec<ToolSpec> {
    MODEL_TOOLS
        .iter()
        .filter(|tool| match tool.offered {
            Offered::Always => true,
            Offered::Question => questions,
            Offered::Dialog | Offered::ProjectIndex | Offered::Permissions => false,
        })
        .map(ModelTool::spec)
        .collect()
}

/// The definition of the registered tool `T`.
pub fn spec_of<T: Tool>() -> ToolSpec {
    ToolSpec {
        name: T::NAME.into(),
        description: T::DESCRIPTION.into(),
        parameters: input_schema::<T::Args>(),
    }
}

/// The registered tool the model calls `name`.
pub fn find(name: &str) -> Option<&'static ModelTool> {
    MODEL_TOOLS.iter().find(|tool| tool.name == name)
}

const fn model_tool<T>(offered: Offered) -> ModelTool
where
    T: for<'a> Tool<Context<'a> = ModelCall<'a>, Output = ToolOutcome>,
{
    ModelTool {
        name: T::NAME,
        offered,
        description: T::DESCRIPTION,
        schema: input_schema::<T::Args>,
        run: run_tool::<T>,
        #[cfg(test)]
        decodes: decodes::<T>,
    }
}

fn run_tool<'a, T>(task: &'a mut TurnTask, call: &'a ToolCall) -> ToolFuture<'a, ToolOutcome>
where
    T: for<'b> Tool<Context<'b> = ModelCall<'b>, Output = ToolOutcome>,
{
    match call.arguments::<T::Args>() {
        Ok(args) => T::run(ModelCall { task, call }, args),
        Err(message) => {
            let outcome = call.reply(message);
            Box::pin(async move { outcome })
        }
    }
}

#[cfg(test)]
fn decodes<T: Tool>(arguments: &Value) -> Result<(), String> {
    serde_json::from_value::<T::Args>(arguments.clone())
        .map(drop)
        .map_err(|error| error.to_string())
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
