//! Structured dialogs (experimental): questions the model asks the user through the client.
//!
//! Three server requests, each answering one model tool call:
//! - `tool/requestUserInput`: one to three questions with options (model tool
//!   `request_user_input`, plan mode). It is the alternative shape of the reference's
//!   `item/tool/requestUserInput`; a connection receives the one it chose at `initialize` with
//!   `capabilities.requestUserInputMethod`.
//! - `agent/requestUserInput`: one free-text prompt (model tool `ask_user`, plan and pair modes,
//!   interactive clients only).
//! - `agent/askUserQuestion`: single- and multi-choice questions (model tool
//!   `ask_user_question`).
//!
//! A JSON-RPC error as the answer (for example `-32000 "User cancelled input"`) completes the
//! tool call with an error the model sees.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Which server request carries the model's `request_user_input` questions on a connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub enum RequestUserInputMethod {
    /// The reference's shape: questions with ids, headers and option objects, answers keyed by
    /// question id (the default).
    #[default]
    #[serde(rename = "item/tool/requestUserInput")]
    ItemToolRequestUserInput,
    /// Questions as `{text, options, isOther}`, answers by question index.
    #[serde(rename = "tool/requestUserInput")]
    ToolRequestUserInput,
}

/// Parameters of `tool/requestUserInput`: one to three questions the model asks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct UserInputRequestParams {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The model's tool call (`call_id`) this request answers.
    pub tool_call_id: String,
    /// One to three questions.
    pub questions: Vec<UserInputQuestion>,
}

/// One question of `tool/requestUserInput`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct UserInputQuestion {
    /// The question as shown to the user.
    pub text: String,
    /// The choices (labels); may be empty for a free-form question.
    pub options: Vec<String>,
    /// Whether a free-form answer besides the options is allowed.
    pub is_other: bool,
}

/// Answer to `tool/requestUserInput` and `agent/askUserQuestion`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct QuestionAnswersResponse {
    /// One answer per answered question.
    pub answers: Vec<QuestionAnswer>,
}

/// The answer to one question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct QuestionAnswer {
    /// Index of the question in the request (0-based).
    pub question_index: usize,
    /// The chosen option labels, or the free-form text when "other" was chosen.
    pub selected: Vec<String>,
}

/// Parameters of `agent/requestUserInput`: the model asks for free-form text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentRequestUserInputParams {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The model's tool call (`call_id`) this request answers.
    pub tool_call_id: String,
    /// What the model asks.
    pub prompt: String,
}

/// Answer to `agent/requestUserInput`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentRequestUserInputResponse {
    /// The user's text, given to the model as the tool output.
    pub user_input: String,
}

/// Parameters of `agent/askUserQuestion`: choice questions from the model tool
/// `ask_user_question`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct AgentAskUserQuestionParams {
    /// The thread.
    pub thread_id: String,
    /// The turn.
    pub turn_id: String,
    /// The model's tool call (`call_id`) this request answers.
    pub tool_call_id: String,
    /// One to four questions.
    pub questions: Vec<AskUserQuestion>,
}

/// One question of `agent/askUserQuestion`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct AskUserQuestion {
    /// Whether one or several options may be chosen.
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub kind: AskUserQuestionType,
    /// The question as shown to the user.
    pub text: String,
    /// The choices (labels), two or more.
    pub options: Vec<String>,
    /// Whether a free-form answer besides the options is allowed.
    pub allow_other: bool,
}

/// How many options an [`AskUserQuestion`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum AskUserQuestionType {
    /// Exactly one option (or the free-form answer).
    SingleChoice,
    /// Any number of options.
    MultiChoice,
}
