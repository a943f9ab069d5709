//! Small pure parts of the agent loop (`turn.rs`): the input a turn refuses, the agent
//! message item, reasoning parts and token sums.

use app_server_protocol::item::{ThreadItemDetails, UserInput};
use app_server_protocol::thread::{TokenUsageBreakdown, TurnError};

use super::image_file::LocalImages;

/// The error that fails the turn before its input reaches the model, if any: audio, or a
/// local image that cannot be sent (the model would answer without what the user showed it).
pub(super) fn input_rejection(input: &[UserInput], images: &LocalImages) -> Option<TurnError> {
    let message = super::prompt::audio_rejection(input).or_else(|| {
        images
            .first_refusal(input)
            .map(|reason| format!("cannot attach a local image: {reason}"))
    })?;
    Some(TurnError {
        message,
        codex_error_info: Some(app_server_protocol::thread::CodexErrorInfo::BadRequest),
        additional_details: None,
        misalignment: None,
    })
}

/// An agent message item with `text` and the fields Tandem leaves unset.
pub(super) fn agent_message(id: String, text: String) -> ThreadItemDetails {
    ThreadItemDetails::AgentMessage {
        moderation: None,
        id,
        text,
        phase: None,
        memory_citation: None,
        delivery: None,
        questions: None,
    }
}

/// Appends `delta` to part `index` of a reasoning summary or content, adding empty parts up
/// to it.
pub(super) fn append_part(parts: &mut Vec<String>, index: i64, delta: &str) {
    let index = usize::try_from(index).unwrap_or(0);
    while parts.len() <= index {
        parts.push(String::new());
    }
    parts[index].push_str(delta);
}

/// The sum of two token counts.
pub(super) fn add_usage(
    total: TokenUsageBreakdown,
    last: TokenUsageBreakdown,
) -> TokenUsageBreakdown {
    TokenUsageBreakdown {
        total_tokens: total.total_tokens + last.total_tokens,
        input_tokens: total.input_tokens + last.input_tokens,
        cached_input_tokens: total.cached_input_tokens + last.cached_input_tokens,
        cache_write_input_tokens: total.cache_write_input_tokens + last.cache_write_input_tokens,
        output_tokens: total.output_tokens + last.output_tokens,
        reasoning_output_tokens: total.reasoning_output_tokens + last.reasoning_output_tokens,
    }
}
