//! Rollout files: append-only JSONL, one per thread.
//!
//! Every line is `{"timestamp":"2026-11-21T20:45:43.428Z","type":<kind>,"payload":{…}}`, the
//! first a `session_meta` header. Lines are written whole with one `write_all` each, so a killed process
//! leaves at most one partial line at the end of the file; the reader skips such a line and
//! [`RolloutWriter`] cuts it off before appending again.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use app_server_protocol::item::{ThreadItem, ThreadItemDetails, UserInput};
use app_server_protocol::thread::{ThreadTokenUsage, Turn, TurnItemsView, TurnStatus};
use serde::{Deserialize, Serialize};

use crate::model::ResponseItem;
use crate::redact::Redactor;
use crate::store::appender::Appender;
use crate::store::{
    ROLLOUT_VERSION, RolloutMirror, RolloutRecord, StoreError, StoredThread, ThreadMeta,
};

/// Where a store's rollout lines go: its appender thread and, in distributed MCP, the mirror
/// that copies each line. Every writer of the store holds a clone.
#[derive(Clone)]
pub(super) struct RolloutSink {
    pub(super) appender: Appender,
    pub(super) mirror: Option<Arc<dyn RolloutMirror>>,
}

impl std::fmt::Debug for RolloutSink {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("RolloutSink")
            .field("appender", &self.appender)
            .field("mirrored", &self.mirror.is_some())
            .finish()
    }
}

/// Appends records to one rollout file through its store's appender thread.
#[derive(Debug)]
pub struct RolloutWriter {
    path: Arc<Path>,
    file: Arc<File>,
    /// Masks secrets in every line before it is kept.
    redactor: Redactor,
    sink: RolloutSink,
}

/// Makes a rollout durable; see [`RolloutWriter::sync_handle`].
#[derive(Debug)]
pub struct RolloutSync {
    path: Arc<Path>,
    file: Arc<File>,
    appender: Appender,
}

impl RolloutSync {
    /// Waits for the lines queued so far and flushes the file's data to disk. Blocking: call
    /// it from a blocking thread.
    pub fn sync(self) -> Result<(), StoreError> {
        self.appender
            .sync(&self.file)
            .map_err(|source| io_error(&self.path, source))
    }
}

impl RolloutWriter {
    /// Encodes one record as a line and queues it for the appender thread, which hands it to
    /// the OS with one `write_all`, so that a killed process loses at most the lines queued
    /// and the one being written. Call [`RolloutWriter::sync`] to make it durable.
    pub fn append(&mut self, record: &RolloutRecord) -> Result<(), StoreError> {
        let line = encode_line(record, now_ms(), &self.redactor)
            .map_err(|source| io_error(&self.path, source))?;
        if let Some(mirror) = &self.sink.mirror {
            mirror.mirror(&self.path, &line);
        }
        self.sink.appender.append(&self.file, &self.path, line);
        Ok(())
    }

    /// Waits for the queued lines and flushes the file's data to disk. Blocking: call it
    /// from a blocking thread.
    pub fn sync(&mut self) -> Result<(), StoreError> {
        self.sink
            .appender
            .sync(&self.file)
            .map_err(|source| io_error(&self.path, source))
    }

    /// A second handle on the file that makes it durable without this writer, so that the
    /// fsync can run off the async workers and outside any lock.
    pub fn sync_handle(&self) -> RolloutSync {
        RolloutSync {
            path: Arc::clone(&self.path),
            file: Arc::clone(&self.file),
            appender: self.sink.appender.clone(),
        }
    }

    /// Creates a new rollout at `meta.rollout_path` (and its parent directories) and writes the
    /// `session_meta` header. Fails if the file already exists.
    pub(super) fn create(
        meta: &ThreadMeta,
        redactor: &Redactor,
        sink: &RolloutSink,
    ) -> Result<RolloutWriter, StoreError> {
        let path = meta.rollout_path.clone();
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|source| io_error(parent, source))?;
        }
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(|source| io_error(&path, source))?;
        let mut writer = RolloutWriter {
            path: path.into(),
            file: Arc::new(file),
            redactor: redactor.clone(),
            sink: sink.clone(),
        };
        writer.append(&RolloutRecord::SessionMeta {
            version: ROLLOUT_VERSION,
            meta: meta.clone(),
            codex: Some(super::CodexHeader::of(meta)),
        })?;
        Ok(writer)
    }

    /// Opens an existing rollout for appending. A partial last line (the previous process died
    /// while writing it) is cut off first, so that the next record does not glue onto it and
    /// turn it into a corrupt line in the middle of the file.
    pub(super) fn open_append(
        path: &Path,
        redactor: &Redactor,
        sink: &RolloutSink,
    ) -> Result<RolloutWriter, StoreError> {
        // Another writer's queued lines land before the tail is checked.
        sink.appender.barrier();
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(|source| io_error(path, source))?;
        repair_tail(&mut file, path).map_err(|source| io_error(path, source))?;
        Ok(RolloutWriter {
            path: path.into(),
            file: Arc::new(file),
            redactor: redactor.clone(),
            sink: sink.clone(),
        })
    }
}

/// The line envelope as written.
#[derive(Serialize)]
struct LineOut<'a> {
    timestamp: String,
    #[serde(flatten)]
    record: &'a RolloutRecord,
}

/// The line envelope as read; unknown keys (such as Codex's `ordinal`) are ignored.
#[derive(Deserialize)]
struct LineIn {
    timestamp: String,
    #[serde(flatten)]
    record: RolloutRecord,
}

/// Serializes one record with its envelope, newline included, with secrets masked by
/// `redactor` (well-known key shapes and the secrets the server knows): a key the user pasted
/// or a command printed is not kept.
fn encode_line(
    record: &RolloutRecord,
    timestamp_ms: i64,
    redactor: &Redactor,
) -> Result<Vec<u8>, io::Error> {
    let encoded = serde_json::to_string(&LineOut {
        timestamp: format_rfc3339_millis(timestamp_ms),
        record,
    })?;
    let mut line = match redactor.redact(&encoded) {
        Cow::Borrowed(_) => encoded.into_bytes(),
        Cow::Owned(masked) => masked.into_bytes(),
    };
    line.push(b'\n');
    Ok(line)
}

/// Decodes one line into its timestamp (Unix milliseconds) and record.
fn decode_line(line: &[u8]) -> Result<(i64, RolloutRecord), String> {
    let decoded: LineIn = serde_json::from_slice(line).map_err(|error| error.to_string())?;
    let Some(timestamp_ms) = parse_rfc3339_millis(&decoded.timestamp) else {
        return Err(format!("invalid timestamp {:?}", decoded.timestamp));
    };
    Ok((timestamp_ms, decoded.record))
}

/// Reads a rollout and rebuilds the thread from its records. `archived` says which directory
/// the file is in; together with `path` it overrides the location recorded in the file. The
/// caller first waits for its appender's queued lines ([`Appender::barrier`]).
pub(super) fn read_rollout(path: &Path, archived: bool) -> Result<StoredThread, StoreError> {
    let bytes = fs::read(path).map_err(|source| io_error(path, source))?;
    let lines: Vec<(usize, &[u8])> = bytes
        .split(|byte| *byte == b'\n')
        .enumerate()
        .filter(|(_, line)| !line.trim_ascii().is_empty())
        .map(|(index, line)| (index + 1, line))
        .collect();
    let mut replay = Replay::default();
    for (position, (line_number, line)) in lines.iter().enumerate() {
        let (timestamp_ms, record) = match decode_line(line) {
            Ok(decoded) => decoded,
            Err(message) if position + 1 == lines.len() => {
                // The process was killed while writing the last line; everything before it
                // is intact.
                tracing::warn!(
                    path = %path.display(),
                    line = line_number,
                    "ignoring truncated last rollout line: {message}"
                );
                break;
            }
            Err(message) => {
                return Err(StoreError::Corrupt {
                    path: path.to_path_buf(),
                    line: *line_number,
                    message,
                });
            }
        };
        replay
            .apply(timestamp_ms, record)
            .map_err(|message| StoreError::Corrupt {
                path: path.to_path_buf(),
                line: *line_number,
                message,
            })?;
    }
    let Some(mut meta) = replay.meta else {
        return Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            line: 1,
            message: "missing session_meta record".to_owned(),
        });
    };
    meta.archived = archived;
    meta.rollout_path = path.to_path_buf();
    if let Some(updated_at_ms) = replay.last_timestamp_ms {
        meta.updated_at_ms = updated_at_ms;
    }
    if meta.preview.is_empty()
        && let Some(preview) = first_user_text(&replay.turns)
    {
        meta.preview = preview;
    }
    let mut turns = replay.turns;
    for turn in &mut turns {
        // A turn without `turn_completed` belongs to a process that died mid-turn.
        if turn.status == TurnStatus::InProgress {
            turn.status = TurnStatus::Interrupted;
        }
    }
    Ok(StoredThread {
        meta,
        turns,
        history: replay.history,
        token_usage: replay.token_usage,
        instruction_sources: replay.instruction_sources,
        turn_starts: replay.turn_starts,
        goal: replay.goal,
        attachments: replay.attachments,
    })
}

/// The state built up while reading a rollout's records in order.
#[derive(Default)]
struct Replay {
    meta: Option<ThreadMeta>,
    turns: Vec<Turn>,
    turn_positions: HashMap<String, usize>,
    history: Vec<ResponseItem>,
    token_usage: Option<ThreadTokenUsage>,
    last_timestamp_ms: Option<i64>,
    instruction_sources: Vec<String>,
    turn_starts: Vec<(String, usize)>,
    goal: Option<app_server_protocol::thread_goal::ThreadGoal>,
    attachments: Vec<app_server_protocol::thread_attachment::ThreadAttachment>,
}

impl Replay {
    /// Applies one record; the error is the message of a `Corrupt` error.
    fn apply(&mut self, timestamp_ms: i64, record: RolloutRecord) -> Result<(), String> {
        self.last_timestamp_ms = Some(timestamp_ms);
        if self.meta.is_none() {
            let RolloutRecord::SessionMeta { version, meta, .. } = record else {
                return Err("first record is not session_meta".to_owned());
            };
            if version > ROLLOUT_VERSION {
                return Err(format!("unsupported rollout version {version}"));
            }
            self.meta = Some(meta);
            return Ok(());
        }
        match record {
            // A second header carries no more than a settings record would, and neither
            // changes who owns the thread: the first header decided that.
            RolloutRecord::SessionMeta { meta, .. } | RolloutRecord::Settings { meta } => {
                let owner = self.meta.as_ref().map(|first| first.owner.clone());
                self.meta = Some(ThreadMeta {
                    owner: owner.unwrap_or(meta.owner.clone()),
                    ..meta
                });
            }
            RolloutRecord::ThreadName { name } => {
                if let Some(meta) = &mut self.meta {
                    meta.name = Some(name);
                }
            }
            RolloutRecord::TurnStarted {
                turn_id,
                started_at,
            } => {
                self.turn_starts.push((turn_id.clone(), self.history.len()));
                let turn = self.turn_mut(turn_id);
                turn.started_at = Some(started_at);
            }
            RolloutRecord::Instructions { sources } => self.instruction_sources = sources,
            RolloutRecord::Rollback {
                num_turns,
                history_len,
            } => self.roll_back(num_turns, history_len),
            RolloutRecord::Compacted { history, .. } => {
                self.history = history;
                let len = self.history.len();
                for (_, start) in &mut self.turn_starts {
                    *start = (*start).min(len);
                }
            }
            RolloutRecord::Item { turn_id, item } => self.turn_mut(turn_id).items.push(item),
            RolloutRecord::Goal { goal } => self.goal = goal,
            RolloutRecord::Attachments { attachments } => self.attachments = attachments,
            RolloutRecord::ResponseItem { item, .. } => self.history.push(item),
            RolloutRecord::TokenUsage { usage, .. } => self.token_usage = Some(usage),
            RolloutRecord::TurnCompleted {
                turn_id,
                status,
                error,
                completed_at,
                duration_ms,
            } => {
                let turn = self.turn_mut(turn_id);
                turn.status = status;
                turn.error = error;
                turn.completed_at = Some(completed_at);
                turn.duration_ms = Some(duration_ms);
            }
        }
        Ok(())
    }

    /// Drops the last `num_turns` turns and cuts the history to `history_len`.
    fn roll_back(&mut self, num_turns: u32, history_len: usize) {
        let keep = self
            .turns
            .len()
            .saturating_sub(usize::try_from(num_turns).unwrap_or(usize::MAX));
        for turn in self.turns.drain(keep..) {
            self.turn_positions.remove(&turn.id);
        }
        let kept: std::collections::HashSet<&str> =
            self.turn_positions.keys().map(String::as_str).collect();
        self.turn_starts
            .retain(|(id, _)| kept.contains(id.as_str()));
        self.history.truncate(history_len);
    }

    /// The turn with this id, created (in progress, with no start time) if no record
    /// started it.
    fn turn_mut(&mut self, turn_id: String) -> &mut Turn {
        let position = match self.turn_positions.get(&turn_id) {
            Some(position) => *position,
            None => {
                let position = self.turns.len();
                self.turns.push(Turn {
                    id: turn_id.clone(),
                    root_turn_id: Some(turn_id.clone()),
                    items: Vec::new(),
                    items_view: TurnItemsView::Full,
                    status: TurnStatus::InProgress,
                    error: None,
                    started_at: None,
                    completed_at: None,
                    duration_ms: None,
                });
                self.turn_positions.insert(turn_id, position);
                position
            }
        };
        &mut self.turns[position]
    }
}

/// The text of the first text input of the first user message.
fn first_user_text(turns: &[Turn]) -> Option<String> {
    let content = turns
        .iter()
        .flat_map(|turn| &turn.items)
        .find_map(|item: &ThreadItem| match &item.details {
            ThreadItemDetails::UserMessage { content, .. } => Some(content),
            _ => None,
        })?;
    content.iter().find_map(|input| match input {
        UserInput::Text { text, .. } => Some(text.clone()),
        _ => None,
    })
}

/// Cuts off a partial last line, or terminates a complete one that lacks its newline.
fn repair_tail(file: &mut File, path: &Path) -> io::Result<()> {
    let length = file.metadata()?.len();
    if length == 0 {
        return Ok(());
    }
    let mut last_byte = [0_u8];
    file.seek(SeekFrom::Start(length - 1))?;
    file.read_exact(&mut last_byte)?;
    if last_byte[0] == b'\n' {
        return Ok(());
    }
    let start = last_line_start(file, length)?;
    let mut tail = Vec::new();
    file.seek(SeekFrom::Start(start))?;
    file.read_to_end(&mut tail)?;
    match decode_line(&tail) {
        Ok(_) => file.write_all(b"\n"),
        Err(message) => {
            tracing::warn!(
                path = %path.display(),
                "dropping truncated last rollout line before appending: {message}"
            );
            file.set_len(start)
        }
    }
}

/// The offset just after the last newline of the file's first `length` bytes (0 if none).
fn last_line_start(file: &mut File, length: u64) -> io::Result<u64> {
    const CHUNK: u64 = 8192;
    let mut end = length;
    let mut buffer = Vec::new();
    while end > 0 {
        let start = end.saturating_sub(CHUNK);
        buffer.clear();
        file.seek(SeekFrom::Start(start))?;
        Read::by_ref(file)
            .take(end - start)
            .read_to_end(&mut buffer)?;
        if let Some(index) = buffer.iter().rposition(|byte| *byte == b'\n') {
            return Ok(start + index as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

/// The file name of a thread's rollout: `rollout-YYYY-MM-DDTHH-MM-SS-<id>.jsonl` (UTC).
pub(super) fn rollout_file_name(id: &str, created_at: i64) -> String {
    let timestamp = format_rfc3339_seconds(created_at);
    // `2026-11-21T20:45:42Z` → `2026-11-21T20-45-42`.
    let stamp = timestamp.trim_end_matches('Z').replace(':', "-");
    format!("rollout-{stamp}-{id}.jsonl")
}

/// The dated directory of a thread's rollout below `sessions/`: `YYYY/MM/DD` (UTC).
pub(super) fn rollout_date_dir(created_at: i64) -> PathBuf {
    let timestamp = format_rfc3339_seconds(created_at);
    let year = timestamp.get(0..4).unwrap_or("1970");
    let month = timestamp.get(5..7).unwrap_or("01");
    let day = timestamp.get(8..10).unwrap_or("01");
    [year, month, day].iter().collect()
}

/// Whether `file_name` is the rollout of thread `id` (`rollout-…-<id>.jsonl`).
fn is_rollout_of(file_name: &str, id: &str) -> bool {
    file_name.starts_with("rollout-")
        && file_name
            .strip_suffix(".jsonl")
            .and_then(|stem| stem.strip_suffix(id))
            .is_some_and(|prefix| prefix.ends_with('-'))
}

/// Finds the rollout of thread `id` in `directory`: recursively for `sessions/`, flat for
/// `archived_sessions/`.
pub(super) fn find_rollout(
    directory: &Path,
    recursive: bool,
    id: &str,
) -> Result<Option<PathBuf>, StoreError> {
    let mut found = None;
    walk_rollouts(directory, recursive, &mut |path| {
        let matches = path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| is_rollout_of(name, id));
        if matches {
            found = Some(path.to_path_buf());
        }
        !matches
    })?;
    Ok(found)
}

/// Every rollout below `sessions/` (recursively, `rollout-*.jsonl`) or in
/// `archived_sessions/` (flat, `*.jsonl`).
pub(super) fn all_rollouts(directory: &Path, recursive: bool) -> Result<Vec<PathBuf>, StoreError> {
    let mut paths = Vec::new();
    walk_rollouts(directory, recursive, &mut |path| {
        paths.push(path.to_path_buf());
        true
    })?;
    paths.sort();
    Ok(paths)
}

/// Calls `visit` for each rollout file in `directory` until it returns `false`. Returns
/// whether the walk ran to the end. A missing directory has no rollouts.
fn walk_rollouts(
    directory: &Path,
    recursive: bool,
    visit: &mut dyn FnMut(&Path) -> bool,
) -> Result<bool, StoreError> {
    let entries = match fs::read_dir(directory) {
        Ok(entries) => entries,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(true),
        Err(source) => return Err(io_error(directory, source)),
    };
    for entry in entries {
        let entry = entry.map_err(|source| io_error(directory, source))?;
        let path = entry.path();
        let file_type = entry
            .file_type()
            .map_err(|source| io_error(&path, source))?;
        if file_type.is_dir() {
            if recursive && !walk_rollouts(&path, recursive, visit)? {
                return Ok(false);
            }
            continue;
        }
        let Some(name) = path.file_name().and_then(|name| name.to_str()) else {
            continue;
        };
        let is_rollout = name.ends_with(".jsonl") && (!recursive || name.starts_with("rollout-"));
        if is_rollout && !visit(&path) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Largest timestamp RFC 3339 (and `humantime`) can write: 9999-12-31T23:59:59.999Z.
const MAX_RFC3339_MS: i64 = 253_402_300_799_999;

/// Formats Unix seconds as `YYYY-MM-DDTHH:MM:SSZ`. Times outside 1970–9999 are clamped; they
/// do not occur in practice, and clamping beats `humantime`'s panic.
pub(super) fn format_rfc3339_seconds(seconds: i64) -> String {
    let seconds = seconds.clamp(0, MAX_RFC3339_MS / 1000);
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(seconds.unsigned_abs()))
        .to_string()
}

/// Formats Unix milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (clamped like
/// [`format_rfc3339_seconds`]).
pub(super) fn format_rfc3339_millis(milliseconds: i64) -> String {
    let milliseconds = milliseconds.clamp(0, MAX_RFC3339_MS);
    humantime::format_rfc3339_millis(
        UNIX_EPOCH + Duration::from_millis(milliseconds.unsigned_abs()),
    )
    .to_string()
}

/// Parses an RFC 3339 UTC timestamp into Unix milliseconds (fractions below 1 ms dropped).
pub(super) fn parse_rfc3339_millis(text: &str) -> Option<i64> {
    let time = humantime::parse_rfc3339(text).ok()?;
    let since_epoch = time.duration_since(UNIX_EPOCH).ok()?;
    i64::try_from(since_epoch.as_millis()).ok()
}

/// The current time in Unix milliseconds.
pub(super) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|since_epoch| i64::try_from(since_epoch.as_millis()).ok())
        .unwrap_or(0)
}

/// Wraps an I/O error with the path it concerns.
pub(super) fn io_error(path: &Path, source: io::Error) -> StoreError {
    StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One encoded line with a chosen timestamp, for tests that write rollouts by hand.
#[cfg(test)]
pub(super) fn encode_line_for_test(record: &RolloutRecord, timestamp_ms: i64) -> Vec<u8> {
    encode_line(record, timestamp_ms, &Redactor::new()).expect("records serialize")
}

#[cfg(test)]
mod redaction_tests {
    use super::*;

    #[test]
    fn a_key_in_a_record_is_masked_in_the_line_and_the_line_still_decodes() {
        let record = RolloutRecord::TurnStarted {
            turn_id: "turn sk-abcdefghijklmnopqrstuvwxyz0123".into(),
            started_at: 1,
        };
        let redactor = Redactor::new();
        redactor.add_secret("operator-token-0123456789");
        let record_with_token = RolloutRecord::TurnStarted {
            turn_id: "curl -H operator-token-0123456789".into(),
            started_at: 1,
        };
        let masked =
            String::from_utf8(encode_line(&record_with_token, 0, &redactor).unwrap()).unwrap();
        assert!(!masked.contains("operator-token-0123456789"), "{masked}");
        let line = encode_line(&record, 0, &redactor).unwrap();
        let text = String::from_utf8(line.clone()).unwrap();
        assert!(
            !text.contains("sk-abcdefghijklmnopqrstuvwxyz0123"),
            "{text}"
        );
        let (_, decoded) = decode_line(line.trim_ascii_end()).unwrap();
        let RolloutRecord::TurnStarted { turn_id, .. } = decoded else {
            panic!("decoded another record");
        };
        assert_eq!(turn_id, "turn sk-[REDACTED]");
    }
}
