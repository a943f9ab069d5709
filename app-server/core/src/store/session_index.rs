//! `session_index.jsonl`: the file in which Codex records each thread name set, one line
//! `{"id", "thread_name", "updated_at"}` per `thread/name/set`. Tandem's own index is
//! `state.sqlite`; this file is kept in Codex's shape for the tools that read a Codex home
//! (a client running `tandem exec` in place of `codex` reads back what it wrote there).

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

use serde::Serialize;

use super::StoreError;

/// The file's name under the home.
pub const SESSION_INDEX_FILE: &str = "session_index.jsonl";

#[derive(Serialize)]
struct Entry<'a> {
    id: &'a str,
    thread_name: &'a str,
    updated_at: String,
}

/// Appends the line for `id` renamed `name` at `updated_at_ms` (one `write` of a whole line,
/// `O_APPEND`, so that lines from several processes never interleave). Blocking.
pub(super) fn append(
    home: &Path,
    id: &str,
    name: &str,
    updated_at_ms: i64,
) -> Result<(), StoreError> {
    let entry = Entry {
        id,
        thread_name: name,
        updated_at: super::rollout::format_rfc3339_millis(updated_at_ms),
    };
    let path = home.join(SESSION_INDEX_FILE);
    let write = || -> std::io::Result<()> {
        let mut line = serde_json::to_vec(&entry).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut options = OpenOptions::new();
        options.create(true).append(true);
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        options.open(&path)?.write_all(&line)
    };
    write().map_err(|source| StoreError::Io { path, source })
}
