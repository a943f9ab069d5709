//! Model clients: the [`ModelClient`] trait the engine calls, the Responses-API history items
//! the engine keeps, and the providers (`responses`, `chat`, `demo`).
//!
//! The engine keeps the conversation as Responses-API items ([`ResponseItem`]) whatever the
//! provider; the Chat Completions client converts at the edge.

pub mod chat;
pub mod context_window;
pub mod demo;
pub mod error;
mod plain;
pub mod responses;
pub mod retry;
mod sse;
mod sse_parser;
#[cfg(test)]
pub(crate) mod test_support;

#[cfg(feature = "fuzzing")]
pub use sse::retry_after_for_fuzzing;

use std::pin::Pin;
use std::sync::Arc;

use app_server_protocol::policy::{ReasoningEffort, ReasoningSummary};
use app_server_protocol::thread::TokenUsageBreakdown;
use futures::Stream;
use serde::{Deserialize, Serialize};

use crate::config::{ProviderConfig, WireApi};
use crate::model::context_window::ContextWindowFuture;
pub use crate::model::error::ModelError;

/// The events of one model response, ending with [`ModelEvent::Completed`] or an error.
pub type ModelStream = Pin<Box<dyn Stream<Item = Result<ModelEvent, ModelError>> + Send>>;

/// A future returned by [`ModelClient::list_models`].
pub type ModelListFuture<'a> =
    Pin<Box<dyn std::future::Future<Output = Result<Vec<String>, ModelError>> + Send + 'a>>;

/// A model provider. One call of [`ModelClient::stream`] is one HTTP request (one attempt);
/// retries live in [`retry`].
pub trait ModelClient: Send + Sync {
    /// Sends `request` and streams the response events.
    fn stream(&self, request: ModelRequest) -> ModelStream;

    /// The provider's model slugs (from its models endpoint, or from config).
    fn list_models(&self) -> ModelListFuture<'_>;

    /// Starts reading the context windows the provider reports, in the background, unless
    /// that was done before; see [`ModelClient::context_window`].
    fn prefetch_context_windows(&self) {}

    /// The context window the provider's models endpoint reports for `model`, read once per
    /// client in the background; resolves when that read is done (callers bound the wait).
    /// `None` when the provider reports none or the read failed.
    fn context_window(&self, model: &str) -> ContextWindowFuture {
        let _ = model;
        Box::pin(std::future::ready(None))
    }
}

/// Everything one model request needs.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelRequest {
    /// Model slug.
    pub model: String,
    /// System/developer instructions (base instructions plus developer context).
    pub instructions: String,
    /// The whole conversation, oldest first.
    pub input: Vec<ResponseItem>,
    /// Tools offered to the model.
    pub tools: Vec<ToolSpec>,
    /// Reasoning effort, when set.
    pub effort: Option<ReasoningEffort>,
    /// Reasoning summary mode, when set.
    pub summary: Option<ReasoningSummary>,
    /// JSON Schema the final answer must follow (this turn only).
    pub output_schema: Option<serde_json::Value>,
    /// Thread id, used as the prompt cache key.
    pub thread_id: String,
    /// Turn id, for provider-side metadata.
    pub turn_id: String,
}

/// A function tool offered to the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    /// Tool name, such as `exec_command`.
    pub name: String,
    /// What the tool does.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// One item of the conversation in Responses-API form (tagged by `type`, snake_case).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseItem {
    /// A message from the user, the developer or the assistant.
    Message {
        /// Item id (assistant messages carry the model's `msg_…` id).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// `user`, `developer` or `assistant`.
        role: String,
        /// Content parts.
        content: Vec<ContentItem>,
    },
    /// Reasoning, echoed back verbatim in later requests.
    Reasoning {
        /// Item id (`rs_…`).
        id: String,
        /// Summary parts.
        #[serde(default)]
        summary: Vec<ReasoningSummaryPart>,
        /// Raw reasoning parts, when the model exposes them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<Vec<ReasoningContentPart>>,
        /// Opaque reasoning state to send back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        encrypted_content: Option<String>,
    },
    /// A function tool call; `arguments` is a JSON string.
    FunctionCall {
        /// Item id (`fc_…`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// Call id that the output must echo.
        call_id: String,
        /// Tool name.
        name: String,
        /// Arguments as a JSON string.
        arguments: String,
    },
    /// The result of a function tool call.
    FunctionCallOutput {
        /// The call's id.
        call_id: String,
        /// Result text.
        output: String,
    },
    /// A freeform tool call (raw text input).
    CustomToolCall {
        /// Item id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        /// Call id that the output must echo.
        call_id: String,
        /// Tool name.
        name: String,
        /// Raw input text.
        input: String,
    },
    /// The result of a freeform tool call.
    CustomToolCallOutput {
        /// The call's id.
        call_id: String,
        /// Result text.
        output: String,
    },
}

/// A content part of a message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentItem {
    /// User or developer text.
    InputText {
        /// The text.
        text: String,
    },
    /// A user image, as a URL or `data:` URL.
    InputImage {
        /// The image URL.
        image_url: String,
    },
    /// Assistant text.
    OutputText {
        /// The text.
        text: String,
    },
}

/// A reasoning summary part, `{"type":"summary_text","text":…}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReasoningSummaryPart {
    /// Summary text.
    SummaryText {
        /// The text.
        text: String,
    },
}

/// A raw reasoning part, `{"type":"reasoning_text","text":…}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ReasoningContentPart {
    /// Raw reasoning text.
    ReasoningText {
        /// The text.
        text: String,
    },
}

/// One event of a model response (provider-independent).
#[derive(Clone, Debug, PartialEq)]
pub enum ModelEvent {
    /// An output item began (message, reasoning or tool call), possibly partial.
    OutputItemAdded(ResponseItem),
    /// Text appended to an assistant message.
    OutputTextDelta {
        /// The message item id.
        item_id: String,
        /// The text.
        delta: String,
    },
    /// A reasoning summary part began.
    ReasoningSummaryPartAdded {
        /// The reasoning item id.
        item_id: String,
        /// Index of the part.
        summary_index: i64,
    },
    /// Text appended to a reasoning summary part.
    ReasoningSummaryTextDelta {
        /// The reasoning item id.
        item_id: String,
        /// Index of the part.
        summary_index: i64,
        /// The text.
        delta: String,
    },
    /// Raw reasoning text appended.
    ReasoningTextDelta {
        /// The reasoning item id.
        item_id: String,
        /// Index of the content part.
        content_index: i64,
        /// The text.
        delta: String,
    },
    /// An output item is complete; authoritative (tool calls are dispatched from here).
    OutputItemDone(ResponseItem),
    /// The response finished.
    Completed {
        /// Provider's response id.
        response_id: String,
        /// Token usage of this response, when reported.
        usage: Option<TokenUsageBreakdown>,
    },
}

/// Builds the client for a configured provider, using the key stored in `account` when the
/// provider's key variable is unset.
pub fn client_for(
    provider: &ProviderConfig,
    account: Arc<crate::account::AccountState>,
) -> Result<Arc<dyn ModelClient>, ModelError> {
    match provider.wire_api {
        WireApi::Responses => Ok(Arc::new(responses::ResponsesClient::with_account(
            provider,
            Some(account),
        )?)),
        WireApi::Chat => Ok(Arc::new(chat::ChatClient::with_account(
            provider,
            Some(account),
        )?)),
        WireApi::Demo => Ok(Arc::new(demo::DemoClient::new())),
    }
}
