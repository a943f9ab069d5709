//! `ask_user` and `ask_user_question`: the model asks the user through the structured dialogs
//! (`agent/requestUserInput`, `agent/askUserQuestion`).
//!
//! Both are offered only when the client opted into `experimentalApi` (it can answer them);
//! `ask_user` also needs plan mode and `ask_user = true` in the config (`tandem run --yes`
//! turns it off). The answer, as JSON, is the tool output; a client error or cancellation
//! completes the call with an error the model sees. No item is created.

use app_server_protocol::dialogs::{
    AgentAskUserQuestionParams, AgentRequestUserInputParams, AskUserQuestion, AskUserQuestionType,
    QuestionAnswersResponse,
};
use app_server_protocol::policy::ModeKind;
use app_server_protocol::thread::ThreadActiveFlag;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest};
use crate::engine::tools::registry::{ModelCall, spec_of};
use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;
use crate::model::ToolSpec;
use crate::sync::lock;
use crate::tools::{Tool, ToolFuture, require_every_property};

/// Most questions one `ask_user_question` call may ask.
pub const MAX_CHOICE_QUESTIONS: usize = 4;

/// Which dialog tools a request offers.
#[derive(Debug, Clone, Copy)]
pub struct DialogTools {
    /// `ask_user_question`.
    pub ask_user_question: bool,
    /// `ask_user`.
    pub ask_user: bool,
}

impl DialogTools {
    /// The dialog tools for a client that answers dialogs (`dialogs`), in plan mode or not,
    /// with `ask_user` allowed by the config or not.
    pub fn offered(dialogs: bool, plan_mode: bool, ask_user_allowed: bool) -> DialogTools {
        DialogTools {
            ask_user_question: dialogs,
            ask_user: dialogs && plan_mode && ask_user_allowed,
        }
    }

    /// Their definitions.
    pub fn specs(self) -> Vec<ToolSpec> {
        let mut specs = Vec::new();
        if self.ask_user_question {
            specs.push(spec_of::<AskUserQuestionTool>());
        }
        if self.ask_user {
            specs.push(spec_of::<AskUserTool>());
        }
        specs
    }
}

/// `ask_user`: one open question.
pub(crate) struct AskUserTool;

impl Tool for AskUserTool {
    const NAME: &'static str = "ask_user";
    const DESCRIPTION: &'static str = "Ask the user one open question and wait for a free-form text answer. Only available in Plan mode with an interactive user; prefer ask_user_question when the answer is one of a few choices.";
    type Args = AskUserArgs;
    type Context<'a> = ModelCall<'a>;
    type Output = ToolOutcome;

    fn run<'a>(context: Self::Context<'a>, args: AskUserArgs) -> ToolFuture<'a, ToolOutcome> {
        Box::pin(context.task.ask_user(context.call, args))
    }
}

/// `ask_user_question`: multiple-choice questions.
pub(crate) struct AskUserQuestionTool;

impl Tool for AskUserQuestionTool {
    const NAME: &'static str = "ask_user_question";
    const DESCRIPTION: &'static str = "Ask the user 1 to 4 multiple-choice questions and wait for the selected answers. Use single_choice when exactly one option applies and multi_choice when several may.";
    type Args = AskUserQuestionArgs;
    type Context<'a> = ModelCall<'a>;
    type Output = ToolOutcome;

    fn run<'a>(
        context: Self::Context<'a>,
        args: AskUserQuestionArgs,
    ) -> ToolFuture<'a, ToolOutcome> {
        Box::pin(context.task.ask_user_question(context.call, args))
    }
}

// The description above names the limit.
const _: () = assert!(MAX_CHOICE_QUESTIONS == 4);

/// `ask_user` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct AskUserArgs {
    /// The question, as one or two short sentences.
    prompt: String,
}

/// `ask_user_question` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct AskUserQuestionArgs {
    #[schemars(length(min = 1, max = MAX_CHOICE_QUESTIONS))]
    questions: Vec<ChoiceQuestionArgs>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false), transform = require_every_property)]
struct ChoiceQuestionArgs {
    /// single_choice: exactly one option; multi_choice: any number.
    #[serde(rename = "type")]
    #[schemars(with = "String", extend("enum" = ["single_choice", "multi_choice"]))]
    kind: AskUserQuestionType,
    /// The question shown to the user.
    text: String,
    /// Distinct option labels (1-5 words each).
    #[schemars(length(min = 2))]
    options: Vec<String>,
    /// Whether the user may type an answer that is not an option.
    #[serde(default)]
    allow_other: bool,
}

impl TurnTask {
    fn dialog_tools(&self) -> DialogTools {
        let plan_mode = lock(&self.thread.state)
            .meta
            .collaboration_mode
            .as_ref()
            .is_some_and(|mode| mode.mode == ModeKind::Plan);
        DialogTools::offered(
            self.engine.dialogs_enabled(),
            plan_mode,
            self.engine.config().ask_user,
        )
    }

    /// `ask_user`: sends `agent/requestUserInput` and returns the user's text.
    async fn ask_user(&mut self, call: &ToolCall, args: AskUserArgs) -> ToolOutcome {
        if !self.dialog_tools().ask_user {
            return call
                .reply("ask_user is unavailable: it needs plan mode and an interactive client");
        }
        if args.prompt.trim().is_empty() {
            return call.reply("ask_user failed: the prompt is empty");
        }
        let params = AgentRequestUserInputParams {
            thread_id: self.thread.id.clone(),
            turn_id: self.turn_id.clone(),
            tool_call_id: call.call_id.clone(),
            prompt: args.prompt,
        };
        match self.wait_for_user(ApprovalRequest::FreeText(params)).await {
            Ok(ApprovalAnswer::FreeText(text)) => {
                call.reply(json!({"userInput": text}).to_string())
            }
            Ok(other) => call.reply(format!(
                "ask_user failed: the client answered with {}",
                other.kind()
            )),
            Err(outcome) => outcome.into_outcome(call, "ask_user"),
        }
    }

    /// `ask_user_question`: sends `agent/askUserQuestion` and returns the chosen options.
    async fn ask_user_question(
        &mut self,
        call: &ToolCall,
        args: AskUserQuestionArgs,
    ) -> ToolOutcome {
        if !self.dialog_tools().ask_user_question {
            return call.reply("ask_user_question is unavailable: the client cannot answer it");
        }
        let questions = match validate_questions(args) {
            Ok(questions) => questions,
            Err(message) => return call.reply(format!("ask_user_question failed: {message}")),
        };
        let params = AgentAskUserQuestionParams {
            thread_id: self.thread.id.clone(),
            turn_id: self.turn_id.clone(),
            tool_call_id: call.call_id.clone(),
            questions: questions.clone(),
        };
        match self.wait_for_user(ApprovalRequest::Choices(params)).await {
            Ok(ApprovalAnswer::Choices(response)) => match check_answers(&questions, &response) {
                Ok(()) => call.reply(answers_output(&questions, &response)),
                Err(message) => call.reply(format!(
                    "ask_user_question failed: the client's answer is invalid: {message}"
                )),
            },
            Ok(other) => call.reply(format!(
                "ask_user_question failed: the client answered with {}",
                other.kind()
            )),
            Err(outcome) => outcome.into_outcome(call, "ask_user_question"),
        }
    }

    /// Asks `request` with the thread marked as waiting on user input.
    async fn wait_for_user(&self, request: ApprovalRequest) -> Result<ApprovalAnswer, NoAnswer> {
        self.set_waiting(Some(ThreadActiveFlag::WaitingOnUserInput))
            .await;
        let reply = self.ask(request).await;
        // Interrupted while waiting: the turn's end announces the status.
        if reply != ApprovalReply::Withdrawn {
            self.set_waiting(None).await;
        }
        match reply {
            ApprovalReply::Answered(answer) => Ok(answer),
            ApprovalReply::Failed(message) => Err(NoAnswer::Failed(message)),
            ApprovalReply::Withdrawn => Err(NoAnswer::Withdrawn),
        }
    }
}

/// Why a dialog got no answer.
enum NoAnswer {
    /// The client answered with an error (the user cancelled) or could not be asked.
    Failed(String),
    /// The turn was interrupted.
    Withdrawn,
}

impl NoAnswer {
    fn into_outcome(self, call: &ToolCall, tool: &str) -> ToolOutcome {
        match self {
            NoAnswer::Failed(message) => call.reply(format!(
                "{tool} was cancelled: the user did not answer ({message})"
            )),
            NoAnswer::Withdrawn => ToolOutcome {
                output: call.output(format!("{tool} was cancelled: the turn was interrupted")),
                items: Vec::new(),
                interrupt: true,
                follow_up: Vec::new(),
            },
        }
    }
}

/// Checks the model's questions: 1 to [`MAX_CHOICE_QUESTIONS`], each with text and two or
/// more distinct options.
fn validate_questions(args: AskUserQuestionArgs) -> Result<Vec<AskUserQuestion>, String> {
    let count = args.questions.len();
    if count == 0 || count > MAX_CHOICE_QUESTIONS {
        return Err(format!(
            "ask between 1 and {MAX_CHOICE_QUESTIONS} questions (got {count})"
        ));
    }
    let mut questions = Vec::with_capacity(count);
    for (index, question) in args.questions.into_iter().enumerate() {
        if question.text.trim().is_empty() {
            return Err(format!("question {index} has no text"));
        }
        if question.options.len() < 2 {
            return Err(format!("question {index} needs at least 2 options"));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some(duplicate) = question.options.iter().find(|option| !seen.insert(*option)) {
            return Err(format!("question {index} repeats the option `{duplicate}`"));
        }
        questions.push(AskUserQuestion {
            kind: question.kind,
            text: question.text,
            options: question.options,
            allow_other: question.allow_other,
        });
    }
    Ok(questions)
}

/// Checks the client's answers against the questions: one selection for a single choice,
/// options from the list unless "other" is allowed.
fn check_answers(
    questions: &[AskUserQuestion],
    response: &QuestionAnswersResponse,
) -> Result<(), String> {
    for answer in &response.answers {
        let Some(question) = questions.get(answer.question_index) else {
            return Err(format!("no question {}", answer.question_index));
        };
        if question.kind == AskUserQuestionType::SingleChoice && answer.selected.len() > 1 {
            return Err(format!(
                "question {} takes one choice, got {}",
                answer.question_index,
                answer.selected.len()
            ));
        }
        if !question.allow_other
            && let Some(unknown) = answer
                .selected
                .iter()
                .find(|selected| !question.options.contains(selected))
        {
            return Err(format!(
                "question {} has no option `{unknown}`",
                answer.question_index
            ));
        }
    }
    Ok(())
}

/// The tool output: each question with what the user selected (unanswered ones get `[]`).
fn answers_output(questions: &[AskUserQuestion], response: &QuestionAnswersResponse) -> String {
    let answers: Vec<serde_json::Value> = questions
        .iter()
        .enumerate()
        .map(|(index, question)| {
            let selected: Vec<String> = response
                .answers
                .iter()
                .filter(|answer| answer.question_index == index)
                .flat_map(|answer| answer.selected.iter().cloned())
                .collect();
            json!({"question": question.text, "selected": selected})
        })
        .collect();
    json!({"answers": answers}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use app_server_protocol::dialogs::QuestionAnswer;

    fn question(kind: AskUserQuestionType, allow_other: bool) -> AskUserQuestion {
        AskUserQuestion {
            kind,
            text: "Pick".into(),
            options: vec!["a".into(), "b".into()],
            allow_other,
        }
    }

    fn answer(index: usize, selected: &[&str]) -> QuestionAnswersResponse {
        QuestionAnswersResponse {
            answers: vec![QuestionAnswer {
                question_index: index,
                selected: selected.iter().map(|text| text.to_string()).collect(),
            }],
        }
    }

    #[test]
    fn answers_are_checked_against_the_questions() {
        let single = [question(AskUserQuestionType::SingleChoice, false)];
        assert_eq!(check_answers(&single, &answer(0, &["a"])), Ok(()));
        assert!(check_answers(&single, &answer(0, &["a", "b"])).is_err());
        assert!(check_answers(&single, &answer(0, &["c"])).is_err());
        assert!(check_answers(&single, &answer(1, &["a"])).is_err());
        let multi_other = [question(AskUserQuestionType::MultiChoice, true)];
        assert_eq!(
            check_answers(&multi_other, &answer(0, &["a", "typed"])),
            Ok(())
        );
        assert_eq!(
            answers_output(&multi_other, &answer(0, &["a", "typed"])),
            r#"{"answers":[{"question":"Pick","selected":["a","typed"]}]}"#
        );
    }

    #[test]
    fn questions_are_validated() {
        let args = |options: Vec<&str>, count: usize| AskUserQuestionArgs {
            questions: (0..count)
                .map(|_| ChoiceQuestionArgs {
                    kind: AskUserQuestionType::SingleChoice,
                    text: "Pick".into(),
                    options: options.iter().map(|option| option.to_string()).collect(),
                    allow_other: false,
                })
                .collect(),
        };
        assert!(validate_questions(args(vec!["a", "b"], 1)).is_ok());
        assert!(validate_questions(args(vec!["a"], 1)).is_err());
        assert!(validate_questions(args(vec!["a", "a"], 1)).is_err());
        assert!(validate_questions(args(vec!["a", "b"], 0)).is_err());
        assert!(validate_questions(args(vec!["a", "b"], 5)).is_err());
    }
}
