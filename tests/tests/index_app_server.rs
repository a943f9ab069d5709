//! The project index through `tandem app-server`: the experimental `index/query`,
//! `index/refresh` and `index/progress` (payloads, the experimental gate, bad input), and the
//! agent's own `query_project` model tool (offered only in a project, reported as a
//! `dynamicToolCall` item, its output in the next model request).

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::path::Path;

use common::tool_turns::{completed_item, config, find, tool_output};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_function_call, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer};

const LEXICAL: &str = "\n[query_project_index]\nauto_warm = false\nembedding_model = \"none\"\n";

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A git working tree with two sources and a doc.
fn project() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    std::fs::create_dir_all(root.join(".git/info")).unwrap();
    write(
        root,
        "src/auth.rs",
        "pub fn check_bearer_token(header: &str) -> bool {\n    header.starts_with(\"Bearer \")\n}\n",
    );
    write(
        root,
        "src/storage.rs",
        "pub struct BlobStore;\n\nimpl BlobStore {\n    pub fn put_object(&self) {}\n}\n",
    );
    write(root, "docs/guide.md", "# Guide\n\nBlobs live on disk.\n");
    repo
}

async fn app_server(cwd: &Path, config_toml: &str, experimental: bool) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config_toml.to_string(),
        args: Vec::new(),
        home: None,
        cwd: Some(cwd.to_path_buf()),
    })
    .await;
    server
        .initialize_with(json!({"experimentalApi": experimental}))
        .await;
    server
}

fn canonical(path: &Path) -> String {
    path.canonicalize().unwrap().display().to_string()
}

#[tokio::test]
async fn index_methods_refresh_query_and_report_progress() {
    let repo = project();
    let mut server = app_server(repo.path(), LEXICAL, true).await;

    let refreshed = server.request("index/refresh", json!({})).await.unwrap();
    assert_eq!(
        refreshed,
        json!({
            "repoRoot": canonical(repo.path()),
            "stats": {"scannedFiles": 3, "updatedFiles": 3, "removedFiles": 0, "indexedChunks": 3, "skippedFiles": 0, "embeddedChunks": 0},
            "embeddingStatus": {"modeUsed": "skip", "ready": false, "reason": null, "detail": null, "progress": null},
        })
    );
    // Every progress notification came before the response (the client read them into the
    // backlog while waiting for it).
    let progress: Vec<Value> = server
        .drain_backlog()
        .into_iter()
        .filter(|message| message["method"] == "index/progress")
        .map(|message| message["params"].clone())
        .collect();
    let root = repo.path().display().to_string();
    assert_eq!(
        progress.first().unwrap(),
        &json!({"repoRoot": root, "phase": "scanning", "done": 3, "total": null})
    );
    assert_eq!(
        progress.last().unwrap(),
        &json!({"repoRoot": root, "phase": "indexing", "done": 3, "total": 3})
    );

    write(
        repo.path(),
        "src/auth.rs",
        "pub fn verify_session_cookie(cookie: &str) -> bool {\n    !cookie.is_empty()\n}\n",
    );
    let answer = server
        .request(
            "index/query",
            json!({"query": "session cookie", "limit": 1, "fileGlobs": ["src/**"]}),
        )
        .await
        .unwrap();
    assert_eq!(answer["refresh"]["updatedFiles"], 1);
    assert_eq!(answer["limit"], 1);
    assert_eq!(answer["embeddingModel"], "none");
    assert_eq!(
        answer["results"],
        json!([{
            "path": "src/auth.rs",
            "lineRange": {"start": 1, "end": 3},
            "snippet": "pub fn verify_session_cookie(cookie: &str) -> bool {\n    !cookie.is_empty()\n}",
            "score": 1.0,
        }])
    );
}

#[tokio::test]
async fn index_methods_reject_bad_input_and_need_the_experimental_capability() {
    let repo = project();
    let mut server = app_server(repo.path(), LEXICAL, true).await;
    let cases = [
        (
            "index/query",
            json!({"query": "   "}),
            "query must not be empty",
        ),
        (
            "index/query",
            json!({"query": "blob", "alpha": 1.5}),
            "alpha must be between 0.0 and 1.0",
        ),
        (
            "index/refresh",
            json!({"repoRoot": "no/such/dir"}),
            "no/such/dir",
        ),
        (
            "index/refresh",
            json!({"repoRoot": "docs/guide.md"}),
            "is not a directory",
        ),
        (
            "index/query",
            json!({"query": "blob", "repoRoot": ".."}),
            "[query_project_index] roots",
        ),
        (
            "index/refresh",
            json!({"requireEmbeddings": true}),
            "embeddings are required but not available",
        ),
    ];
    for (method, params, expected) in cases {
        let error = server.request(method, params.clone()).await.unwrap_err();
        assert_eq!(error["code"], -32600, "{method} {params}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(expected), "{method} {params}: {message}");
    }

    let mut stable = app_server(repo.path(), LEXICAL, false).await;
    let error = stable
        .request("index/query", json!({"query": "blob"}))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        json!({"code": -32600, "message": "index/query requires experimentalApi capability"})
    );
}

/// A server on the mock model with a thread whose cwd is `cwd`.
async fn thread_in(model: &MockModel, cwd: &Path) -> (TestServer, String) {
    let config_toml = format!(
        "{}{LEXICAL}",
        config(&model.base_url(), "never", "read-only", "responses")
    );
    let mut server = TestServer::spawn(&config_toml).await;
    server.initialize().await;
    let result = server
        .request("thread/start", json!({"cwd": cwd.to_str().unwrap()}))
        .await
        .unwrap();
    let thread_id = result["thread"]["id"].as_str().unwrap().to_string();
    (server, thread_id)
}

fn offered_tools(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_agent_searches_the_index_with_query_project() {
    let repo = project();
    let model = MockModel::start().await;
    let arguments = json!({"query": "bearer token", "limit": 2}).to_string();
    model.push_all([
        MockResponse::sse(responses_function_call(
            "call_q",
            "query_project",
            &arguments,
        )),
        MockResponse::sse(responses_function_call(
            "call_bad",
            "query_project",
            &json!({"query": ""}).to_string(),
        )),
        MockResponse::sse(responses_text("msg_1", &["found it"])),
    ]);
    let (mut server, thread_id) = thread_in(&model, repo.path()).await;
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "where is auth?"}]}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;

    let requests = model.requests();
    assert_eq!(requests.len(), 3);
    assert!(offered_tools(&requests[0]).contains(&"query_project".to_string()));
    assert!(
        requests[0]["instructions"]
            .as_str()
            .unwrap()
            .contains("search the project index with it before opening files")
    );

    let output: Value = serde_json::from_str(&tool_output_in(&requests[1], "call_q")).unwrap();
    assert_eq!(output["repo_root"], canonical(repo.path()));
    assert_eq!(output["results"][0]["path"], "src/auth.rs");
    assert_eq!(
        output["results"][0]["line_range"],
        json!({"start": 1, "end": 3})
    );
    assert!(output.get("threadId").is_none());

    let started = find(&messages, "item/started")
        .into_iter()
        .map(|message| &message["params"]["item"])
        .find(|item| item["type"] == "dynamicToolCall")
        .unwrap();
    assert_eq!(started["status"], "inProgress");
    assert_eq!(started["tool"], "query_project");
    assert_eq!(started["contentItems"], Value::Null);
    let item = completed_item(&messages, "dynamicToolCall");
    assert_eq!(item["id"], "call_q");
    assert_eq!(item["namespace"], Value::Null);
    assert_eq!(
        item["arguments"],
        json!({"query": "bearer token", "limit": 2})
    );
    assert_eq!(item["status"], "completed");
    assert_eq!(item["success"], true);
    let text = item["contentItems"][0]["text"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), output);

    // A bad call answers the model with the reason and fails its item; the turn goes on.
    let refused = tool_output(&model, "call_bad");
    assert_eq!(refused, "query_project failed: query must not be empty");
    let failed = find(&messages, "item/completed")
        .into_iter()
        .map(|message| &message["params"]["item"])
        .find(|item| item["id"] == "call_bad")
        .unwrap();
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["success"], false);
    assert_eq!(
        find(&messages, "turn/completed")[0]["params"]["turn"]["status"],
        "completed"
    );
}

#[tokio::test]
async fn query_project_is_not_offered_outside_a_project() {
    let plain = tempfile::tempdir().unwrap();
    write(plain.path(), "notes.txt", "bearer token\n");
    let model = MockModel::start().await;
    model.push_all([
        MockResponse::sse(responses_function_call(
            "call_q",
            "query_project",
            &json!({"query": "bearer"}).to_string(),
        )),
        MockResponse::sse(responses_text("msg_1", &["ok"])),
    ]);
    let (mut server, thread_id) = thread_in(&model, plain.path()).await;
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "search"}]}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;
    let requests = model.requests();
    assert!(!offered_tools(&requests[0]).contains(&"query_project".to_string()));
    assert_eq!(
        tool_output(&model, "call_q"),
        "unsupported call: query_project"
    );
    assert!(
        !plain.path().join(".tandem").exists(),
        "nothing is indexed outside a project"
    );
}

fn tool_output_in(request: &Value, call_id: &str) -> String {
    request["input"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["type"] == "function_call_output" && item["call_id"] == call_id)
        .and_then(|item| item["output"].as_str())
        .unwrap_or_else(|| panic!("no output for {call_id} in {request:#}"))
        .to_string()
}
