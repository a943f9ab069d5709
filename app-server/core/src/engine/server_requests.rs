//! The one mapping between the engine's questions and the thread API's server requests.
//!
//! [`ApprovalRequest`] is what the engine asks; [`to_server_request`] renders it as the
//! server→client request of the v2 protocol and says what shape the answer must have
//! ([`ExpectedAnswer`]); [`ExpectedAnswer::decode`] turns the client's response body back into
//! the engine's typed [`ApprovalAnswer`]. Every `match` here is exhaustive, so a new kind of
//! question does not compile until it has a request and an answer. Front ends only transport
//! the request (the stdio processor) or render it their own way (the MCP adapter's
//! elicitations, the Codex-compatibility layer's legacy requests).

use std::collections::BTreeMap;

use app_server_protocol::dialogs::{
    AgentRequestUserInputResponse, QuestionAnswersResponse, RequestUserInputMethod,
    UserInputQuestion, UserInputRequestParams,
};
use app_server_protocol::dynamic_tools::DynamicToolCallResponse;
use app_server_protocol::mcp_servers::McpServerElicitationRequestResponse;
use app_server_protocol::permissions::PermissionsRequestApprovalResponse;
use app_server_protocol::server_requests::{
    CommandExecutionRequestApprovalResponse, FileChangeRequestApprovalResponse,
    ToolRequestUserInputAnswer, ToolRequestUserInputParams, ToolRequestUserInputResponse,
};
use app_server_protocol::tables::ServerRequestPayload;

use crate::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest};

/// A question rendered as a thread-API server request.
#[derive(Debug, Clone)]
pub struct ServerRequestFor {
    /// The request to send.
    pub payload: ServerRequestPayload,
    /// How to read the client's answer to it.
    pub expects: ExpectedAnswer,
}

/// The shape the client's answer to a server request must have.
#[derive(Debug, Clone)]
pub enum ExpectedAnswer {
    /// `{decision}` of `item/commandExecution/requestApproval`.
    Command,
    /// `{decision}` of `item/fileChange/requestApproval`.
    FileChange,
    /// `{answers}` keyed by question id (`item/tool/requestUserInput`).
    UserInput,
    /// `{answers}` by question index (`tool/requestUserInput`), mapped back to these ids.
    IndexedUserInput(Vec<String>),
    /// `{userInput}` of `agent/requestUserInput`.
    FreeText,
    /// `{answers}` by index of `agent/askUserQuestion`, for this many questions.
    Choices(usize),
    /// The elicitation result of `mcpServer/elicitation/request`.
    McpElicitation,
    /// `{contentItems, success}` of `item/tool/call`.
    DynamicToolCall,
    /// `{permissions, scope}` of `item/permissions/requestApproval`.
    Permissions,
}

/// Renders `request` as the v2 server request; `method` picks the shape of the model's
/// `request_user_input` questions (fixed per connection at `initialize`).
pub fn to_server_request(
    request: ApprovalRequest,
    method: RequestUserInputMethod,
) -> ServerRequestFor {
    let (payload, expects) = match request {
        ApprovalRequest::Command(params) => (
            ServerRequestPayload::CommandExecutionRequestApproval(params),
            ExpectedAnswer::Command,
        ),
        ApprovalRequest::FileChange(params) => (
            ServerRequestPayload::FileChangeRequestApproval(params),
            ExpectedAnswer::FileChange,
        ),
        ApprovalRequest::UserInput(params) => match method {
            RequestUserInputMethod::ItemToolRequestUserInput => (
                ServerRequestPayload::ToolRequestUserInput(params),
                ExpectedAnswer::UserInput,
            ),
            RequestUserInputMethod::ToolRequestUserInput => {
                let ids = params
                    .questions
                    .iter()
                    .map(|question| question.id.clone())
                    .collect();
                (
                    ServerRequestPayload::UserInputRequest(indexed_questions(params)),
                    ExpectedAnswer::IndexedUserInput(ids),
                )
            }
        },
        ApprovalRequest::FreeText(params) => (
            ServerRequestPayload::AgentRequestUserInput(params),
            ExpectedAnswer::FreeText,
        ),
        ApprovalRequest::Choices(params) => {
            let count = params.questions.len();
            (
                ServerRequestPayload::AgentAskUserQuestion(params),
                ExpectedAnswer::Choices(count),
            )
        }
        ApprovalRequest::McpElicitation(params) => (
            ServerRequestPayload::McpServerElicitationRequest(params),
            ExpectedAnswer::McpElicitation,
        ),
        ApprovalRequest::DynamicToolCall(params) => (
            ServerRequestPayload::DynamicToolCall(params),
            ExpectedAnswer::DynamicToolCall,
        ),
        ApprovalRequest::Permissions(params) => (
            ServerRequestPayload::PermissionsRequestApproval(params),
            ExpectedAnswer::Permissions,
        ),
    };
    ServerRequestFor { payload, expects }
}

impl ExpectedAnswer {
    /// Decodes the client's response body into the engine's typed answer. A body that does
    /// not fit the request fails the question with the decoder's message.
    pub fn decode(self, result: serde_json::Value) -> ApprovalReply {
        let answer = match self {
            ExpectedAnswer::Command => {
                serde_json::from_value::<CommandExecutionRequestApprovalResponse>(result)
                    .map(|response| ApprovalAnswer::Command(response.decision))
            }
            ExpectedAnswer::FileChange => {
                serde_json::from_value::<FileChangeRequestApprovalResponse>(result)
                    .map(|response| ApprovalAnswer::FileChange(response.decision))
            }
            ExpectedAnswer::UserInput => {
                serde_json::from_value::<ToolRequestUserInputResponse>(result)
                    .map(ApprovalAnswer::UserInput)
            }
            ExpectedAnswer::IndexedUserInput(ids) => {
                let response = match serde_json::from_value::<QuestionAnswersResponse>(result) {
                    Ok(response) => response,
                    Err(error) => return undecodable(&error),
                };
                if let Err(message) = check_indexes(&response, ids.len()) {
                    return ApprovalReply::Failed(message);
                }
                let answers: BTreeMap<String, ToolRequestUserInputAnswer> = response
                    .answers
                    .into_iter()
                    .filter_map(|answer| {
                        let id = ids.get(answer.question_index)?.clone();
                        Some((
                            id,
                            ToolRequestUserInputAnswer {
                                answers: answer.selected,
                            },
                        ))
                    })
                    .collect();
                Ok(ApprovalAnswer::UserInput(ToolRequestUserInputResponse {
                    answers,
                }))
            }
            ExpectedAnswer::FreeText => {
                serde_json::from_value::<AgentRequestUserInputResponse>(result)
                    .map(|response| ApprovalAnswer::FreeText(response.user_input))
            }
            ExpectedAnswer::Choices(count) => {
                let response = match serde_json::from_value::<QuestionAnswersResponse>(result) {
                    Ok(response) => response,
                    Err(error) => return undecodable(&error),
                };
                if let Err(message) = check_indexes(&response, count) {
                    return ApprovalReply::Failed(message);
                }
                Ok(ApprovalAnswer::Choices(response))
            }
            ExpectedAnswer::McpElicitation => {
                serde_json::from_value::<McpServerElicitationRequestResponse>(result)
                    .map(ApprovalAnswer::McpElicitation)
            }
            ExpectedAnswer::DynamicToolCall => {
                serde_json::from_value::<DynamicToolCallResponse>(result)
                    .map(ApprovalAnswer::DynamicToolCall)
            }
            ExpectedAnswer::Permissions => {
                serde_json::from_value::<PermissionsRequestApprovalResponse>(result)
                    .map(ApprovalAnswer::Permissions)
            }
        };
        match answer {
            Ok(answer) => ApprovalReply::Answered(answer),
            Err(error) => undecodable(&error),
        }
    }
}

/// The `tool/requestUserInput` shape of the model's `request_user_input` questions.
fn indexed_questions(params: ToolRequestUserInputParams) -> UserInputRequestParams {
    UserInputRequestParams {
        thread_id: params.thread_id,
        turn_id: params.turn_id,
        tool_call_id: params.item_id,
        questions: params
            .questions
            .into_iter()
            .map(|question| UserInputQuestion {
                text: question.question,
                options: question
                    .options
                    .unwrap_or_default()
                    .into_iter()
                    .map(|option| option.label)
                    .collect(),
                is_other: question.is_other,
            })
            .collect(),
    }
}

/// Checks that every answer names a question of the request.
fn check_indexes(response: &QuestionAnswersResponse, count: usize) -> Result<(), String> {
    match response
        .answers
        .iter()
        .find(|answer| answer.question_index >= count)
    {
        Some(answer) => Err(format!(
            "the client answered question {} but only {count} were asked",
            answer.question_index
        )),
        None => Ok(()),
    }
}

fn undecodable(error: &serde_json::Error) -> ApprovalReply {
    tracing::warn!(%error, "undecodable answer to a server request");
    ApprovalReply::Failed(format!("the client's answer could not be read: {error}"))
}

#[cfg(test)]
mod tests {
    use app_server_protocol::server_requests::ToolRequestUserInputQuestion;
    use serde_json::json;

    use super::*;

    fn two_questions() -> ApprovalRequest {
        let question = |id: &str| ToolRequestUserInputQuestion {
            id: id.into(),
            header: "Header".into(),
            question: format!("Question {id}?"),
            is_other: false,
            is_secret: false,
            options: None,
        };
        ApprovalRequest::UserInput(ToolRequestUserInputParams {
            thread_id: "thread".into(),
            turn_id: "turn".into(),
            item_id: "call".into(),
            questions: vec![question("first"), question("second")],
            is_blocking: true,
            auto_resolution_ms: None,
        })
    }

    #[test]
    fn indexed_answers_come_back_keyed_by_the_question_ids() {
        let rendered = to_server_request(
            two_questions(),
            RequestUserInputMethod::ToolRequestUserInput,
        );
        assert!(matches!(
            rendered.payload,
            ServerRequestPayload::UserInputRequest(_)
        ));
        let reply = rendered.expects.decode(json!({
            "answers": [{"questionIndex": 1, "selected": ["yes"]}]
        }));
        let ApprovalReply::Answered(ApprovalAnswer::UserInput(response)) = reply else {
            panic!("expected answers to the questions, got {reply:?}");
        };
        assert_eq!(response.answers.keys().collect::<Vec<_>>(), ["second"]);
        assert_eq!(response.answers["second"].answers, ["yes"]);
    }

    #[test]
    fn an_answer_to_a_question_that_was_not_asked_fails_the_question() {
        let rendered = to_server_request(
            two_questions(),
            RequestUserInputMethod::ToolRequestUserInput,
        );
        let reply = rendered.expects.decode(json!({
            "answers": [{"questionIndex": 2, "selected": ["yes"]}]
        }));
        assert_eq!(
            reply,
            ApprovalReply::Failed("the client answered question 2 but only 2 were asked".into())
        );
    }

    #[test]
    fn an_answer_of_the_wrong_shape_fails_with_the_decoders_message() {
        let rendered = to_server_request(
            two_questions(),
            RequestUserInputMethod::ItemToolRequestUserInput,
        );
        assert!(matches!(
            rendered.payload,
            ServerRequestPayload::ToolRequestUserInput(_)
        ));
        let ApprovalReply::Failed(message) = rendered.expects.decode(json!({"decision": 1})) else {
            panic!("a decision is no answer to questions");
        };
        assert!(
            message.starts_with("the client's answer could not be read"),
            "{message}"
        );
    }
}
