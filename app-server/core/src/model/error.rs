//! Model errors and their mapping to turn errors.
//!
//! Every failure of a model request ends up as one [`ModelError`]. The retry layer asks
//! [`ModelError::is_retryable`], and the engine turns the final error into the wire
//! [`TurnError`] with [`ModelError::to_turn_error`], using the messages and `codexErrorInfo`
//! values Codex shows for the same failure.

use std::time::Duration;

use app_server_protocol::thread::{CodexErrorInfo, TurnError};

/// The message Codex shows for an HTTP 5xx answer (with a typographic apostrophe).
const HIGH_DEMAND_MESSAGE: &str =
    "We\u{2019}re currently experiencing high demand, which may cause temporary errors.";

/// Why a model request failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The provider answered a non-2xx status before streaming.
    #[error("{0}")]
    Status(Box<StatusError>),
    /// Connecting to the provider or sending the request failed.
    #[error("could not connect to {provider} at {url}: {detail}")]
    Connection {
        /// Display name of the provider.
        provider: String,
        /// The request URL.
        url: String,
        /// The transport error, with its causes.
        detail: String,
    },
    /// The stream ended before the response completed, or broke mid-stream.
    #[error("stream disconnected before completion: {detail}")]
    StreamDisconnected {
        /// What happened.
        detail: String,
        /// The transport error, with its causes, when there was one.
        transport_error: Option<String>,
    },
    /// The provider reported a failure in the stream (`response.failed`,
    /// `response.incomplete`, or a Chat Completions `{"error":…}` frame).
    #[error("model response failed: {message}")]
    ResponseFailed {
        /// The provider's error code, when given.
        code: Option<String>,
        /// The provider's message.
        message: String,
    },
    /// No stream event arrived for `stream_idle_timeout_ms`.
    #[error("no data received from the model for {timeout_ms} ms")]
    IdleTimeout {
        /// The idle timeout in milliseconds.
        timeout_ms: u64,
    },
    /// A request with `stream = false` got no whole answer within `stream_idle_timeout_ms`,
    /// which bounds such a request from start to end.
    #[error(
        "no answer from the model within {timeout_ms} ms: without streaming the whole answer must arrive within `stream_idle_timeout_ms`; for a slow server, raise it under `[model_providers.{provider_id}]` in config.toml"
    )]
    AnswerTimeout {
        /// The timeout in milliseconds.
        timeout_ms: u64,
        /// The provider's id in config.
        provider_id: String,
    },
    /// The provider needs an API key and its environment variable is unset.
    #[error("missing API key: set the {env_key} environment variable to use provider {provider}")]
    MissingApiKey {
        /// Display name of the provider.
        provider: String,
        /// The environment variable that should hold the key.
        env_key: String,
    },
    /// The provider sent something that is not the expected JSON.
    #[error("invalid model response: {detail}")]
    InvalidResponse {
        /// What was wrong.
        detail: String,
    },
    /// The provider configuration cannot be used (bad header, bad URL).
    #[error("invalid provider configuration: {detail}")]
    Config {
        /// What was wrong.
        detail: String,
    },
    /// The provider sent a value over one of the caps that keep the server's memory bounded
    /// (a stream index, an event-stream line or event, a whole answer).
    #[error("{context}: {what} exceeds the limit of {limit}")]
    OverLimit {
        /// Where the value came from: `model stream` or `model answer`.
        context: &'static str,
        /// The value, such as `summary_index 4000000000` or `an event-stream line`.
        what: String,
        /// The limit, such as `1024` or `16 MiB`.
        limit: String,
    },
}

/// A non-2xx answer of the provider, with what is needed to explain it.
#[derive(Clone, Debug, PartialEq)]
pub struct StatusError {
    /// HTTP status code.
    pub status: u16,
    /// The provider's message (`error.message` of the JSON body, else the body text).
    pub message: String,
    /// The provider's error code (`error.code`, else `error.type`), when given.
    pub code: Option<String>,
    /// The delay the provider asked for (`Retry-After`), when given.
    pub retry_after: Option<Duration>,
    /// Display name of the provider.
    pub provider: String,
    /// The model slug of the request.
    pub model: String,
    /// Environment variable holding the provider's API key, when it has one.
    pub env_key: Option<String>,
}

impl std::fmt::Display for StatusError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "{} answered HTTP {}: {}",
            self.provider, self.status, self.message
        )
    }
}

impl ModelError {
    /// Whether another attempt may succeed: connection failures, HTTP 408/429/5xx, dropped
    /// streams and idle timeouts are retryable; rejected requests, `response.failed` and
    /// configuration problems are not.
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::Status(error) => match error.status {
                429 => error.code.as_deref() != Some("insufficient_quota"),
                408 | 500..=599 => true,
                _ => false,
            },
            ModelError::Connection { .. }
            | ModelError::StreamDisconnected { .. }
            | ModelError::IdleTimeout { .. }
            | ModelError::AnswerTimeout { .. } => true,
            // A provider that sent an over-limit value once will likely send it again, and
            // another attempt would cost as much memory and bandwidth as the first.
            ModelError::ResponseFailed { .. }
            | ModelError::MissingApiKey { .. }
            | ModelError::InvalidResponse { .. }
            | ModelError::Config { .. }
            | ModelError::OverLimit { .. } => false,
        }
    }

    /// Whether the failure happened before the provider accepted the request (as opposed to
    /// during the stream); the retry layer counts these against `request_max_retries`.
    pub fn is_request_error(&self) -> bool {
        matches!(self, ModelError::Status(_) | ModelError::Connection { .. })
    }

    /// The delay the provider asked for before retrying, when it gave one.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ModelError::Status(error) => error.retry_after,
            _ => None,
        }
    }

    /// The wire error for a turn that failed with this error, with the message and
    /// `codexErrorInfo` Codex uses for the same failure.
    pub fn to_turn_error(&self) -> TurnError {
        let (message, info, additional_details) = match self {
            ModelError::Status(error) => status_turn_error(error),
            ModelError::Connection {
                provider,
                url,
                detail,
            } => (
                format!("could not connect to {provider} at {url}"),
                CodexErrorInfo::HttpConnectionFailed {
                    http_status_code: None,
                },
                Some(detail.clone()),
            ),
            ModelError::StreamDisconnected {
                transport_error, ..
            } => (
                self.to_string(),
                CodexErrorInfo::ResponseStreamDisconnected {
                    http_status_code: None,
                },
                transport_error.clone(),
            ),
            ModelError::ResponseFailed { code, message } => {
                let info = match code.as_deref() {
                    Some("context_length_exceeded") => CodexErrorInfo::ContextWindowExceeded,
                    Some("insufficient_quota") => CodexErrorInfo::UsageLimitExceeded,
                    _ => CodexErrorInfo::Other,
                };
                (
                    format!("stream disconnected before completion: {message}"),
                    info,
                    None,
                )
            }
            ModelError::IdleTimeout { timeout_ms } => (
                format!(
                    "stream disconnected before completion: no data received for {timeout_ms} ms"
                ),
                CodexErrorInfo::ResponseStreamDisconnected {
                    http_status_code: None,
                },
                None,
            ),
            ModelError::AnswerTimeout { .. } => (
                self.to_string(),
                CodexErrorInfo::ResponseStreamDisconnected {
                    http_status_code: None,
                },
                None,
            ),
            ModelError::MissingApiKey { .. } => {
                (self.to_string(), CodexErrorInfo::Unauthorized, None)
            }
            ModelError::InvalidResponse { .. }
            | ModelError::Config { .. }
            | ModelError::OverLimit { .. } => (self.to_string(), CodexErrorInfo::Other, None),
        };
        TurnError {
            message,
            codex_error_info: Some(info),
            additional_details,
            misalignment: None,
        }
    }
}

/// Message, category and details of an HTTP error status.
fn status_turn_error(error: &StatusError) -> (String, CodexErrorInfo, Option<String>) {
    let StatusError {
        status,
        message,
        code,
        provider,
        model,
        env_key,
        ..
    } = error;
    let status = *status;
    let code = code.as_deref();
    let details = Some(message.clone());
    match status {
        500..=599 => (
            HIGH_DEMAND_MESSAGE.to_string(),
            CodexErrorInfo::InternalServerError,
            details,
        ),
        401 | 403 => {
            let text = match env_key {
                Some(env_key) => format!(
                    "unauthorized: {provider} rejected the API key from the {env_key} environment variable (HTTP {status}): {message}"
                ),
                None => format!(
                    "unauthorized: {provider} refused the request (HTTP {status}); set `env_key` for this provider in config.toml if it needs an API key: {message}"
                ),
            };
            (text, CodexErrorInfo::Unauthorized, details)
        }
        404 => (
            format!("model `{model}` not found at provider {provider}: {message}"),
            CodexErrorInfo::ModelNotFound,
            details,
        ),
        429 if code == Some("insufficient_quota") => (
            format!("usage limit reached at {provider}: {message}"),
            CodexErrorInfo::UsageLimitExceeded,
            details,
        ),
        429 => (
            format!("rate limit reached at {provider}: {message}"),
            CodexErrorInfo::RateLimitExceeded,
            details,
        ),
        _ if is_context_window_error(code, message) => (
            format!(
                "ran out of room in the model's context window; start a new thread or clear earlier history before retrying: {message}"
            ),
            CodexErrorInfo::ContextWindowExceeded,
            details,
        ),
        400..=499 => (
            format!("{provider} rejected the request (HTTP {status}): {message}"),
            CodexErrorInfo::BadRequest,
            details,
        ),
        _ => (
            format!("{provider} answered HTTP {status}: {message}"),
            CodexErrorInfo::Other,
            details,
        ),
    }
}

/// Whether a 4xx answer says the conversation no longer fits the context window.
fn is_context_window_error(code: Option<&str>, message: &str) -> bool {
    if code == Some("context_length_exceeded") {
        return true;
    }
    let message = message.to_lowercase();
    message.contains("context length")
        || message.contains("context_length")
        || message.contains("context window")
        || message.contains("maximum context")
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn status(status: u16, message: &str, code: Option<&str>) -> ModelError {
        ModelError::Status(Box::new(StatusError {
            status,
            message: message.to_string(),
            code: code.map(str::to_string),
            retry_after: None,
            provider: "Mock".to_string(),
            model: "mock-model".to_string(),
            env_key: Some("MOCK_API_KEY".to_string()),
        }))
    }

    fn info(error: &ModelError) -> CodexErrorInfo {
        error.to_turn_error().codex_error_info.unwrap()
    }

    #[test]
    fn http_500_is_high_demand() {
        let error = status(500, "boom", None);
        assert!(error.is_retryable());
        assert_eq!(
            error.to_turn_error(),
            TurnError {
                message:
                    "We’re currently experiencing high demand, which may cause temporary errors."
                        .to_string(),
                codex_error_info: Some(CodexErrorInfo::InternalServerError),
                additional_details: Some("boom".to_string()),
                misalignment: None,
            }
        );
    }

    #[test]
    fn status_categories() {
        let unauthorized = status(401, "bad key", None);
        assert!(!unauthorized.is_retryable());
        assert_eq!(info(&unauthorized), CodexErrorInfo::Unauthorized);
        assert!(
            unauthorized
                .to_turn_error()
                .message
                .contains("MOCK_API_KEY")
        );

        let not_found = status(404, "no such model", None);
        assert_eq!(info(&not_found), CodexErrorInfo::ModelNotFound);
        assert_eq!(
            not_found.to_turn_error().message,
            "model `mock-model` not found at provider Mock: no such model"
        );

        assert_eq!(info(&status(400, "bad", None)), CodexErrorInfo::BadRequest);
        assert_eq!(
            info(&status(400, "too long", Some("context_length_exceeded"))),
            CodexErrorInfo::ContextWindowExceeded
        );
        assert_eq!(
            info(&status(
                400,
                "This model's maximum context length is 8192 tokens",
                None
            )),
            CodexErrorInfo::ContextWindowExceeded
        );

        let rate_limited = status(429, "slow down", None);
        assert!(rate_limited.is_retryable());
        assert_eq!(info(&rate_limited), CodexErrorInfo::RateLimitExceeded);
        let quota = status(429, "no credit", Some("insufficient_quota"));
        assert!(!quota.is_retryable());
        assert_eq!(info(&quota), CodexErrorInfo::UsageLimitExceeded);
    }

    #[test]
    fn stream_failures() {
        let failed = ModelError::ResponseFailed {
            code: Some("server_error".to_string()),
            message: "mock failure".to_string(),
        };
        assert!(!failed.is_retryable());
        assert_eq!(
            failed.to_turn_error(),
            TurnError {
                message: "stream disconnected before completion: mock failure".to_string(),
                codex_error_info: Some(CodexErrorInfo::Other),
                additional_details: None,
                misalignment: None,
            }
        );

        let dropped = ModelError::StreamDisconnected {
            detail: "error decoding response body".to_string(),
            transport_error: Some("error decoding response body: connection reset".to_string()),
        };
        assert!(dropped.is_retryable());
        assert_eq!(
            dropped.to_turn_error(),
            TurnError {
                message: "stream disconnected before completion: error decoding response body"
                    .to_string(),
                codex_error_info: Some(CodexErrorInfo::ResponseStreamDisconnected {
                    http_status_code: None
                }),
                additional_details: Some(
                    "error decoding response body: connection reset".to_string()
                ),
                misalignment: None,
            }
        );

        let idle = ModelError::IdleTimeout { timeout_ms: 250 };
        assert!(idle.is_retryable());
        assert_eq!(
            idle.to_turn_error().message,
            "stream disconnected before completion: no data received for 250 ms"
        );

        let answer = ModelError::AnswerTimeout {
            timeout_ms: 250,
            provider_id: "llama".to_string(),
        };
        assert!(answer.is_retryable());
        assert!(
            answer
                .to_turn_error()
                .message
                .ends_with("raise it under `[model_providers.llama]` in config.toml")
        );

        let connection = ModelError::Connection {
            provider: "Mock".to_string(),
            url: "http://127.0.0.1:1/v1/responses".to_string(),
            detail: "connection refused".to_string(),
        };
        assert!(connection.is_retryable());
        assert_eq!(
            info(&connection),
            CodexErrorInfo::HttpConnectionFailed {
                http_status_code: None
            }
        );

        let missing = ModelError::MissingApiKey {
            provider: "OpenAI".to_string(),
            env_key: "OPENAI_API_KEY".to_string(),
        };
        assert!(!missing.is_retryable());
        assert_eq!(info(&missing), CodexErrorInfo::Unauthorized);
    }
}
