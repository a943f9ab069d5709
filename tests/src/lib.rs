//! Shared test support: the mock model server and the typed client that drives the real binary.
pub mod cluster;
pub mod cluster_turns;
pub mod index_tools;
pub mod listener;
pub mod logged;
pub mod mcp;
pub mod mock_embeddings;
pub mod mock_model;
pub mod process;
pub mod server;

/// Whether the sandbox must be enforced on this machine: `TANDEM_REQUIRE_LANDLOCK=1` (set by
/// `.ci/run`) makes a test that finds Landlock or seccomp missing fail instead of accepting the
/// helper's refusal.
pub fn sandbox_required() -> bool {
    std::env::var("TANDEM_REQUIRE_LANDLOCK").is_ok_and(|value| value == "1")
}
