//! One rollout line → at most one [`Event`]. Understands Tandem's rollouts (records `item`,
//! `response_item` with `{turn_id, <item fields>}` or, written earlier, `{turn_id, item}`, `turn_started`, `token_usage`, `turn_completed`) and
//! Codex's (`session_meta`, `response_item`, `event_msg`, `turn_context`,
//! `token_usage_record`); each line says which it is, so one file may even mix them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::event::{Event, EventClass, LOCAL_OWNER, doc_id, event_uid, parse_timestamp};

/// Tool names whose calls are the history tools' own (left out by `exclude_codex_mcp`).
const HISTORY_TOOL_NAMES: &[&str] = &["search", "open", "history/search", "history/open"];

/// What ingestion remembers about a file between lines (and between runs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cursor {
    /// Session id from the `session_meta` line (empty until seen).
    pub session_id: String,
    /// Owner from the first `session_meta` line (empty when it names none: the local user).
    /// Absent from the cursors stored before owners were recorded.
    #[serde(default)]
    pub owner: String,
    /// Current turn id.
    pub turn_id: String,
    /// Current turn number (from 1).
    pub turn_seq: i64,
    /// Order of the next event.
    pub next_order: i64,
    /// Last token usage seen (JSON).
    pub token_usage: String,
}

/// Why a line was not turned into an event although it should have been.
#[derive(Debug, PartialEq)]
pub struct CorruptLine(pub String);

/// Decodes one complete line and updates `cursor`. `Ok(None)` for lines without searchable
/// content (metadata, token counts, duplicates); `Err` for a line that is not a rollout record.
pub fn parse_line(
    line: &[u8],
    cursor: &mut Cursor,
    source_path: &str,
) -> Result<Option<Event>, CorruptLine> {
    let value: Value =
        serde_json::from_slice(line).map_err(|error| CorruptLine(error.to_string()))?;
    let Some(kind) = value.get("type").and_then(Value::as_str) else {
        return Err(CorruptLine("missing `type`".to_string()));
    };
    let payload = value.get("payload").cloned().unwrap_or(Value::Null);
    let timestamp_ms = value
        .get("timestamp")
        .and_then(Value::as_str)
        .and_then(parse_timestamp)
        .unwrap_or(0);
    let found = match kind {
        "session_meta" => {
            // The first header decides who owns the thread, as it does for the thread store.
            if cursor.session_id.is_empty()
                && let Some(owner) = payload.pointer("/meta/owner").and_then(Value::as_str)
            {
                cursor.owner = owner.to_string();
            }
            let id = payload
                .pointer("/meta/id")
                .or_else(|| payload.get("id"))
                .and_then(Value::as_str);
            if let Some(id) = id {
                cursor.session_id = id.to_string();
            }
            None
        }
        "turn_started" => {
            start_turn(cursor, str_at(&payload, "/turn_id"));
            None
        }
        "turn_context" => {
            if let Some(turn_id) = payload.get("turn_id").and_then(Value::as_str)
                && turn_id != cursor.turn_id
            {
                start_turn(cursor, turn_id);
            }
            None
        }
        "item" => tandem_item(&payload),
        // Tandem's: the item's fields beside `turn_id` (or, as written before, nested under
        // `item`); Codex's carry no `turn_id`.
        "response_item" if payload.get("turn_id").is_some() => {
            if let Some(turn_id) = payload.get("turn_id").and_then(Value::as_str)
                && cursor.turn_id.is_empty()
            {
                start_turn(cursor, turn_id);
            }
            match payload.get("item") {
                Some(item) if payload.get("type").is_none() => tool_response_item(item),
                _ => tool_response_item(&payload),
            }
        }
        "response_item" => codex_response_item(&payload),
        "token_usage" => {
            cursor.token_usage = payload
                .get("usage")
                .map(Value::to_string)
                .unwrap_or_default();
            None
        }
        "token_usage_record" => {
            cursor.token_usage = payload
                .get("usage")
                .map(Value::to_string)
                .unwrap_or_default();
            None
        }
        "turn_completed" => match payload.get("error") {
            Some(error) if !error.is_null() => Some((
                EventClass::Error,
                false,
                error
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| error.to_string()),
            )),
            _ => None,
        },
        "event_msg" => codex_event(&payload, cursor),
        _ => None,
    };
    let Some((class, history_tool, text)) = found else {
        return Ok(None);
    };
    if text.trim().is_empty() || cursor.session_id.is_empty() {
        return Ok(None);
    }
    let order = cursor.next_order;
    cursor.next_order += 1;
    let uid = event_uid(&cursor.session_id, order);
    Ok(Some(Event {
        doc: doc_id(&uid),
        event_uid: uid,
        session_id: cursor.session_id.clone(),
        owner: if cursor.owner.is_empty() {
            LOCAL_OWNER.to_string()
        } else {
            cursor.owner.clone()
        },
        event_order: order,
        turn_seq: cursor.turn_seq,
        turn_id: cursor.turn_id.clone(),
        timestamp_ms,
        class,
        history_tool,
        text,
        payload: payload.to_string(),
        token_usage: cursor.token_usage.clone(),
        source_path: source_path.to_string(),
    }))
}

fn start_turn(cursor: &mut Cursor, turn_id: &str) {
    if !turn_id.is_empty() && turn_id == cursor.turn_id {
        return;
    }
    cursor.turn_id = turn_id.to_string();
    cursor.turn_seq += 1;
}

fn str_at<'a>(value: &'a Value, pointer: &str) -> &'a str {
    value.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

/// The texts of a content array (`[{type, text}]`) joined by newlines.
fn content_text(content: Option<&Value>) -> String {
    let Some(parts) = content.and_then(Value::as_array) else {
        return String::new();
    };
    parts
        .iter()
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Strings of an array joined by newlines (also accepts `[{text}]`).
fn string_list(value: Option<&Value>) -> String {
    let Some(items) = value.and_then(Value::as_array) else {
        return String::new();
    };
    items
        .iter()
        .filter_map(|item| item.as_str().or_else(|| item.get("text")?.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

type Found = Option<(EventClass, bool, String)>;

/// A Tandem `item` record: the completed thread item.
fn tandem_item(payload: &Value) -> Found {
    let item = payload.get("item")?;
    let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or("");
    match item.get("type")?.as_str()? {
        "userMessage" => Some((
            EventClass::UserMessage,
            false,
            content_text(item.get("content")),
        )),
        "agentMessage" | "plan" => {
            Some((EventClass::AgentMessage, false, text("text").to_string()))
        }
        "reasoning" => {
            let summary = string_list(item.get("summary"));
            let content = string_list(item.get("content"));
            Some((
                EventClass::Reasoning,
                false,
                [summary, content].join("\n").trim().to_string(),
            ))
        }
        "commandExecution" => Some((
            EventClass::Command,
            false,
            format!("{}\n{}", text("command"), text("aggregatedOutput")),
        )),
        "fileChange" => {
            let changes = item.get("changes").and_then(Value::as_array);
            let body = changes
                .into_iter()
                .flatten()
                .map(|change| format!("{}\n{}", str_at(change, "/path"), str_at(change, "/diff")))
                .collect::<Vec<_>>()
                .join("\n");
            Some((EventClass::FileChange, false, body))
        }
        "mcpToolCall" | "dynamicToolCall" => {
            let tool = text("tool");
            let body = format!(
                "{} {}\n{}\n{}",
                text("server"),
                tool,
                item.get("arguments")
                    .map(Value::to_string)
                    .unwrap_or_default(),
                item.get("result").map(Value::to_string).unwrap_or_default()
            );
            Some((EventClass::ToolCall, is_history_tool(tool), body))
        }
        _ => None,
    }
}

/// A `function_call` / `function_call_output` history item (Tandem and Codex); other history
/// items of a Tandem rollout repeat what its `item` records say.
fn tool_response_item(item: &Value) -> Found {
    match item.get("type")?.as_str()? {
        "function_call" | "custom_tool_call" => {
            let name = str_at(item, "/name");
            let arguments = item
                .get("arguments")
                .or_else(|| item.get("input"))
                .and_then(Value::as_str)
                .unwrap_or("");
            Some((
                EventClass::ToolCall,
                is_history_tool(name),
                format!("{name}\n{arguments}"),
            ))
        }
        "local_shell_call" => Some((
            EventClass::ToolCall,
            false,
            string_list(item.pointer("/action/command")),
        )),
        "function_call_output" | "custom_tool_call_output" => {
            let output = match item.get("output") {
                Some(Value::String(text)) => text.clone(),
                Some(other) => other
                    .get("content")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| other.to_string()),
                None => String::new(),
            };
            Some((EventClass::ToolOutput, false, output))
        }
        _ => None,
    }
}

/// A Codex `response_item`: messages and reasoning are the conversation; tool items as above.
fn codex_response_item(item: &Value) -> Found {
    match item.get("type")?.as_str()? {
        "message" => {
            let text = content_text(item.get("content"));
            match item.get("role")?.as_str()? {
                "user" if !is_injected_context(&text) => {
                    Some((EventClass::UserMessage, false, text))
                }
                "assistant" => Some((EventClass::AgentMessage, false, text)),
                _ => None,
            }
        }
        "reasoning" => {
            let summary = string_list(item.get("summary"));
            let content = string_list(item.get("content"));
            Some((
                EventClass::Reasoning,
                false,
                [summary, content].join("\n").trim().to_string(),
            ))
        }
        _ => tool_response_item(item),
    }
}

/// Codex `event_msg` records: turn boundaries, command ends, patches, errors.
fn codex_event(payload: &Value, cursor: &mut Cursor) -> Found {
    match payload.get("type")?.as_str()? {
        "task_started" | "turn_started" => {
            start_turn(cursor, str_at(payload, "/turn_id"));
            None
        }
        "exec_command_end" => {
            let command = match payload.get("command") {
                Some(Value::Array(_)) => string_list(payload.get("command")),
                Some(Value::String(text)) => text.clone(),
                _ => String::new(),
            };
            let output = payload
                .get("aggregated_output")
                .or_else(|| payload.get("formatted_output"))
                .and_then(Value::as_str)
                .unwrap_or("");
            Some((EventClass::Command, false, format!("{command}\n{output}")))
        }
        "patch_apply_end" => {
            let paths = payload
                .get("changes")
                .and_then(Value::as_object)
                .map(|changes| changes.keys().cloned().collect::<Vec<_>>().join("\n"))
                .unwrap_or_default();
            Some((
                EventClass::FileChange,
                false,
                format!(
                    "{paths}\n{}\n{}",
                    str_at(payload, "/stdout"),
                    str_at(payload, "/stderr")
                ),
            ))
        }
        "error" | "stream_error" => Some((
            EventClass::Error,
            false,
            str_at(payload, "/message").to_string(),
        )),
        "mcp_tool_call_end" => {
            let tool = str_at(payload, "/invocation/tool");
            Some((
                EventClass::ToolCall,
                is_history_tool(tool),
                format!(
                    "{} {tool}\n{}\n{}",
                    str_at(payload, "/invocation/server"),
                    payload
                        .pointer("/invocation/arguments")
                        .map(Value::to_string)
                        .unwrap_or_default(),
                    payload
                        .get("result")
                        .map(Value::to_string)
                        .unwrap_or_default()
                ),
            ))
        }
        _ => None,
    }
}

fn is_history_tool(name: &str) -> bool {
    HISTORY_TOOL_NAMES.contains(&name)
}

/// Context the client injects as a user message (environment, instructions), not typed by
/// the user.
fn is_injected_context(text: &str) -> bool {
    let text = text.trim_start();
    [
        "<environment_context>",
        "<user_instructions>",
        "# AGENTS.md",
        "<permissions",
    ]
    .iter()
    .any(|prefix| text.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(text: &str) -> (Vec<Event>, usize) {
        let mut cursor = Cursor::default();
        let mut events = Vec::new();
        let mut corrupt = 0;
        for line in text.lines() {
            match parse_line(line.as_bytes(), &mut cursor, "f") {
                Ok(Some(event)) => events.push(event),
                Ok(None) => {}
                Err(_) => corrupt += 1,
            }
        }
        (events, corrupt)
    }

    #[test]
    fn codex_sample_yields_user_and_agent_messages_in_two_turns() {
        let sample = include_str!("../tests/data/codex-rollout.jsonl");
        let (events, corrupt) = parse_all(sample);
        assert_eq!(corrupt, 0);
        let summary: Vec<(&str, i64, &str)> = events
            .iter()
            .map(|event| (event.class.as_str(), event.turn_seq, event.text.as_str()))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("user_message", 1, "Say hello. MOCK_TEXT 8 20"),
                (
                    "agent_message",
                    1,
                    "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7 "
                ),
                ("user_message", 2, "Continue after resume. MOCK_TEXT 3"),
                ("agent_message", 2, "tok0 tok1 tok2 "),
            ]
        );
        assert_eq!(events[0].session_id, "01a1ffdd-bf21-7cd3-a055-888a65ab3622");
        assert_eq!(
            events[3].event_uid,
            "01a1ffdd-bf21-7cd3-a055-888a65ab3622:3"
        );
        assert!(events[3].token_usage.contains("input_tokens"));
    }

    #[test]
    fn tandem_items_become_classed_events() {
        let sample = include_str!("../tests/data/tandem-rollout.jsonl");
        let (events, corrupt) = parse_all(sample);
        assert_eq!(corrupt, 0);
        let classes: Vec<&str> = events.iter().map(|event| event.class.as_str()).collect();
        assert_eq!(
            classes,
            vec![
                "user_message",
                "reasoning",
                "agent_message",
                "tool_call",
                "tool_output",
                "tool_call",
                "command",
                "tool_output",
                "tool_call",
                "file_change",
                "tool_output",
                "tool_call",
                "tool_output",
                "tool_call",
                "tool_output",
                "agent_message",
            ]
        );
        assert!(events[6].text.contains("uname -srm"));
        assert!(events.iter().all(|event| event.turn_seq == 1));
    }

    #[test]
    fn tandem_response_items_read_alike_nested_and_in_codex_shape() {
        let nested = include_str!("../tests/data/tandem-rollout.jsonl");
        // The same rollout as Tandem writes it now: each response item's own fields at the
        // top of the payload, beside `turn_id`.
        let flat: String = nested
            .lines()
            .map(|line| {
                let mut record: Value = serde_json::from_str(line).unwrap();
                if record["type"] == "response_item" {
                    let payload = record["payload"].take();
                    let mut fields = payload["item"].as_object().unwrap().clone();
                    fields.insert("turn_id".into(), payload["turn_id"].clone());
                    record["payload"] = Value::Object(fields);
                }
                format!("{record}\n")
            })
            .collect();
        assert!(
            nested
                .lines()
                .any(|line| line.contains(r#""type":"response_item""#))
        );
        let (nested_events, _) = parse_all(nested);
        let (flat_events, corrupt) = parse_all(&flat);
        assert_eq!(corrupt, 0);
        let summary = |events: &[Event]| -> Vec<(String, i64, String)> {
            events
                .iter()
                .map(|event| {
                    (
                        event.class.as_str().to_owned(),
                        event.turn_seq,
                        event.text.clone(),
                    )
                })
                .collect()
        };
        assert_eq!(summary(&flat_events), summary(&nested_events));
    }

    #[test]
    fn garbage_is_corrupt() {
        let mut cursor = Cursor::default();
        assert!(parse_line(b"{not json", &mut cursor, "f").is_err());
        assert!(parse_line(b"{\"payload\":{}}", &mut cursor, "f").is_err());
    }
}
