//! `getConversationSummary` (legacy, `spec/account-and-legacy.md`): the summary of one stored
//! thread, as the reference answers it (`transcripts/g3_error_probes.jsonl`).

use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use app_server_protocol::conversation_summary::{
    ConversationSummary, GetConversationSummaryParams, GetConversationSummaryResponse,
};
use app_server_protocol::thread::Thread;
use app_server_protocol::thread_requests::ThreadReadParams;

use tandem_core::engine::{Engine, EngineError};

/// The last representable second of year 9999; later times are clamped to it.
const MAX_RFC3339_SECONDS: i64 = 253_402_300_799;

/// Finds the thread (a rollout path names its thread id) and summarizes it.
pub(super) async fn conversation_summary(
    engine: &Engine,
    params: GetConversationSummaryParams,
) -> Result<GetConversationSummaryResponse, EngineError> {
    let thread_id = match &params {
        GetConversationSummaryParams::ConversationId { conversation_id } => conversation_id.clone(),
        GetConversationSummaryParams::RolloutPath { rollout_path } => {
            thread_id_of_rollout(rollout_path).ok_or_else(|| {
                EngineError::InvalidRequest(format!("no rollout found for path: {rollout_path}"))
            })?
        }
    };
    let thread = engine
        .read_thread(ThreadReadParams {
            thread_id,
            include_turns: Some(false),
        })
        .await?;
    if let GetConversationSummaryParams::RolloutPath { rollout_path } = &params
        && thread.path.as_deref().map(Path::new) != Some(Path::new(rollout_path))
    {
        return Err(EngineError::InvalidRequest(format!(
            "no rollout found for path: {rollout_path}"
        )));
    }
    Ok(GetConversationSummaryResponse {
        summary: summary_of(thread),
    })
}

/// The thread id at the end of a rollout file name (`rollout-<time>-<id>.jsonl`).
pub(crate) fn thread_id_of_rollout(rollout_path: &str) -> Option<String> {
    let stem = Path::new(rollout_path)
        .file_name()?
        .to_str()?
        .strip_suffix(".jsonl")?;
    let start = stem.len().checked_sub(36)?;
    let id = stem.get(start..)?;
    uuid::Uuid::parse_str(id).ok()?;
    Some(id.to_ascii_lowercase())
}

pub(super) fn summary_of(thread: Thread) -> ConversationSummary {
    ConversationSummary {
        conversation_id: thread.id,
        path: thread.path.unwrap_or_default(),
        preview: thread.preview,
        timestamp: Some(rfc3339_millis(thread.created_at)),
        updated_at: Some(rfc3339_millis(thread.updated_at)),
        model_provider: thread.model_provider,
        cwd: thread.cwd,
        cli_version: thread.cli_version,
        source: thread.source,
        git_info: thread.git_info,
    }
}

/// Unix seconds as `YYYY-MM-DDTHH:MM:SS.000Z` (clamped to years 1970–9999).
fn rfc3339_millis(seconds: i64) -> String {
    let seconds = seconds.clamp(0, MAX_RFC3339_SECONDS).unsigned_abs();
    humantime::format_rfc3339_millis(UNIX_EPOCH + Duration::from_secs(seconds)).to_string()
}

#[cfg(test)]
mod tests {
    use super::{rfc3339_millis, thread_id_of_rollout};

    #[test]
    fn rollout_file_names_carry_the_thread_id() {
        assert_eq!(
            thread_id_of_rollout(
                "/h/sessions/2026/11/21/rollout-2026-11-21T20-48-24-01A1FFDE-0CB7-7052-84A2-D95F5954B410.jsonl"
            )
            .as_deref(),
            Some("01a1ffde-0cb7-7052-84a2-d95f5954b410")
        );
        assert_eq!(thread_id_of_rollout("/h/notes.jsonl"), None);
        assert_eq!(thread_id_of_rollout("/h/rollout-x.json"), None);
    }

    #[test]
    fn times_have_milliseconds_and_are_clamped() {
        assert_eq!(rfc3339_millis(1_795_294_104), "2026-11-21T20:48:24.000Z");
        assert_eq!(rfc3339_millis(-5), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_millis(i64::MAX), "9999-12-31T23:59:59.000Z");
    }
}
