//! `request_user_input`: the model asks the user one to three questions (plan mode only).
//!
//! The answer, serialized as JSON, is the tool output (transcript `i`). No item is created.

use app_server_protocol::policy::ModeKind;
use app_server_protocol::server_requests::{
    ToolRequestUserInputOption, ToolRequestUserInputParams, ToolRequestUserInputQuestion,
};
use app_server_protocol::thread::ThreadActiveFlag;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest};
use crate::engine::tools::registry::ModelCall;
use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;
use crate::sync::lock;
use crate::tools::{Tool, ToolFuture, require_every_property};

/// The model sees this outside plan mode (observed).
pub const UNAVAILABLE_OUTPUT: &str = "request_user_input is unavailable in Default mode";

/// `request_user_input` (`model-wire.md` §2.5).
pub(crate) struct RequestUserInput;

impl Tool for RequestUserInput {
    const NAME: &'static str = "request_user_input";
    const DESCRIPTION: &'static str = "Request user input for one to three short questions and wait for the response. Only available in Plan mode.";
    type Args = RequestUserInputArgs;
    type Context<'a> = ModelCall<'a>;
    type Output = ToolOutcome;

    fn run<'a>(
        context: Self::Context<'a>,
        args: RequestUserInputArgs,
    ) -> ToolFuture<'a, ToolOutcome> {
        Box::pin(context.task.request_user_input(context.call, args))
    }
}

/// `request_user_input` arguments. The schema asks for every field; a question without
/// options and an option without a description are accepted all the same.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct RequestUserInputArgs {
    /// Questions to show the user. Prefer 1 and do not exceed 3.
    questions: Vec<QuestionArgs>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false), transform = require_every_property)]
struct QuestionArgs {
    /// Stable identifier for mapping answers (snake_case).
    id: String,
    /// Short header label shown in the UI (12 or fewer chars).
    header: String,
    /// Single-sentence prompt shown to the user.
    question: String,
    /// Provide 2-3 mutually exclusive choices. Put the recommended option first and suffix its label with "(Recommended)". Do not include an "Other" option; the client adds a free-form answer.
    #[serde(default)]
    options: Option<Vec<OptionArgs>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false), transform = require_every_property)]
struct OptionArgs {
    /// User-facing label (1-5 words).
    label: String,
    /// One short sentence explaining impact/tradeoff if selected.
    #[serde(default)]
    description: String,
}

impl TurnTask {
    /// `request_user_input`: sends `item/tool/requestUserInput` and returns the answers.
    async fn request_user_input(
        &mut self,
        call: &ToolCall,
        args: RequestUserInputArgs,
    ) -> ToolOutcome {
        let plan_mode = lock(&self.thread.state)
            .meta
            .collaboration_mode
            .as_ref()
            .is_some_and(|mode| mode.mode == ModeKind::Plan);
        if !plan_mode {
            return call.reply(UNAVAILABLE_OUTPUT);
        }
        if args.questions.is_empty() || args.questions.len() > 3 {
            return call.reply(format!(
                "request_user_input failed: ask between 1 and 3 questions (got {})",
                args.questions.len()
            ));
        }
        let questions = args
            .questions
            .into_iter()
            .map(|question| ToolRequestUserInputQuestion {
                id: question.id,
                header: question.header,
                question: question.question,
                is_other: true,
                is_secret: false,
                options: question.options.map(|options| {
                    options
                        .into_iter()
                        .map(|option| ToolRequestUserInputOption {
                            label: option.label,
                            description: option.description,
                        })
                        .collect()
                }),
            })
            .collect();
        let params = ToolRequestUserInputParams {
            thread_id: self.thread.id.clone(),
            turn_id: self.turn_id.clone(),
            item_id: call.call_id.clone(),
            questions,
            is_blocking: true,
            auto_resolution_ms: None,
        };
        self.set_waiting(Some(ThreadActiveFlag::WaitingOnUserInput))
            .await;
        let reply = self.ask(ApprovalRequest::UserInput(params)).await;
        // Interrupted while waiting: the turn's end announces the status.
        if reply != ApprovalReply::Withdrawn {
            self.set_waiting(None).await;
        }
        match reply {
            ApprovalReply::Answered(ApprovalAnswer::UserInput(response)) => {
                match serde_json::to_string(&response) {
                    Ok(text) => call.reply(text),
                    Err(error) => call.reply(format!("request_user_input failed: {error}")),
                }
            }
            ApprovalReply::Answered(other) => call.reply(format!(
                "request_user_input failed: the client answered with {}",
                other.kind()
            )),
            ApprovalReply::Failed(message) => call.reply(format!(
                "request_user_input failed: the user did not answer ({message})"
            )),
            ApprovalReply::Withdrawn => ToolOutcome {
                output: call.output("request_user_input was cancelled: the turn was interrupted"),
                items: Vec::new(),
                interrupt: true,
                follow_up: Vec::new(),
            },
        }
    }
}
