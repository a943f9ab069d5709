//! The event model: one searchable conversation event per rollout line that carries content.

use serde::Serialize;

/// What kind of conversation event a row is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventClass {
    /// A message from the user.
    UserMessage,
    /// A message (or plan) from the agent.
    AgentMessage,
    /// The model's reasoning summary or text.
    Reasoning,
    /// A shell command and its output.
    Command,
    /// A file change (paths and diffs).
    FileChange,
    /// A tool call (name and arguments).
    ToolCall,
    /// A tool's output.
    ToolOutput,
    /// An error (a failed turn, a stream error).
    Error,
}

impl EventClass {
    /// Every class, in code order.
    pub const ALL: [EventClass; 8] = [
        EventClass::UserMessage,
        EventClass::AgentMessage,
        EventClass::Reasoning,
        EventClass::Command,
        EventClass::FileChange,
        EventClass::ToolCall,
        EventClass::ToolOutput,
        EventClass::Error,
    ];

    /// The wire name (`user_message`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            EventClass::UserMessage => "user_message",
            EventClass::AgentMessage => "agent_message",
            EventClass::Reasoning => "reasoning",
            EventClass::Command => "command",
            EventClass::FileChange => "file_change",
            EventClass::ToolCall => "tool_call",
            EventClass::ToolOutput => "tool_output",
            EventClass::Error => "error",
        }
    }

    /// Parses a wire name.
    pub fn parse(name: &str) -> Option<EventClass> {
        EventClass::ALL
            .into_iter()
            .find(|class| class.as_str() == name)
    }

    /// The small integer stored in postings rows (with [`HISTORY_TOOL_FLAG`]).
    pub fn code(self) -> i64 {
        match self {
            EventClass::UserMessage => 0,
            EventClass::AgentMessage => 1,
            EventClass::Reasoning => 2,
            EventClass::Command => 3,
            EventClass::FileChange => 4,
            EventClass::ToolCall => 5,
            EventClass::ToolOutput => 6,
            EventClass::Error => 7,
        }
    }

    /// Whether `include_tool_events` governs this class.
    pub fn is_tool_event(self) -> bool {
        matches!(self, EventClass::ToolCall | EventClass::ToolOutput)
    }
}

/// The owner of the events of a rollout that names none: the local user (the name
/// `tandem_core::principal::LOCAL_USER` gives it). Rollouts written before threads recorded
/// their owner, and Codex's, belong to the local user.
pub const LOCAL_OWNER: &str = "local";

/// Added to a postings `kind` when the event belongs to a call of the history tools themselves.
pub const HISTORY_TOOL_FLAG: i64 = 8;

/// One conversation event.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Stable id: `<session_id>:<event_order>`.
    pub event_uid: String,
    /// Numeric document id in the postings: a 63-bit hash of `event_uid`.
    pub doc: i64,
    /// The thread (session) id.
    pub session_id: String,
    /// The principal whose thread the event belongs to (the rollout header's `owner`, else
    /// [`LOCAL_OWNER`]): only that principal finds or opens it.
    pub owner: String,
    /// Position of the event in its session, from 0.
    pub event_order: i64,
    /// Which turn of the session, from 1 (0 before the first turn).
    pub turn_seq: i64,
    /// The turn id as recorded (empty when unknown).
    pub turn_id: String,
    /// When the line was written, Unix milliseconds.
    pub timestamp_ms: i64,
    /// Event class.
    pub class: EventClass,
    /// Whether the event is a call (or output) of the history tools themselves.
    pub history_tool: bool,
    /// The text that is searched.
    pub text: String,
    /// The line's raw payload (JSON).
    pub payload: String,
    /// Token usage in effect when the event was written (JSON, empty when none yet).
    pub token_usage: String,
    /// The rollout file the event came from.
    pub source_path: String,
}

impl Event {
    /// The postings `kind`: class code plus [`HISTORY_TOOL_FLAG`].
    pub fn kind(&self) -> i64 {
        self.class.code()
            + if self.history_tool {
                HISTORY_TOOL_FLAG
            } else {
                0
            }
    }
}

/// The event uid of position `event_order` in `session_id`.
pub fn event_uid(session_id: &str, event_order: i64) -> String {
    format!("{session_id}:{event_order}")
}

/// The document id of an event uid: FNV-1a 64, top bit cleared (both backends use it, so ties
/// in score break the same way everywhere).
pub fn doc_id(event_uid: &str) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in event_uid.as_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (hash >> 1) as i64
}

/// Formats Unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn format_timestamp(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fff…]Z` into Unix milliseconds.
pub fn parse_timestamp(text: &str) -> Option<i64> {
    let bytes = text.as_bytes();
    if bytes.len() < 20 || bytes[4] != b'-' || bytes[7] != b'-' || bytes[10] != b'T' {
        return None;
    }
    let number = |range: std::ops::Range<usize>| -> Option<i64> { text.get(range)?.parse().ok() };
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    let mut millis = 0;
    if bytes.get(19) == Some(&b'.') {
        let fraction: String = text[20..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let padded = format!("{fraction:0<3}");
        millis = padded.get(0..3)?.parse().ok()?;
    }
    let days = days_from_civil(year, month, day);
    Some(((days * 86_400 + hour * 3600 + minute * 60 + second) * 1000) + millis)
}

fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_round_trip() {
        let ms = parse_timestamp("2026-11-21T20:48:04.930Z").expect("parses");
        assert_eq!(format_timestamp(ms), "2026-11-21T20:48:04.930Z");
        assert_eq!(parse_timestamp("1970-01-01T00:00:01Z"), Some(1000));
        assert_eq!(parse_timestamp("garbage"), None);
    }

    #[test]
    fn doc_ids_are_stable_and_positive() {
        assert_eq!(doc_id("s:1"), doc_id("s:1"));
        assert_ne!(doc_id("s:1"), doc_id("s:2"));
        assert!(doc_id("anything") >= 0);
    }
}
