//! Small helpers of the ClickHouse backend: SQL literals, URL encoding, error text, ids, and
//! decoding of the rows its `JSONCompact` answers hold.

use std::fmt::Write as _;

use serde_json::Value;

use crate::backend::{HistoryError, ScoredDoc};
use crate::event::{Event, EventClass, HISTORY_TOOL_FLAG};

pub(super) fn ch_error(message: impl std::fmt::Display) -> HistoryError {
    HistoryError::ClickHouse(message.to_string())
}

/// A SQL string literal.
pub(super) fn quote(value: &str) -> String {
    let mut quoted = String::with_capacity(value.len() + 2);
    quoted.push('\'');
    for c in value.chars() {
        match c {
            '\\' => quoted.push_str("\\\\"),
            '\'' => quoted.push_str("\\'"),
            _ => quoted.push(c),
        }
    }
    quoted.push('\'');
    quoted
}

/// A Float64 literal (always with a decimal point or exponent).
pub(super) fn float(value: f64) -> String {
    if value.is_finite() {
        format!("{value:?}")
    } else {
        "0.0".to_string()
    }
}

pub(super) fn file_id(path: &str) -> u64 {
    crate::event::doc_id(path) as u64
}

pub(super) fn percent_encode(text: &str) -> String {
    let mut encoded = String::with_capacity(text.len() * 3);
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            encoded.push(byte as char);
        } else {
            let _ = write!(encoded, "%{byte:02X}");
        }
    }
    encoded
}

pub(super) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        let _ = write!(text, ": {inner}");
        source = inner.source();
    }
    text
}

pub(super) fn int(value: &Value) -> i64 {
    value
        .as_i64()
        .or_else(|| value.as_u64().map(|v| v as i64))
        .or_else(|| value.as_str().and_then(|text| text.parse().ok()))
        .unwrap_or(0)
}

pub(super) fn string(value: &Value) -> String {
    value.as_str().unwrap_or("").to_string()
}

pub(super) fn event_from_row(row: &[Value]) -> Event {
    let get = |index: usize| row.get(index).cloned().unwrap_or(Value::Null);
    let kind = int(&get(8));
    Event {
        doc: int(&get(0)),
        event_uid: string(&get(1)),
        session_id: string(&get(2)),
        event_order: int(&get(3)),
        turn_seq: int(&get(4)),
        turn_id: string(&get(5)),
        timestamp_ms: int(&get(6)),
        class: EventClass::parse(&string(&get(7))).unwrap_or(EventClass::Error),
        history_tool: kind >= HISTORY_TOOL_FLAG,
        text: string(&get(9)),
        payload: string(&get(10)),
        token_usage: string(&get(11)),
        source_path: string(&get(12)),
        owner: string(&get(13)),
    }
}

/// A value as a `TabSeparated` field: backslash, tab and line breaks escaped.
pub(super) fn tsv_field(value: &str) -> String {
    let mut field = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => field.push_str("\\\\"),
            '\t' => field.push_str("\\t"),
            '\n' => field.push_str("\\n"),
            '\r' => field.push_str("\\r"),
            _ => field.push(c),
        }
    }
    field
}

pub(super) fn scored_docs(rows: &[Vec<Value>]) -> Vec<ScoredDoc> {
    rows.iter()
        .map(|row| ScoredDoc {
            doc: int(row.first().unwrap_or(&Value::Null)),
            score: row.get(1).and_then(Value::as_f64).unwrap_or(0.0),
            matched: int(row.get(2).unwrap_or(&Value::Null)),
        })
        .collect()
}

pub(super) fn version_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_nanos() as u64)
        .unwrap_or(0)
}
