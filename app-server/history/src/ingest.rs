//! Incremental ingestion: for each `*.jsonl` under the sources, read only what was appended
//! since the last run (per-file offset, inode and first-line fingerprint); a truncated or
//! rewritten file is re-read from the start; corrupt lines are skipped and counted.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::backend::{Batch, FileState, FileUpdate, HistoryBackend, HistoryError};
use crate::rollout::{Cursor, parse_line};

/// Events per committed batch (one transaction, possibly spanning several files).
pub const BATCH_EVENTS: usize = 20_000;

/// What one ingestion run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IngestReport {
    /// Rollout files found.
    pub files_seen: usize,
    /// Files with new content.
    pub files_read: usize,
    /// Files re-read from the start (truncated or rewritten).
    pub files_reset: usize,
    /// Events written.
    pub events: usize,
    /// Corrupt lines skipped in this run.
    pub corrupt_lines: i64,
    /// Wall time.
    pub elapsed: Duration,
}

/// Ingests every rollout under `sources` into `backend`.
pub fn ingest(
    backend: &dyn HistoryBackend,
    sources: &[PathBuf],
) -> Result<IngestReport, HistoryError> {
    let started = Instant::now();
    let mut files = Vec::new();
    for source in sources {
        collect_rollouts(source, &mut files);
    }
    files.sort();
    let states = backend.file_states()?;
    let mut report = IngestReport {
        files_seen: files.len(),
        ..IngestReport::default()
    };
    let mut pending = Batch::default();
    for path in files {
        ingest_file(backend, &path, &states, &mut report, &mut pending)?;
    }
    flush(backend, &mut pending, &mut report)?;
    report.elapsed = started.elapsed();
    Ok(report)
}

/// Ingests one file (used by the background ingest after a turn, which knows the file).
pub fn ingest_one(backend: &dyn HistoryBackend, path: &Path) -> Result<IngestReport, HistoryError> {
    let started = Instant::now();
    let key = path.display().to_string();
    let states: HashMap<String, FileState> = backend
        .file_state(&key)?
        .map(|state| (key, state))
        .into_iter()
        .collect();
    let mut report = IngestReport {
        files_seen: 1,
        ..IngestReport::default()
    };
    let mut pending = Batch::default();
    ingest_file(backend, path, &states, &mut report, &mut pending)?;
    flush(backend, &mut pending, &mut report)?;
    report.elapsed = started.elapsed();
    Ok(report)
}

fn collect_rollouts(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => collect_rollouts(&path, files),
            Ok(kind) if kind.is_file() && path.extension().is_some_and(|ext| ext == "jsonl") => {
                files.push(path)
            }
            _ => {}
        }
    }
}

fn io_error(path: &Path, error: std::io::Error) -> HistoryError {
    HistoryError::Io {
        path: path.display().to_string(),
        message: error.to_string(),
    }
}

/// FNV-1a of the first line (at most 1 KiB of it), hex.
fn fingerprint(file: &mut File) -> std::io::Result<String> {
    let mut head = vec![0; 1024];
    file.seek(SeekFrom::Start(0))?;
    let mut filled = 0;
    while filled < head.len() {
        let read = file.read(&mut head[filled..])?;
        if read == 0 {
            break;
        }
        filled += read;
    }
    head.truncate(filled);
    let first_line = match head.iter().position(|byte| *byte == b'\n') {
        Some(end) => &head[..end],
        None => &head[..],
    };
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in first_line {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Ok(format!("{hash:016x}"))
}

/// Commits `pending` (if it holds anything) and empties it.
fn flush(
    backend: &dyn HistoryBackend,
    pending: &mut Batch,
    report: &mut IngestReport,
) -> Result<(), HistoryError> {
    if pending.files.is_empty() && pending.events.is_empty() {
        return Ok(());
    }
    let batch = std::mem::take(pending);
    backend.commit(&batch)?;
    report.events += batch.events.len();
    Ok(())
}

fn ingest_file(
    backend: &dyn HistoryBackend,
    path: &Path,
    states: &HashMap<String, FileState>,
    report: &mut IngestReport,
    pending: &mut Batch,
) -> Result<(), HistoryError> {
    let key = path.display().to_string();
    let previous = states.get(&key);
    // An unchanged file costs one `stat`: same inode, size at the committed offset.
    match std::fs::metadata(path) {
        Ok(metadata)
            if previous.is_some_and(|state| {
                state.inode == metadata.ino() && state.offset == metadata.len()
            }) =>
        {
            return Ok(());
        }
        Ok(_) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(io_error(path, error)),
    }
    let mut file = match File::open(path) {
        Ok(file) => file,
        // Moved (archived) or deleted since the directory was listed.
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(io_error(path, error)),
    };
    let metadata = file.metadata().map_err(|error| io_error(path, error))?;
    let size = metadata.len();
    let inode = metadata.ino();
    let print = fingerprint(&mut file).map_err(|error| io_error(path, error))?;
    let reset = previous.is_some_and(|state| {
        state.inode != inode || size < state.offset || state.fingerprint != print
    });
    let mut state = match previous {
        Some(state) if !reset => {
            if state.offset == size {
                return Ok(());
            }
            state.clone()
        }
        _ => FileState {
            inode,
            offset: 0,
            fingerprint: print.clone(),
            cursor: Cursor::default(),
            corrupt_lines: 0,
        },
    };
    state.inode = inode;
    state.fingerprint = print;
    file.seek(SeekFrom::Start(state.offset))
        .map_err(|error| io_error(path, error))?;
    let mut bytes = Vec::with_capacity((size - state.offset) as usize);
    file.read_to_end(&mut bytes)
        .map_err(|error| io_error(path, error))?;
    report.files_read += 1;
    if reset {
        report.files_reset += 1;
        tracing::info!(path = %key, "rollout truncated or rewritten; re-reading it");
    }
    let mut pending_reset = reset;
    let mut consumed = 0usize;
    let mut changed = reset;
    while let Some(newline) = bytes[consumed..].iter().position(|byte| *byte == b'\n') {
        let line = &bytes[consumed..consumed + newline];
        consumed += newline + 1;
        changed = true;
        if line.trim_ascii().is_empty() {
            continue;
        }
        match parse_line(line, &mut state.cursor, &key) {
            Ok(Some(event)) => pending.events.push(event),
            Ok(None) => {}
            Err(corrupt) => {
                state.corrupt_lines += 1;
                report.corrupt_lines += 1;
                tracing::warn!(path = %key, offset = state.offset + consumed as u64, "skipping corrupt rollout line: {}", corrupt.0);
            }
        }
        if pending.events.len() >= BATCH_EVENTS {
            let mut batch_state = state.clone();
            batch_state.offset += consumed as u64;
            pending.files.push(FileUpdate {
                path: key.clone(),
                reset: pending_reset,
                state: batch_state,
            });
            flush(backend, pending, report)?;
            pending_reset = false;
        }
    }
    if changed {
        state.offset += consumed as u64;
        pending.files.push(FileUpdate {
            path: key,
            reset: pending_reset,
            state,
        });
    }
    if pending.events.len() >= BATCH_EVENTS {
        flush(backend, pending, report)?;
    }
    Ok(())
}
