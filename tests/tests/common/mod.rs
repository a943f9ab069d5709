//! Helpers shared by the integration tests.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "tests fail loudly on broken fixtures"
)]
#![allow(
    dead_code,
    reason = "each test binary uses a different subset of the helpers"
)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The recorded Codex transcripts.
pub fn transcripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/transcripts")
}

pub mod mcp_servers;
pub mod tool_turns;
pub mod utilities;
