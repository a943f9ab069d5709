//! The text the model reads after `exec_command` / `write_stdin`, and output truncation.
//!
//! The format is fixed by `spec/model-wire.md` §2.1: Codex-tuned models are trained on it.
//! Tokens are estimated as bytes / 4, rounded up, as Codex does.

#[cfg(test)]
mod tests;

use std::collections::hash_map::RandomState;
use std::fmt::Write as _;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::tools::exec::unified::ExecStep;

/// Renders a step as the tool result text:
///
/// ```text
/// Chunk ID: fa8137
/// Wall time: 0.4684 seconds
/// Process exited with code 0
/// Original token count: 5
/// Output:
/// line1
/// ```
///
/// The third line is `Process running with session ID N` while the process runs.
pub fn format_exec_result(step: &ExecStep) -> String {
    let mut text = String::with_capacity(step.output.len() + 128);
    let _ = writeln!(text, "Chunk ID: {}", step.chunk_id);
    let _ = writeln!(
        text,
        "Wall time: {:.4} seconds",
        step.wall_time.as_secs_f64()
    );
    match (step.exit_code, step.session_id) {
        (Some(exit_code), _) => {
            let _ = writeln!(text, "Process exited with code {exit_code}");
        }
        (None, session_id) => {
            let session_id = session_id.unwrap_or(step.process_id);
            let _ = writeln!(text, "Process running with session ID {session_id}");
        }
    }
    let _ = writeln!(text, "Original token count: {}", step.original_token_count);
    text.push_str("Output:\n");
    text.push_str(&step.output);
    text
}

/// Estimated tokens in `byte_len` bytes of text: a quarter, rounded up.
pub fn approx_token_count(byte_len: usize) -> usize {
    byte_len.div_ceil(4)
}

/// Shortens `text` to about `max_tokens` by cutting out its middle.
///
/// Keeps half the budget from the head and half from the tail (on character boundaries), with
/// a marker line `…N tokens truncated…` between them. Returns the text and whether it was cut.
pub fn truncate_middle(text: &str, max_tokens: usize) -> (String, bool) {
    if approx_token_count(text.len()) <= max_tokens {
        return (text.to_owned(), false);
    }
    (keep_head_and_tail(text, text, text.len(), max_tokens), true)
}

/// Joins the start of `head` and the end of `tail` within `max_tokens`, with a marker for the
/// rest of the `total_bytes` in between.
///
/// [`truncate_middle`] passes the same text twice; a session whose buffer already dropped its
/// middle passes the two halves it kept.
pub(super) fn keep_head_and_tail(
    head: &str,
    tail: &str,
    total_bytes: usize,
    max_tokens: usize,
) -> String {
    let budget = max_tokens.saturating_mul(4);
    let head = crate::text::prefix_within(head, budget / 2);
    let tail = suffix_within(tail, budget - budget / 2);
    let removed_bytes = total_bytes.saturating_sub(head.len() + tail.len());
    let removed_tokens = approx_token_count(removed_bytes);
    let mut text = String::with_capacity(head.len() + tail.len() + 40);
    text.push_str(head);
    if !head.is_empty() && !head.ends_with('\n') {
        text.push('\n');
    }
    let _ = writeln!(text, "…{removed_tokens} tokens truncated…");
    text.push_str(tail);
    text
}

/// A fresh six-hex-digit chunk id.
pub(super) fn new_chunk_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // `RandomState` is seeded randomly per process, and the counter and clock make every id in
    // a process differ; the ids only need to look arbitrary, not be secret.
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    hasher.write_u128(nanos);
    format!("{:06x}", hasher.finish() & 0x00ff_ffff)
}

/// The length of `bytes` without a trailing, incomplete UTF-8 sequence.
///
/// Output is decoded chunk by chunk; a character split between two reads is held back until
/// its remaining bytes arrive instead of becoming two replacement characters.
pub(super) fn complete_utf8_len(bytes: &[u8]) -> usize {
    let len = bytes.len();
    // A UTF-8 sequence is at most 4 bytes: look for the last lead byte among the last 3.
    for start in (len.saturating_sub(3)..len).rev() {
        let byte = bytes[start];
        if byte & 0xc0 == 0x80 {
            continue;
        }
        let needed = match byte {
            0x00..=0x7f => 1,
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => 1,
        };
        return if len - start < needed { start } else { len };
    }
    len
}

fn suffix_within(text: &str, max_bytes: usize) -> &str {
    if text.len() <= max_bytes {
        return text;
    }
    let mut start = text.len() - max_bytes;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}
