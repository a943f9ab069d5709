//! Errors of the apply_patch library: parse failures and plan/apply failures.
//!
//! Both are shown to the model verbatim so it can fix its patch and retry, which is why every
//! parse error names the offending line and why the matching failures keep Codex's exact texts.

use std::io;
use std::path::PathBuf;

/// A patch that does not follow the grammar of `model-wire.md` §3.1.
///
/// `line` is 1-based and counts lines of the text handed to the parser, including any
/// whitespace or heredoc wrapper around the envelope.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// The first non-blank line is not `*** Begin Patch` (or the text is empty).
    #[error(
        "invalid patch at line {line}: the first line must be '*** Begin Patch', found '{text}'"
    )]
    MissingBegin {
        /// Line of the offending text.
        line: usize,
        /// The offending line.
        text: String,
    },
    /// The last non-blank line is not `*** End Patch`.
    #[error("invalid patch at line {line}: the last line must be '*** End Patch', found '{text}'")]
    MissingEnd {
        /// Line of the offending text.
        line: usize,
        /// The offending line.
        text: String,
    },
    /// The envelope holds no file operation at all.
    #[error("invalid patch at line {line}: no file operations before '{text}'")]
    NoOperations {
        /// Line of the `*** End Patch` marker.
        line: usize,
        /// The marker line.
        text: String,
    },
    /// A line where a file operation header was expected.
    #[error(
        "invalid patch at line {line}: '{text}' is not a valid file header; expected \
         '*** Add File: <path>', '*** Delete File: <path>' or '*** Update File: <path>'"
    )]
    InvalidHeader {
        /// Line of the offending text.
        line: usize,
        /// The offending line.
        text: String,
    },
    /// A header (`*** Add File:`, `*** Move to:` …) without a path.
    #[error("invalid patch at line {line}: '{text}' names no path")]
    EmptyPath {
        /// Line of the offending text.
        line: usize,
        /// The offending line.
        text: String,
    },
    /// A line inside an added file that does not start with `+`.
    #[error(
        "invalid patch at line {line}: unexpected line '{text}' in an added file; every line must start with '+'"
    )]
    InvalidAddLine {
        /// Line of the offending text.
        line: usize,
        /// The offending line.
        text: String,
    },
    /// `*** Update File:` followed by no chunk.
    #[error("invalid patch at line {line}: '{text}' has no changes")]
    EmptyUpdate {
        /// Line of the `*** Update File:` header.
        line: usize,
        /// The header line.
        text: String,
    },
    /// A chunk marker (`@@ …`) or `*** End of File` with no change lines.
    #[error("invalid patch at line {line}: chunk '{text}' has no change lines")]
    EmptyChunk {
        /// Line of the chunk marker.
        line: usize,
        /// The chunk marker line.
        text: String,
    },
    /// A chunk line that starts with none of ` `, `+`, `-`.
    #[error(
        "invalid patch at line {line}: unexpected line '{text}' in an update chunk; every line \
         must start with ' ' (context), '+' (added) or '-' (removed), and later chunks with '@@'"
    )]
    InvalidChunkLine {
        /// Line of the offending text.
        line: usize,
        /// The offending line.
        text: String,
    },
}

impl ParseError {
    /// The 1-based line the error is about.
    #[cfg(any(test, feature = "fuzzing"))]
    pub fn line(&self) -> usize {
        match self {
            Self::MissingBegin { line, .. }
            | Self::MissingEnd { line, .. }
            | Self::NoOperations { line, .. }
            | Self::InvalidHeader { line, .. }
            | Self::EmptyPath { line, .. }
            | Self::InvalidAddLine { line, .. }
            | Self::EmptyUpdate { line, .. }
            | Self::EmptyChunk { line, .. }
            | Self::InvalidChunkLine { line, .. } => *line,
        }
    }
}

/// A patch that parsed but cannot be planned or applied to the files on disk.
///
/// Paths are absolute (resolved against the working directory), as in Codex's verification
/// messages.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// A chunk's `@@ <anchor>` line was not found (Codex's exact text).
    #[error("Failed to find context '{anchor}' in {}", path.display())]
    ContextNotFound {
        /// The anchor as written in the patch.
        anchor: String,
        /// The file searched.
        path: PathBuf,
    },
    /// A chunk's old lines were not found (Codex's exact text).
    #[error("Failed to find expected lines in {}:\n{}", path.display(), old_lines.join("\n"))]
    LinesNotFound {
        /// The file searched.
        path: PathBuf,
        /// The chunk's context and removed lines.
        old_lines: Vec<String>,
    },
    /// `*** Update File:` on a file that cannot be read (missing, a directory, not UTF-8).
    #[error("failed to read file to update {}: {source}", path.display())]
    UpdateUnreadable {
        /// The file to update.
        path: PathBuf,
        /// Why reading failed.
        source: io::Error,
    },
    /// `*** Delete File:` on a file that cannot be read (missing, a directory).
    #[error("failed to read file to delete {}: {source}", path.display())]
    DeleteUnreadable {
        /// The file to delete.
        path: PathBuf,
        /// Why reading failed.
        source: io::Error,
    },
    /// An add or move target that exists but is not a regular file.
    #[error("cannot write {}: it exists and is not a regular file", path.display())]
    NotAFile {
        /// The target path.
        path: PathBuf,
    },
    /// A file changed on disk between planning and applying (for example while the user was
    /// deciding on the approval); the caller should plan again.
    #[error("{} changed on disk after the patch was checked; nothing was written", path.display())]
    ChangedSincePlanned {
        /// The file that changed.
        path: PathBuf,
    },
    /// A filesystem operation failed while applying; everything done so far was rolled back.
    #[error("failed to {action} {}: {source}", path.display())]
    Io {
        /// What was being done (`read`, `write`, `rename`, `remove`, `create directory`).
        action: &'static str,
        /// The path it was done to.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}
