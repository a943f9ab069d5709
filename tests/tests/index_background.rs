//! Embeddings in the background, against the real binary: a `query_project` on a repository
//! whose chunks have no vectors yet answers at once from the lexical index (`ready: false`,
//! `reason: "indexing"`, with progress), the background job completes by itself and a later
//! query says `ready: true`; a server killed while its job embeds leaves what it committed, and
//! the next server embeds only the rest; `require_embeddings: true` waits for the job with
//! progress.
//!
//! The embeddings come from the mock endpoint over real HTTP, told to hold its batch requests:
//! every step waits for an event (a held request, a progress notification, a log line), never
//! for a while.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;

use serde_json::{Value, json};
use tandem_tests::index_tools::{paths, payload};
use tandem_tests::logged::LoggedServer;
use tandem_tests::mock_embeddings::MockEmbeddings;

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A repository of `extra` generated files (one chunk each, all texts distinct) beside a
/// small hand-written one.
fn repo(extra: usize) -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    write(
        root,
        "src/auth/middleware.rs",
        "//! Authentication.\n\npub fn check_bearer_token(header: &str) -> bool {\n    header.starts_with(\"Bearer \")\n}\n",
    );
    write(
        root,
        "docs/guide.md",
        "# Guide\n\nThe storage layer keeps blobs on disk.\n",
    );
    for index in 0..extra {
        write(
            root,
            &format!("src/gen/file{index}.rs"),
            &format!("pub fn generated_{index}() -> usize {{ {index} }}\n"),
        );
    }
    repo
}

fn config(mock: &MockEmbeddings) -> String {
    format!(
        "[query_project_index]\nauto_warm = false\nembedding_provider = \"openai-compatible\"\nembedding_model = \"mock-embed\"\nembedding_base_url = \"{}\"\nembedding_api_key_env = \"TANDEM_HOME\"\n",
        mock.base_url
    )
}

async fn mcp_server(repo: &Path, mock: &MockEmbeddings) -> LoggedServer {
    let mut server = LoggedServer::spawn("mcp-server", repo, &config(mock)).await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}))
        .await;
    server.response(0).await;
    server
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    server
}

async fn call(server: &mut LoggedServer, id: i64, tool: &str, arguments: Value) -> Value {
    server
        .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}))
        .await;
    payload(&server.response(id).await["result"])
}

#[tokio::test]
async fn a_cold_repository_answers_at_once_and_the_job_completes_in_the_background() {
    let mock = MockEmbeddings::start().await;
    mock.hold_after(0);
    let repo = repo(3);
    let mut server = mcp_server(repo.path(), &mock).await;
    let cold = call(
        &mut server,
        1,
        "query_project",
        json!({"query": "check_bearer_token"}),
    )
    .await;
    // The job's first batch is held by the mock: the answer cannot have waited for it.
    assert_eq!(
        cold["embedding_status"],
        json!({"mode_used": "optional", "ready": false, "reason": "indexing", "progress": {"embedded_chunks": 0, "total_chunks": 5}}),
        "{cold}"
    );
    assert_eq!(paths(&cold)[0], "src/auth/middleware.rs");
    mock.held(1).await;
    mock.release();
    server.log_line("project index embeddings complete").await;
    let warm = call(
        &mut server,
        2,
        "query_project",
        json!({"query": "storage layer blobs disk", "alpha": 1.0}),
    )
    .await;
    assert_eq!(
        warm["embedding_status"],
        json!({"mode_used": "optional", "ready": true}),
        "{warm}"
    );
    assert_eq!(paths(&warm)[0], "docs/guide.md", "{warm}");
    assert_eq!(mock.batch_inputs(), 5, "each chunk embedded once");
}

#[tokio::test]
async fn a_server_killed_while_embedding_resumes_without_embedding_again() {
    // 150 generated files and 2 written ones: 152 distinct chunks, batches of 64.
    let repo = repo(150);
    let first_mock = MockEmbeddings::start().await;
    first_mock.hold_after(1);
    let mut first = mcp_server(repo.path(), &first_mock).await;
    let cold = call(
        &mut first,
        1,
        "query_project",
        json!({"query": "generated"}),
    )
    .await;
    assert_eq!(cold["embedding_status"]["reason"], "indexing", "{cold}");
    assert_eq!(cold["embedding_status"]["progress"]["total_chunks"], 152);
    // The second batch is requested only after the first one is committed.
    first_mock.held(1).await;
    first.child.kill().await.unwrap();
    assert_eq!(first_mock.batch_inputs(), 64);

    let second_mock = MockEmbeddings::start().await;
    second_mock.hold_after(0);
    let mut second = mcp_server(repo.path(), &second_mock).await;
    let resumed = call(
        &mut second,
        1,
        "query_project",
        json!({"query": "check_bearer_token"}),
    )
    .await;
    assert_eq!(
        resumed["embedding_status"]["progress"],
        json!({"embedded_chunks": 64, "total_chunks": 152}),
        "{resumed}"
    );
    assert_eq!(paths(&resumed)[0], "src/auth/middleware.rs");
    second_mock.held(1).await;
    // require_embeddings waits for the job, with progress: one batch of the 88 remaining
    // chunks goes through, the next is held until the progress has arrived.
    second
        .send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "repo_index_refresh", "arguments": {"require_embeddings": true}, "_meta": {"progressToken": "wait"}}}))
        .await;
    second_mock.allow(1);
    let progress = second
        .until(|message| {
            message["method"] == "notifications/progress"
                && message["params"]["message"]
                    .as_str()
                    .is_some_and(|text| text.starts_with("embedded"))
        })
        .await;
    assert_eq!(progress["params"]["progressToken"], "wait");
    assert_eq!(progress["params"]["message"], "embedded 64/88 chunks");
    second_mock.release();
    let refreshed = payload(&second.response(2).await["result"]);
    assert_eq!(
        refreshed["embedding_status"],
        json!({"mode_used": "required", "ready": true}),
        "{refreshed}"
    );
    // Embedded while it waited: both batches, or only the second when the first was committed
    // before the call reached the job.
    let waited = refreshed["stats"]["embedded_chunks"].as_u64().unwrap();
    assert!(waited == 88 || waited == 24, "{refreshed}");
    assert_eq!(
        second_mock.batch_inputs(),
        88,
        "only the chunks the killed server had not committed"
    );
    let warm = call(
        &mut second,
        3,
        "query_project",
        json!({"query": "generated"}),
    )
    .await;
    assert_eq!(
        warm["embedding_status"],
        json!({"mode_used": "optional", "ready": true})
    );
}
