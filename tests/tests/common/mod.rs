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

/// The `tandem` binary under test: `$TANDEM_BIN`, or the one cargo built next to this test.
///
/// Integration tests live in their own crate, so cargo does not build the binary for them;
/// the README's test command runs `cargo build --bins` first.
pub fn tandem_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("TANDEM_BIN") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().unwrap_or_default();
    // target/<profile>/deps/<test> -> target/<profile>/tandem
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let binary = profile_dir.join("tandem");
    assert!(
        binary.exists(),
        "tandem binary not found at {}; run `cargo build --bins` first or set TANDEM_BIN",
        binary.display()
    );
    binary
}

/// The recorded Codex transcripts.
pub fn transcripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/transcripts")
}
