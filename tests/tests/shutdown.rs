//! How the servers stop, against the real binary: a shutdown begun by stdin EOF or SIGTERM
//! while the server is busy embedding a large tree with the real all-MiniLM-L6-v2 model ends
//! the process within the grace period, gracefully (exit 0), with the busy request answered
//! and its `command/exec` child gone; a second SIGTERM during the shutdown ends it at once.
//!
//! Every step waits for an event (a progress notification, an output delta, a log line), never
//! for a while.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::json;
use tandem_tests::logged::LoggedServer;

/// The servers' grace period: a shutdown that has not finished by then is forced (exit 130).
const GRACE: Duration = Duration::from_secs(5);

/// How long the test waits for an exit before it fails: twice the grace period.
const EXIT_GUARD: Duration = Duration::from_secs(10);

/// How long the test waits for the first batch of chunks to be embedded before it fails.
const EMBEDDING_GUARD: Duration = Duration::from_secs(180);

/// Exit status of a forced exit.
const FORCED: i32 = 130;

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A tree of 2,000 Rust files whose embedding takes far longer than a test runs.
fn large_tree() -> tempfile::TempDir {
    let tree = tempfile::tempdir().unwrap();
    for file in 0..2_000 {
        let text: String = (0..60)
            .map(|line| format!("pub fn item_{file}_{line}(value: usize) -> usize {{ value * {line} + {file} }}\n"))
            .collect();
        write(tree.path(), &format!("d{}/f{file}.rs", file / 100), &text);
    }
    tree
}

/// The installed model: `$TANDEM_TEST_MODEL_DIR`, or `~/.tandem/models/all-MiniLM-L6-v2` where
/// `.ci/run` puts it with `tandem index install-model`.
fn installed_model() -> PathBuf {
    let directory = std::env::var_os("TANDEM_TEST_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap()).join(".tandem/models/all-MiniLM-L6-v2")
        });
    assert!(
        directory.join("model.safetensors").is_file(),
        "the local embedding model is missing at {}: run `tandem index install-model` (or set TANDEM_TEST_MODEL_DIR)",
        directory.display()
    );
    directory
}

/// Embeddings on, with the real local model.
fn embedding_config() -> String {
    format!(
        "[query_project_index]\nauto_warm = false\nmodel_dir = \"{}\"\n",
        installed_model().display()
    )
}

/// `tandem app-server`, initialized with the experimental API (`index/*`).
async fn app_server(cwd: &Path) -> LoggedServer {
    let mut server = LoggedServer::spawn("app-server", cwd, &embedding_config()).await;
    server
        .send(&json!({"id": 0, "method": "initialize", "params": {"clientInfo": {"name": "shutdown", "version": "0"}, "capabilities": {"experimentalApi": true}}}))
        .await;
    server.until(|message| message["id"] == 0).await;
    server.send(&json!({"method": "initialized"})).await;
    server
}

/// Starts `index/refresh` (id 2) of the working directory and returns once embedding is under
/// way.
async fn app_server_embedding(server: &mut LoggedServer) {
    server
        .send(&json!({"id": 2, "method": "index/refresh", "params": {}}))
        .await;
    let progress = server
        .until(|message| {
            assert_ne!(message["id"], 2, "the refresh ended: {message}");
            message["method"] == "index/progress" && message["params"]["phase"] == "embedding"
        })
        .await;
    eprintln!("embedding under way: {progress}");
}

/// Whether process `pid` is gone (or a zombie waiting to be reaped by whoever adopted it).
fn is_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        // The state follows the command name in parentheses.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
    }
}

/// The three endings one after the other (each embeds the whole tree; at once they would
/// starve one another on a small machine).
#[tokio::test]
async fn busy_servers_end_within_the_grace_period() {
    let tree = large_tree();
    stdin_eof_ends_the_app_server_gracefully(tree.path()).await;
    a_second_sigterm_ends_the_app_server_at_once(tree.path()).await;
    sigterm_ends_the_mcp_server_gracefully(tree.path()).await;
}

/// stdin EOF during an embedding refresh (and a running `command/exec`).
async fn stdin_eof_ends_the_app_server_gracefully(tree: &Path) {
    let mut server = app_server(tree).await;
    // A command that would outlive the server if it were left behind; it prints its pid.
    server
        .send(&json!({"id": 1, "method": "command/exec", "params": {
            "command": ["bash", "-c", "echo $$; exec sleep 1000"],
            "processId": "sleeper",
            "streamStdoutStderr": true,
            "sandboxPolicy": {"type": "dangerFullAccess"},
        }}))
        .await;
    let delta = server
        .until(|message| message["method"] == "command/exec/outputDelta")
        .await;
    let printed = base64::engine::general_purpose::STANDARD
        .decode(delta["params"]["deltaBase64"].as_str().unwrap())
        .unwrap();
    let sleeper: i32 = String::from_utf8(printed).unwrap().trim().parse().unwrap();
    assert!(!is_gone(sleeper));
    app_server_embedding(&mut server).await;

    let started = Instant::now();
    server.stdin = None;
    let rest = server.rest().await;
    let (code, elapsed) = server.exit(started, EXIT_GUARD).await;
    eprintln!("stdin EOF during an embedding refresh: exit {code:?} after {elapsed:.2?}");
    // 0: the graceful shutdown finished; the deadline would have forced 130.
    assert_eq!(code, Some(0));
    assert!(elapsed < GRACE, "{elapsed:?}");
    // The refresh, still embedding, was abandoned and answered, not left hanging.
    let answer = rest
        .iter()
        .find(|message| message["id"] == 2)
        .expect("index/refresh was answered");
    assert_eq!(
        answer["error"]["message"], "the server is shutting down",
        "{answer}"
    );
    // The command died with its connection.
    assert!(
        rest.iter().any(|message| message["id"] == 1),
        "command/exec was answered: {rest:?}"
    );
    assert!(is_gone(sleeper), "the command outlived the server");
}

/// A second SIGTERM while the shutdown waits for an embedding refresh.
async fn a_second_sigterm_ends_the_app_server_at_once(tree: &Path) {
    let mut server = app_server(tree).await;
    app_server_embedding(&mut server).await;
    let started = Instant::now();
    server.terminate();
    // The first signal began the shutdown, which waits for the refresh to give up.
    server.log_line("signal received; shutting down").await;
    server.terminate();
    let (code, elapsed) = server.exit(started, EXIT_GUARD).await;
    eprintln!("two SIGTERMs during an embedding refresh: exit {code:?} after {elapsed:.2?}");
    assert_eq!(code, Some(FORCED));
    // Not the deadline's forced exit: the second signal's.
    assert!(elapsed < GRACE, "{elapsed:?}");
}

/// SIGTERM during an embedding `repo_index_refresh` of `tandem mcp-server`.
async fn sigterm_ends_the_mcp_server_gracefully(tree: &Path) {
    let mut server = LoggedServer::spawn("mcp-server", tree, &embedding_config()).await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "shutdown", "version": "0"}}}))
        .await;
    server.until(|message| message["id"] == 0).await;
    server
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    server
        .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "repo_index_refresh", "arguments": {}, "_meta": {"progressToken": "long"}}}))
        .await;
    // The first batch of chunks embedded (a debug build on a busy machine takes a while).
    loop {
        let message = server
            .next_within(EMBEDDING_GUARD)
            .await
            .expect("the server closed stdout");
        assert_ne!(message["id"], 1, "the refresh ended: {message}");
        if message["method"] == "notifications/progress"
            && message["params"]["message"]
                .as_str()
                .unwrap()
                .starts_with("embedded")
        {
            eprintln!("embedding under way: {message}");
            break;
        }
    }
    let children = children(server.child.id().unwrap() as i32);

    let started = Instant::now();
    server.terminate();
    server.rest().await;
    let (code, elapsed) = server.exit(started, EXIT_GUARD).await;
    eprintln!("SIGTERM during an embedding refresh: exit {code:?} after {elapsed:.2?}");
    assert_eq!(code, Some(0));
    assert!(elapsed < GRACE, "{elapsed:?}");
    for child in children {
        assert!(is_gone(child), "process {child} outlived the server");
    }
}

/// The child processes of `pid` (every thread's).
fn children(pid: i32) -> Vec<i32> {
    let mut children = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let listed =
            std::fs::read_to_string(task.unwrap().path().join("children")).unwrap_or_default();
        children.extend(
            listed
                .split_whitespace()
                .map(|child| child.parse::<i32>().unwrap()),
        );
    }
    children
}
