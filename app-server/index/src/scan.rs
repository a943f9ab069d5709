//! The file walk: `.gitignore`/`.ignore`-aware (hidden files and the index directory itself are
//! left out), filtered by include globs; only metadata is read here.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::IndexError;
use crate::stop::StopFlag;

/// A file the walk found.
#[derive(Debug, Clone)]
pub struct ScannedFile {
    /// Path relative to the repository root, with `/` separators.
    pub path: String,
    /// Absolute path.
    pub absolute: PathBuf,
    /// Size in bytes.
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch (0 when unknown).
    pub mtime_ns: i64,
}

/// Include filters; an empty list includes every file.
#[derive(Debug, Clone)]
pub struct Globs {
    set: Option<GlobSet>,
}

impl Globs {
    /// Compiles `patterns` (`src/**/*.rs`, `docs/**`); a bad pattern is an error naming it.
    pub fn new(patterns: &[String]) -> Result<Self, IndexError> {
        if patterns.is_empty() {
            return Ok(Self { set: None });
        }
        let mut builder = GlobSetBuilder::new();
        for pattern in patterns {
            let glob = Glob::new(pattern).map_err(|error| {
                IndexError::InvalidInput(format!("invalid file glob `{pattern}`: {error}"))
            })?;
            builder.add(glob);
        }
        let set = builder
            .build()
            .map_err(|error| IndexError::InvalidInput(format!("invalid file globs: {error}")))?;
        Ok(Self { set: Some(set) })
    }

    /// Whether the relative `path` is included.
    pub fn matches(&self, path: &str) -> bool {
        self.set.as_ref().is_none_or(|set| set.is_match(path))
    }

    /// Whether every path is included.
    pub fn is_all(&self) -> bool {
        self.set.is_none()
    }
}

/// Walks `root`, skipping ignored and hidden files, `index_dir` and files larger than
/// `max_file_bytes`. Returns the included files (sorted by path) and the number of entries that
/// could not be read, or [`IndexError::Stopped`] once `stop` is raised.
pub fn scan(
    root: &Path,
    index_dir: &Path,
    globs: &Globs,
    max_file_bytes: u64,
    stop: &StopFlag,
) -> Result<(Vec<ScannedFile>, usize), IndexError> {
    let mut files = Vec::new();
    let mut unreadable = 0;
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .require_git(false)
        .filter_entry({
            let index_dir = index_dir.to_path_buf();
            move |entry| entry.path() != index_dir
        })
        .build();
    for entry in walker {
        stop.check()?;
        let Ok(entry) = entry else {
            unreadable += 1;
            continue;
        };
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(relative) = relative.to_str() else {
            continue;
        };
        let relative = relative.replace('\\', "/");
        if !globs.matches(&relative) {
            continue;
        }
        let Ok(metadata) = entry.metadata() else {
            unreadable += 1;
            continue;
        };
        if metadata.len() > max_file_bytes {
            continue;
        }
        let mtime_ns = mtime_ns(&metadata);
        files.push(ScannedFile {
            path: relative,
            absolute: entry.path().to_path_buf(),
            size: metadata.len(),
            mtime_ns,
        });
    }
    files.sort_by(|left, right| left.path.cmp(&right.path));
    Ok((files, unreadable))
}

/// A file's modification time in nanoseconds since the Unix epoch (0 when unknown).
pub fn mtime_ns(metadata: &std::fs::Metadata) -> i64 {
    metadata
        .modified()
        .ok()
        .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |duration| {
            i64::try_from(duration.as_nanos()).unwrap_or(i64::MAX)
        })
}

/// Whether `bytes` look like a binary file (a NUL byte in the first 8 KiB).
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|byte| *byte == 0)
}
