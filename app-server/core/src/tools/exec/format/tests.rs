//! Tests for the result text and truncation.

use std::time::Duration;

use pretty_assertions::assert_eq;

use super::{
    approx_token_count, complete_utf8_len, format_exec_result, keep_head_and_tail, new_chunk_id,
    truncate_middle,
};
use crate::tools::exec::unified::ExecStep;

fn step() -> ExecStep {
    ExecStep {
        chunk_id: "fa8137".to_owned(),
        process_id: 1000,
        session_id: None,
        exit_code: Some(0),
        output: "line1\nline2\nline3\n".to_owned(),
        wall_time: Duration::from_micros(468_400),
        original_token_count: 5,
    }
}

#[test]
fn formats_an_exited_process() {
    assert_eq!(
        format_exec_result(&step()),
        "Chunk ID: fa8137\nWall time: 0.4684 seconds\nProcess exited with code 0\n\
         Original token count: 5\nOutput:\nline1\nline2\nline3\n"
    );
}

#[test]
fn formats_a_running_process() {
    let step = ExecStep {
        session_id: Some(40297),
        exit_code: None,
        output: String::new(),
        wall_time: Duration::from_secs(10),
        original_token_count: 0,
        ..step()
    };
    assert_eq!(
        format_exec_result(&step),
        "Chunk ID: fa8137\nWall time: 10.0000 seconds\nProcess running with session ID 40297\n\
         Original token count: 0\nOutput:\n"
    );
}

#[test]
fn counts_a_token_per_four_bytes_rounded_up() {
    assert_eq!([0, 1, 4, 5, 8].map(approx_token_count), [0, 1, 1, 2, 2]);
}

#[test]
fn short_text_is_not_truncated() {
    assert_eq!(
        truncate_middle("abcdefgh", 2),
        ("abcdefgh".to_owned(), false)
    );
}

#[test]
fn truncation_keeps_head_and_tail() {
    let text: String = (1..=100).map(|n| format!("line {n}\n")).collect();
    let (cut, truncated) = truncate_middle(&text, 10);
    assert!(truncated);
    // 40 bytes of budget: 20 from the head, 20 from the tail; 752 of 792 bytes removed.
    assert_eq!(
        cut,
        "line 1\nline 2\nline 3\n…188 tokens truncated…\n98\nline 99\nline 100\n"
    );
}

#[test]
fn truncation_respects_character_boundaries() {
    let text = "€€€€€€€€€€"; // ten three-byte characters
    let (cut, truncated) = truncate_middle(text, 2);
    assert!(truncated);
    // 8 bytes of budget: a character fits in each 4-byte half; 24 bytes removed.
    assert_eq!(cut, "€\n…6 tokens truncated…\n€");
    let (cut, _) = truncate_middle(text, 0);
    assert_eq!(cut, "…8 tokens truncated…\n");
}

#[test]
fn head_and_tail_of_a_buffer_that_dropped_its_middle() {
    assert_eq!(
        keep_head_and_tail("head\n", "tail\n", 1000, 100),
        "head\n…248 tokens truncated…\ntail\n"
    );
}

#[test]
fn holds_back_incomplete_characters() {
    let euro = "€".as_bytes(); // three bytes
    assert_eq!(complete_utf8_len(b"abc"), 3);
    assert_eq!(complete_utf8_len(&[b'a', euro[0]]), 1);
    assert_eq!(complete_utf8_len(&[b'a', euro[0], euro[1]]), 1);
    assert_eq!(complete_utf8_len(&[b'a', euro[0], euro[1], euro[2]]), 4);
    assert_eq!(complete_utf8_len(&[0xff]), 1);
    assert_eq!(complete_utf8_len(&[]), 0);
}

#[test]
fn chunk_ids_are_six_hex_digits() {
    let first = new_chunk_id();
    assert_eq!(first.len(), 6);
    assert!(first.chars().all(|c| c.is_ascii_hexdigit()), "{first}");
    assert_ne!(first, new_chunk_id());
}
