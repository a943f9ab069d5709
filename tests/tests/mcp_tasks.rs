//! The Tasks extension of MCP 2026-07-28 on `tandem mcp-server`, over real HTTP and real stdio
//! with the offline `demo` provider (its tour runs `uname -srm`, which needs approval under
//! `untrusted`, then proposes a patch adding `tandem-demo.txt`): a `codex` call of a client
//! that declares the extension is answered at once with a task; `tasks/get` shows it waiting
//! for the approval (`input_required`), `tasks/update` delivers the answers, and the task ends
//! `completed` with the call's result. Another principal's `tasks/get` and `tasks/update` are
//! "not found"; without the extension the methods are `-32021`; with Redis, another node
//! answers `tasks/get` and forwards `tasks/update` to the task's node (which holds the lease of
//! the task's thread meanwhile); a 2025 session works beside a running task. A task's
//! `codex/event` messages reach its principal's `subscriptions/listen` streams and no other
//! principal's; one principal has at most 16 unfinished tasks (with the mock model holding
//! their turns), and another principal's tasks and finished tasks do not count.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::{McpHttp, McpStdio, SseReader};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::mock_config;

const DEMO_CONFIG: &str = "model_provider = \"demo\"\napproval_policy = \"untrusted\"\n";
const DEMO_FILE: &str = "tandem-demo.txt";
const TASKS: &str = "io.modelcontextprotocol/tasks";
const ALICE: &str = "alice-token-0123456789";
const BOB: &str = "bob-token-9876543210";
/// How long a task may take to reach the status a test waits for.
const TASK_DEADLINE: Duration = Duration::from_secs(30);

/// `_meta` of a 2026 request declaring `capabilities`.
fn meta_with(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "tasks-test", "version": "1.0"},
    })
}

/// `_meta` of a client that declares the Tasks extension.
fn meta() -> Value {
    meta_with(json!({"elicitation": {}, "extensions": {TASKS: {}}}))
}

fn codex_params(cwd: &Path) -> Value {
    json!({"name": "codex", "_meta": meta(), "arguments": {
        "prompt": "Show me what you can do.",
        "cwd": cwd.to_string_lossy(),
        "approval-policy": "untrusted",
        "sandbox": "workspace-write",
    }})
}

fn approve() -> Value {
    json!({"action": "accept", "content": {"decision": "approved"}})
}

/// One 2026 request over HTTP, acting for `token` (none: `--auth none`), answered as JSON.
async fn post(server: &McpHttp, token: Option<&str>, method: &str, params: Value) -> Value {
    let name = params
        .get("taskId")
        .or_else(|| params.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = server.post_2026(&body, name.as_deref(), "application/json");
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.unwrap();
    response.json().await.unwrap()
}

fn task_params(task_id: &str) -> Value {
    json!({"taskId": task_id, "_meta": meta()})
}

/// Polls `tasks/get` (at the interval the task suggests) until the task is in `status` or has
/// ended; returns that `tasks/get` result.
async fn wait_for(server: &McpHttp, token: Option<&str>, task_id: &str, status: &str) -> Value {
    let started = Instant::now();
    loop {
        let got = post(server, token, "tasks/get", task_params(task_id)).await;
        let result = got["result"].clone();
        let now = result["status"].as_str().unwrap_or_default().to_string();
        if now == status || ["completed", "failed", "cancelled"].contains(&now.as_str()) {
            return result;
        }
        assert!(started.elapsed() < TASK_DEADLINE, "task stuck: {got}");
        let interval = result["pollIntervalMs"].as_u64().unwrap_or(100).min(200);
        tokio::time::sleep(Duration::from_millis(interval)).await;
    }
}

/// The one pending question of an `input_required` task: its key and its kind
/// (`codex_elicitation`).
fn question(task: &Value) -> (String, String) {
    assert_eq!(task["status"], "input_required", "{task}");
    let requests = task["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{task}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create", "{task}");
    assert!(
        request["params"]["requestedSchema"]["properties"]["decision"].is_object(),
        "{task}"
    );
    let kind = request["params"]["codex_elicitation"]
        .as_str()
        .unwrap()
        .to_string();
    (key.clone(), kind)
}

#[tokio::test]
async fn over_http_a_codex_task_is_approved_through_tasks_update_and_belongs_to_its_principal() {
    let workspace = tempfile::tempdir().unwrap();
    let server = two_principals(DEMO_CONFIG).await;

    // The extension is announced.
    let discover = post(
        &server,
        Some(ALICE),
        "server/discover",
        json!({"_meta": meta()}),
    )
    .await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"][TASKS],
        json!({}),
        "{discover}"
    );

    let created = post(
        &server,
        Some(ALICE),
        "tools/call",
        codex_params(workspace.path()),
    )
    .await;
    let created = &created["result"];
    assert_eq!(created["resultType"], "task", "{created}");
    assert!(created.get("requestState").is_none(), "{created}");
    assert!(created.get("result").is_none(), "{created}");
    let task_id = created["taskId"].as_str().unwrap().to_string();
    assert!(created["ttlMs"].as_u64().unwrap() > 0, "{created}");

    let waiting = wait_for(&server, Some(ALICE), &task_id, "input_required").await;
    let (command_key, kind) = question(&waiting);
    assert_eq!(kind, "exec-approval");

    // Bob neither sees nor answers Alice's task.
    let foreign = post(&server, Some(BOB), "tasks/get", task_params(&task_id)).await;
    assert_eq!(foreign["error"]["code"], -32602, "{foreign}");
    assert_eq!(foreign["error"]["message"], "task not found", "{foreign}");
    let mut answer = task_params(&task_id);
    answer["inputResponses"] = json!({&command_key: approve()});
    let foreign = post(&server, Some(BOB), "tasks/update", answer.clone()).await;
    assert_eq!(foreign["error"]["code"], -32602, "{foreign}");
    let foreign = post(&server, Some(BOB), "tasks/cancel", task_params(&task_id)).await;
    assert_eq!(foreign["error"]["code"], -32602, "{foreign}");
    let still = post(&server, Some(ALICE), "tasks/get", task_params(&task_id)).await;
    assert_eq!(still["result"]["status"], "input_required", "{still}");

    // Without the extension the task methods need it.
    let mut undeclared = task_params(&task_id);
    undeclared["_meta"] = meta_with(json!({}));
    let refused = post(&server, Some(ALICE), "tasks/get", undeclared).await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");

    // Alice's answer: acknowledged with an empty result, and the call goes on.
    let ack = post(&server, Some(ALICE), "tasks/update", answer.clone()).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("status").is_none(), "{ack}");
    let waiting = wait_for(&server, Some(ALICE), &task_id, "input_required").await;
    let (patch_key, kind) = question(&waiting);
    assert_eq!(kind, "patch-approval");
    assert_ne!(patch_key, command_key);
    // The first key was used up: answering it again changes nothing.
    let replay = post(&server, Some(ALICE), "tasks/update", answer).await;
    assert_eq!(replay["result"]["resultType"], "complete", "{replay}");
    let unchanged = post(&server, Some(ALICE), "tasks/get", task_params(&task_id)).await;
    assert_eq!(question(&unchanged["result"]).0, patch_key);
    assert!(!workspace.path().join(DEMO_FILE).exists());

    let mut answer = task_params(&task_id);
    answer["inputResponses"] = json!({&patch_key: approve()});
    post(&server, Some(ALICE), "tasks/update", answer).await;
    let done = wait_for(&server, Some(ALICE), &task_id, "completed").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert!(
        done["result"]["structuredContent"]["threadId"].is_string(),
        "{done}"
    );
    assert!(done.get("inputRequests").is_none(), "{done}");
    assert!(workspace.path().join(DEMO_FILE).exists());
    // Cancelling a finished task is acknowledged and changes nothing.
    let ack = post(&server, Some(ALICE), "tasks/cancel", task_params(&task_id)).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let after = post(&server, Some(ALICE), "tasks/get", task_params(&task_id)).await;
    assert_eq!(after["result"]["status"], "completed", "{after}");
}

#[tokio::test]
async fn over_http_a_cancelled_task_ends_cancelled_and_a_2025_session_works_beside_it() {
    let workspace = tempfile::tempdir().unwrap();
    let server = McpHttp::spawn(DEMO_CONFIG, &[]).await;
    let created = post(&server, None, "tools/call", codex_params(workspace.path())).await;
    let task_id = created["result"]["taskId"].as_str().unwrap().to_string();
    let waiting = wait_for(&server, None, &task_id, "input_required").await;
    question(&waiting);

    // A 2025 client on the same server while the task waits.
    let (session, initialized) = server.initialize("2025-11-25", json!({})).await;
    assert_eq!(
        initialized["protocolVersion"], "2025-11-25",
        "{initialized}"
    );
    let listed = server
        .post_accept(
            Some(&session),
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            "application/json",
        )
        .send()
        .await
        .unwrap();
    let listed: Value = listed.json().await.unwrap();
    assert!(
        listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool["name"] == "codex"),
        "{listed}"
    );
    // A 2026 client that does not declare the extension gets a plain call: here its
    // approvals are decided by the fallback (decline), and it completes.
    let mut plain = codex_params(workspace.path());
    plain["_meta"] = meta_with(json!({}));
    let plain = post(&server, None, "tools/call", plain).await;
    assert_eq!(plain["result"]["resultType"], "complete", "{plain}");
    assert!(plain["result"].get("taskId").is_none(), "{plain}");

    let ack = post(&server, None, "tasks/cancel", task_params(&task_id)).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = wait_for(&server, None, &task_id, "cancelled").await;
    assert_eq!(done["status"], "cancelled", "{done}");
    assert!(!workspace.path().join(DEMO_FILE).exists());
    // An unknown task is "not found" too.
    let unknown = post(&server, None, "tasks/get", task_params("no-such-task")).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

#[tokio::test]
async fn with_redis_another_node_answers_tasks_get_and_forwards_tasks_update() {
    let redis = tandem_tests::cluster::Redis::start().await;
    let mut nodes = Vec::new();
    for node_id in ["a", "b"] {
        let home = tandem_tests::mcp::home_with(&format!(
            "{DEMO_CONFIG}[mcp.distributed]\nnode_id = \"{node_id}\"\nlease_ttl = \"300ms\"\n"
        ));
        let path = home.path().to_path_buf();
        nodes.push(McpHttp::spawn_in(path, Some(home), &["--redis", &redis.url], "info").await);
    }
    let workspace = tempfile::tempdir().unwrap();
    let created = post(
        &nodes[0],
        None,
        "tools/call",
        codex_params(workspace.path()),
    )
    .await;
    let task_id = created["result"]["taskId"].as_str().unwrap().to_string();
    // While the task runs, node a holds (and renews) its thread's lease.
    let started = Instant::now();
    let lease = loop {
        let leases = redis.cli(&["KEYS", "tandem:lease:*"]).await;
        if let Some(lease) = leases.lines().next().filter(|lease| !lease.is_empty()) {
            break lease.to_string();
        }
        assert!(started.elapsed() < TASK_DEADLINE, "no lease taken");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(redis.cli(&["GET", &lease]).await, "a");
    // Node b knows the task, and sees it wait.
    let at_once = post(&nodes[1], None, "tasks/get", task_params(&task_id)).await;
    assert_eq!(at_once["result"]["taskId"], task_id.as_str(), "{at_once}");
    for _ in 0..2 {
        let waiting = wait_for(&nodes[1], None, &task_id, "input_required").await;
        let (key, _) = question(&waiting);
        let mut answer = task_params(&task_id);
        answer["inputResponses"] = json!({&key: approve()});
        let ack = post(&nodes[1], None, "tasks/update", answer).await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
        // The answer reached node a: the question is gone once its call goes on.
        let started = Instant::now();
        loop {
            let got = post(&nodes[1], None, "tasks/get", task_params(&task_id)).await;
            if got["result"]["inputRequests"]
                .as_object()
                .is_none_or(|requests| !requests.contains_key(&key))
            {
                break;
            }
            assert!(
                started.elapsed() < TASK_DEADLINE,
                "answer not delivered: {got}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let done = wait_for(&nodes[1], None, &task_id, "completed").await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert!(workspace.path().join(DEMO_FILE).exists());
}

#[tokio::test]
async fn over_stdio_a_codex_task_runs_to_completion() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    let created = server
        .request(json!(1), "tools/call", codex_params(workspace.path()))
        .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_string();
    let mut next_id = 2;
    let started = Instant::now();
    let done = loop {
        let got = server
            .request(json!(next_id), "tasks/get", task_params(&task_id))
            .await;
        next_id += 1;
        let task = got["result"].clone();
        match task["status"].as_str().unwrap() {
            "input_required" => {
                let (key, _) = question(&task);
                let mut answer = task_params(&task_id);
                answer["inputResponses"] = json!({key: approve()});
                let ack = server.request(json!(next_id), "tasks/update", answer).await;
                next_id += 1;
                assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
            }
            "working" => {
                assert!(started.elapsed() < TASK_DEADLINE, "task stuck: {got}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            _ => break task,
        }
    };
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert!(workspace.path().join(DEMO_FILE).exists());
    // No server request at any point.
    assert!(
        server
            .log
            .iter()
            .all(|message| message["method"] != "elicitation/create")
    );
    assert_eq!(server.shutdown().await, Some(0));
}

/// A server with the principals `alice` and `bob`, for `config`.
async fn two_principals(config: &str) -> McpHttp {
    let home = tandem_tests::mcp::home_with(config);
    let tokens = home.path().join("tokens");
    std::fs::write(&tokens, format!("alice {ALICE}\nbob {BOB}\n")).unwrap();
    let tokens_arg = tokens.to_str().unwrap().to_string();
    let path = home.path().to_path_buf();
    McpHttp::spawn_in(
        path,
        Some(home),
        &["--auth-token-file", &tokens_arg],
        "info",
    )
    .await
}

/// Opens a `subscriptions/listen` stream of `token` asking for Tandem's call messages, and
/// reads its acknowledgement.
async fn listen(server: &McpHttp, token: &str, id: &str) -> SseReader {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
        "_meta": meta(),
        "notifications": {"io.tandem/codexEvents": true},
    }});
    let response = server
        .post_2026(&body, None, "text/event-stream")
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let mut stream = SseReader::new(response);
    let ack = stream.next().await.unwrap().json();
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    stream
}

/// A `codex` call that needs no approval, as a task when `meta` declares the extension.
fn unattended_codex(cwd: &Path, meta: Value) -> Value {
    json!({"name": "codex", "_meta": meta, "arguments": {
        "prompt": "Show me what you can do.",
        "cwd": cwd.to_string_lossy(),
        "approval-policy": "never",
        "sandbox": "workspace-write",
    }})
}

#[tokio::test]
async fn over_http_a_tasks_codex_events_reach_its_principals_listen_streams_only() {
    let server = two_principals(DEMO_CONFIG).await;
    let mut alices = listen(&server, ALICE, "alice-listen").await;
    let mut bobs = listen(&server, BOB, "bob-listen").await;

    // Alice's task: answered at once, so its events have no request stream to go to.
    let workspace = tempfile::tempdir().unwrap();
    let created = post(
        &server,
        Some(ALICE),
        "tools/call",
        unattended_codex(workspace.path(), meta()),
    )
    .await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_string();
    let done = wait_for(&server, Some(ALICE), &task_id, "completed").await;
    assert_eq!(done["status"], "completed", "{done}");
    let thread_id = done["result"]["structuredContent"]["threadId"].clone();
    assert!(thread_id.is_string(), "{done}");
    // Its events are on Alice's listen stream, tagged with that subscription.
    let event = alices.next().await.unwrap().json();
    assert_eq!(event["method"], "codex/event", "{event}");
    assert_eq!(event["params"]["_meta"]["threadId"], thread_id, "{event}");
    assert_eq!(
        event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "alice-listen"
    );

    // Bob's stream got nothing of Alice's task: its first event is of his own call, made
    // after her task had ended (a plain call: his request does not declare the extension).
    let workspace = tempfile::tempdir().unwrap();
    let plain = meta_with(json!({"elicitation": {}}));
    let called = post(
        &server,
        Some(BOB),
        "tools/call",
        unattended_codex(workspace.path(), plain),
    )
    .await;
    assert_eq!(called["result"]["isError"], false, "{called}");
    let bob_thread = called["result"]["structuredContent"]["threadId"].clone();
    assert_ne!(bob_thread, thread_id);
    let event = bobs.next().await.unwrap().json();
    assert_eq!(event["params"]["_meta"]["threadId"], bob_thread, "{event}");
    assert_eq!(
        event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "bob-listen"
    );
}

#[tokio::test]
async fn over_http_one_principal_has_at_most_16_unfinished_tasks() {
    const CAP: usize = 16;
    let model = MockModel::start().await;
    let mut gates = Vec::new();
    for index in 0..CAP {
        let (response, gate) =
            MockResponse::gated(responses_text(&format!("msg_{index}"), &["held"]));
        model.push(response);
        gates.push(gate);
    }
    // Bob's task, then Alice's after hers have ended, answer at once.
    model.push(MockResponse::sse(responses_text("msg_bob", &["bob"])));
    model.push(MockResponse::sse(responses_text("msg_again", &["again"])));
    // The held streams stay silent while the others run: no idle-timeout retry may take the
    // next response from the mock.
    let config = mock_config(&model.base_url()).replace(
        "stream_idle_timeout_ms = 5000",
        "stream_idle_timeout_ms = 120000",
    );
    let server = two_principals(&config).await;
    let workspace = tempfile::tempdir().unwrap();
    let start = async |token: &str| {
        post(
            &server,
            Some(token),
            "tools/call",
            unattended_codex(workspace.path(), meta()),
        )
        .await
    };

    let mut task_ids = Vec::new();
    for _ in 0..CAP {
        let created = start(ALICE).await;
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        task_ids.push(created["result"]["taskId"].as_str().unwrap().to_string());
    }
    // Every one of them holds a model response: all 16 run, none has ended.
    for gate in &gates {
        assert!(gate.wait_requested(TASK_DEADLINE).await);
    }
    let refused = start(ALICE).await;
    assert_eq!(refused["error"]["code"], -32001, "{refused}");
    assert!(refused.get("result").is_none(), "{refused}");
    for task_id in &task_ids {
        let got = post(&server, Some(ALICE), "tasks/get", task_params(task_id)).await;
        assert_eq!(got["result"]["status"], "working", "{got}");
    }

    // The cap is per principal: Bob's task runs beside Alice's 16.
    let bobs = start(BOB).await;
    assert_eq!(bobs["result"]["resultType"], "task", "{bobs}");
    let bobs = bobs["result"]["taskId"].as_str().unwrap().to_string();
    let done = wait_for(&server, Some(BOB), &bobs, "completed").await;
    assert_eq!(
        done["result"]["structuredContent"]["content"], "bob",
        "{done}"
    );

    // Finished tasks no longer count.
    for gate in &gates {
        gate.release_all();
    }
    for task_id in &task_ids {
        let done = wait_for(&server, Some(ALICE), task_id, "completed").await;
        assert_eq!(done["status"], "completed", "{done}");
    }
    let again = start(ALICE).await;
    assert_eq!(again["result"]["resultType"], "task", "{again}");
}
