//! Distributed `tandem mcp-server --http --redis` nodes against a real `redis-server` and a
//! real `nginx` round-robin front: a session split over three nodes, answers and
//! cancellations that land on another node, GET-stream failover with `Last-Event-ID`,
//! DELETE and TTL expiry seen everywhere, session isolation, and Redis restarting mid-run.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::cluster::{Endpoint, Nginx, Redis, start_node, tool_call};
use tandem_tests::cluster_turns::{json_call, message_type, until_turn_ends, wait_until_gone};
use tandem_tests::mcp::{McpHttp, SseReader, home_with};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text, token_deltas};

/// Redis, three nodes `a`, `b`, `c` and the model they share.
struct Cluster {
    redis: Redis,
    nodes: Vec<McpHttp>,
    model: MockModel,
}

impl Cluster {
    async fn start(extra_config: &str) -> Cluster {
        let redis = Redis::start().await;
        let model = MockModel::start().await;
        let mut nodes = Vec::new();
        for node_id in ["a", "b", "c"] {
            nodes.push(start_node(&model.base_url(), &redis.url, node_id, extra_config, &[]).await);
        }
        Cluster {
            redis,
            nodes,
            model,
        }
    }

    /// Three nodes on the offline `demo` provider (its tour asks for approvals).
    async fn start_demo() -> Cluster {
        let redis = Redis::start().await;
        let model = MockModel::start().await;
        let mut nodes = Vec::new();
        for node_id in ["a", "b", "c"] {
            let home = home_with(&format!(
                "model_provider = \"demo\"\napproval_policy = \"untrusted\"\n\n[mcp.distributed]\nnode_id = \"{node_id}\"\n"
            ));
            let path = home.path().to_path_buf();
            nodes.push(McpHttp::spawn_in(path, Some(home), &["--redis", &redis.url], "info").await);
        }
        Cluster {
            redis,
            nodes,
            model,
        }
    }

    fn node(&self, index: usize) -> Endpoint {
        Endpoint::of(&self.nodes[index])
    }

    async fn front(&self) -> Nginx {
        let upstreams: Vec<String> = self
            .nodes
            .iter()
            .map(|node| {
                node.url
                    .trim_start_matches("http://")
                    .trim_end_matches("/mcp")
                    .to_string()
            })
            .collect();
        Nginx::start(&upstreams).await
    }
}

#[tokio::test]
async fn a_session_split_over_three_nodes_gets_every_message_on_the_right_stream() {
    let cluster = Cluster::start("").await;
    cluster.model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["Split", " works."],
    )));
    cluster.model.push(MockResponse::sse(responses_text(
        "msg_2",
        &["Through", " A."],
    )));
    let (a, b, c) = (cluster.node(0), cluster.node(1), cluster.node(2));
    let session = b.initialize(json!({})).await;
    let get = a.get(&session, None).await;
    assert_eq!(get.status(), 200);
    let mut get_stream = SseReader::new(get);

    // The call on C: progress, codex/event and the result on C's POST stream.
    let mut request = tool_call(5, "codex", json!({"prompt": "Hello?"}));
    request["params"]["_meta"] = json!({"progressToken": 7});
    let response = c.post(&session, &request).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let messages: Vec<Value> = SseReader::new(response)
        .rest()
        .await
        .iter()
        .map(|event| event.json())
        .collect();
    assert!(
        messages
            .iter()
            .any(|message| message["method"] == "notifications/progress"
                && message["params"]["progressToken"] == 7)
    );
    assert!(
        messages
            .iter()
            .filter(|message| message["method"] == "codex/event")
            .count()
            >= 5
    );
    let last = messages.last().unwrap();
    assert_eq!(last["id"], 5);
    assert_eq!(
        last["result"]["structuredContent"]["content"],
        "Split works."
    );
    let thread_id = last["result"]["structuredContent"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();

    // A JSON-mode call on C: its events and a log message travel to the GET stream on A.
    let reply = c
        .post_json(
            &session,
            &json!({"jsonrpc": "2.0", "id": 6, "method": "logging/setLevel", "params": {"level": "debug"}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    let reply: Value = json_call(
        &c,
        &session,
        &tool_call(
            8,
            "codex-reply",
            json!({"threadId": thread_id, "prompt": "More."}),
        ),
    )
    .await;
    assert_eq!(
        reply["result"]["structuredContent"]["content"],
        "Through A."
    );
    let on_a = until_turn_ends(&mut get_stream).await;
    assert!(
        on_a.iter()
            .all(|message| message["params"]["_meta"]["requestId"] == 8),
        "{on_a:?}"
    );
    assert!(on_a.iter().all(|message| message.get("result").is_none()));

    // A standalone log message (the model fails; the engine's error event is logged) on A.
    cluster
        .model
        .push(MockResponse::error(400, "bad request from the test"));
    let failed: Value = json_call(
        &c,
        &session,
        &tool_call(
            9,
            "codex-reply",
            json!({"threadId": thread_id, "prompt": "Fail."}),
        ),
    )
    .await;
    assert_eq!(failed["result"]["isError"], true, "{failed}");
    let mut logged = None;
    while logged.is_none() {
        let message = get_stream.next().await.expect("GET stream open").json();
        if message["method"] == "notifications/message" {
            logged = Some(message);
        }
    }
    assert_eq!(logged.unwrap()["params"]["level"], "error");

    // Each node reports its own metrics.
    let metrics = c.metrics().await;
    assert!(
        metrics.contains("tandem_mcp_bus_publish_seconds_count"),
        "{metrics}"
    );
    assert!(
        a.metrics()
            .await
            .contains("tandem_mcp_bus_deliver_seconds_count")
    );
}

#[tokio::test]
async fn a_cancellation_sent_to_another_node_stops_the_call() {
    let cluster = Cluster::start("").await;
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &["never", " done"]));
    cluster.model.push(response);
    let (a, b, c) = (cluster.node(0), cluster.node(1), cluster.node(2));
    let session = a.initialize(json!({})).await;
    let response = c
        .post(
            &session,
            &tool_call(4, "codex", json!({"prompt": "Stop me."})),
        )
        .send()
        .await
        .unwrap();
    let mut stream = SseReader::new(response);
    gate.release(1);
    loop {
        let message = stream.next().await.unwrap().json();
        if message_type(&message) == "task_started" {
            break;
        }
    }
    let cancel = b
        .post(
            &session,
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(cancel.status(), 202);
    let rest: Vec<Value> = stream
        .rest()
        .await
        .iter()
        .map(|event| event.json())
        .collect();
    let last = rest.last().expect("events after the cancellation");
    assert_eq!(message_type(last), "turn_aborted");
    assert_eq!(last["params"]["msg"]["reason"], "interrupted");
    assert!(rest.iter().all(|message| message.get("id").is_none()));
    drop(gate);
}

fn delta_index(message: &Value) -> Option<usize> {
    let text = message.to_string();
    if !text.contains("agent_message_content_delta") {
        return None;
    }
    let start = text.find("tok")? + 3;
    let digits: String = text[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

#[tokio::test]
async fn losing_the_node_of_the_get_stream_mid_turn_loses_and_duplicates_nothing() {
    const DELTAS: usize = 2_000;
    let mut cluster = Cluster::start("").await;
    let nginx = cluster.front().await;
    let front = Endpoint::new(&nginx.url);
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &token_deltas(DELTAS)));
    cluster.model.push(response);
    let (a, c) = (cluster.node(0), cluster.node(2));
    let session = front.initialize(json!({})).await;
    let get = a.get(&session, None).await;
    assert_eq!(get.status(), 200);
    let mut get_stream = SseReader::new(get);

    // The turn runs on C; its events go to the GET stream (JSON-mode POST).
    let call = tokio::spawn({
        let c = c.clone();
        let session = session.clone();
        async move {
            let reply: Value = json_call(
                &c,
                &session,
                &tool_call(1, "codex", json!({"prompt": "Talk."})),
            )
            .await;
            reply
        }
    });
    gate.release(DELTAS / 4);
    let mut ids = Vec::new();
    let mut deltas = Vec::new();
    while deltas.len() < 300 {
        let event = get_stream.next().await.expect("GET stream open");
        ids.push(event.id.clone().unwrap());
        deltas.extend(delta_index(&event.json()));
    }
    // kill -9 the node holding the GET stream while the turn goes on.
    cluster.nodes[0].child.start_kill().unwrap();
    cluster.nodes[0].child.wait().await.unwrap();
    drop(get_stream);
    gate.release_all();

    let last_event_id = ids.last().unwrap().clone();
    let resumed = front.get(&session, Some(&last_event_id)).await;
    assert_eq!(resumed.status(), 200);
    let mut resumed = SseReader::new(resumed);
    loop {
        let event = resumed.next().await.expect("resumed stream open");
        ids.push(event.id.clone().unwrap());
        let message = event.json();
        deltas.extend(delta_index(&message));
        if message_type(&message) == "task_complete" {
            break;
        }
    }
    let reply = call.await.unwrap();
    assert_eq!(
        reply["result"]["structuredContent"]["content"]
            .as_str()
            .unwrap()
            .len(),
        token_deltas(DELTAS).concat().len()
    );
    assert_eq!(
        deltas,
        (0..DELTAS).collect::<Vec<_>>(),
        "every delta once, in order"
    );
    let expected_ids: Vec<String> = (1..=ids.len()).map(|seq| format!("0/{seq}")).collect();
    assert_eq!(ids, expected_ids);
}

#[tokio::test]
async fn delete_and_expiry_are_seen_on_every_node_and_sessions_stay_apart() {
    let cluster = Cluster::start("session_ttl = \"2s\"").await;
    let (a, b, c) = (cluster.node(0), cluster.node(1), cluster.node(2));

    // DELETE on C ends a session that A created and B and C have served.
    let deleted = a.initialize(json!({})).await;
    for node in [&a, &b, &c] {
        assert_eq!(node.list_status(&deleted).await, 200);
    }
    assert_eq!(c.delete(&deleted).await, 204);
    for node in [&a, &b, &c] {
        assert_eq!(node.list_status(&deleted).await, 404);
    }
    assert_eq!(b.delete(&deleted).await, 404);

    // Expiry: a session nobody touches for the TTL is gone on every node.
    let expiring = b.initialize(json!({})).await;
    assert_eq!(a.list_status(&expiring).await, 200);
    wait_until_gone(&cluster.redis, &format!("tandem:session:{expiring}")).await;
    for node in [&a, &b, &c] {
        assert_eq!(node.list_status(&expiring).await, 404);
    }

    // Two sessions with GET streams on different nodes see only their own events.
    cluster
        .model
        .push(MockResponse::sse(responses_text("msg_1", &["One."])));
    cluster
        .model
        .push(MockResponse::sse(responses_text("msg_2", &["Two."])));
    let first = a.initialize(json!({})).await;
    let second = b.initialize(json!({})).await;
    let mut first_get = SseReader::new(a.get(&first, None).await);
    let mut second_get = SseReader::new(b.get(&second, None).await);
    for (session, id) in [(&first, 11), (&second, 22)] {
        let reply = c
            .post_json(session, &tool_call(id, "codex", json!({"prompt": "Hi."})))
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), 200);
    }
    for (stream, id) in [(&mut first_get, 11), (&mut second_get, 22)] {
        let seen = until_turn_ends(stream).await;
        assert!(
            seen.iter()
                .all(|message| message["params"]["_meta"]["requestId"] == id),
            "{seen:?}"
        );
    }
}

#[tokio::test]
async fn redis_restarting_mid_run_fails_requests_cleanly_and_no_node_exits() {
    let mut cluster = Cluster::start("").await;
    let (a, c) = (cluster.node(0), cluster.node(2));
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &["Kept", " going."]));
    cluster.model.push(response);
    let session = a.initialize(json!({})).await;
    let in_flight = c
        .post(&session, &tool_call(1, "codex", json!({"prompt": "Go."})))
        .send()
        .await
        .unwrap();
    let mut in_flight = SseReader::new(in_flight);
    gate.release(1);
    loop {
        if message_type(&in_flight.next().await.unwrap().json()) == "task_started" {
            break;
        }
    }
    cluster.redis.kill().await;

    // Requests that need Redis get 503 and a JSON-RPC error.
    let refused = c
        .post_json(
            &session,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 503);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32603, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unavailable"),
        "{body}"
    );

    // The call in flight on C ends (its POST stream is C's own) instead of hanging.
    gate.release_all();
    let rest: Vec<Value> = in_flight
        .rest()
        .await
        .iter()
        .map(|event| event.json())
        .collect();
    assert_eq!(
        rest.last().unwrap()["result"]["structuredContent"]["content"],
        "Kept going."
    );

    // Redis comes back empty; new sessions and calls succeed on every node.
    cluster.redis.restart().await;
    cluster
        .model
        .push(MockResponse::sse(responses_text("msg_2", &["Back."])));
    let fresh = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let response = a
                .client
                .post(&a.url)
                .header("content-type", "application/json")
                .header("accept", "application/json")
                .body(
                    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                        "protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"}}})
                    .to_string(),
                )
                .send()
                .await
                .unwrap();
            if response.status() == 200 {
                return response.headers()["mcp-session-id"]
                    .to_str()
                    .unwrap()
                    .to_string();
            }
            assert_eq!(response.status(), 503);
        }
    })
    .await
    .expect("the node recovers by itself");
    let reply: Value = json_call(
        &c,
        &fresh,
        &tool_call(3, "codex", json!({"prompt": "Again."})),
    )
    .await;
    assert_eq!(reply["result"]["structuredContent"]["content"], "Back.");
    for node in &mut cluster.nodes {
        assert!(node.child.try_wait().unwrap().is_none(), "a node exited");
    }
}

#[tokio::test]
async fn a_node_exits_with_a_clear_message_when_redis_is_unreachable() {
    let home = tandem_tests::mcp::home_with("");
    let port = tandem_tests::cluster::free_port();
    let output = tokio::process::Command::new(tandem_tests::server::tandem_binary())
        .args([
            "mcp-server",
            "--http",
            "127.0.0.1:0",
            "--auth",
            "none",
            "--redis",
        ])
        .arg(format!("redis://127.0.0.1:{port}/0"))
        .env("TANDEM_HOME", home.path())
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot reach Redis at redis://127.0.0.1:"),
        "{stderr}"
    );
}

/// The texts of the user messages the model received in its last request.
fn user_texts(model: &MockModel) -> String {
    model.requests().last().unwrap()["input"].to_string()
}

fn thread_of(result: &Value) -> String {
    result["result"]["structuredContent"]["threadId"]
        .as_str()
        .unwrap_or_else(|| panic!("no threadId in {result}"))
        .to_string()
}

#[tokio::test]
async fn codex_reply_on_another_node_runs_on_the_threads_owner_and_keeps_the_conversation() {
    let cluster = Cluster::start("").await;
    cluster
        .model
        .push(MockResponse::sse(responses_text("msg_1", &["Noted."])));
    cluster.model.push(MockResponse::sse(responses_text(
        "msg_2",
        &["It was", " 42."],
    )));
    let (a, b) = (cluster.node(0), cluster.node(1));
    let session = a.initialize(json!({})).await;
    let first = json_call(
        &a,
        &session,
        &tool_call(1, "codex", json!({"prompt": "Remember the number 42."})),
    )
    .await;
    let thread_id = thread_of(&first);
    assert_eq!(
        cluster
            .redis
            .cli(&["GET", &format!("tandem:lease:{thread_id}")])
            .await,
        "a"
    );

    // On B, streamed: the events and the result come back through B.
    let response = b
        .post(
            &session,
            &tool_call(
                2,
                "codex-reply",
                json!({"threadId": thread_id, "prompt": "Which number?"}),
            ),
        )
        .send()
        .await
        .unwrap();
    let messages: Vec<Value> = SseReader::new(response)
        .rest()
        .await
        .iter()
        .map(|event| event.json())
        .collect();
    assert!(
        messages
            .iter()
            .any(|message| message["method"] == "codex/event")
    );
    let last = messages.last().unwrap();
    assert_eq!(last["id"], 2);
    assert_eq!(last["result"]["structuredContent"]["content"], "It was 42.");
    let seen = user_texts(&cluster.model);
    assert!(seen.contains("Remember the number 42."), "{seen}");
    assert!(seen.contains("Noted."), "{seen}");
    assert!(
        cluster.nodes[1]
            .log_text()
            .contains("request forwarded to the thread's owner")
    );
}

#[tokio::test]
async fn a_dead_owners_thread_is_taken_over_with_its_history_after_the_lease_expires() {
    let mut cluster = Cluster::start("lease_ttl = \"1s\"").await;
    let nginx = cluster.front().await;
    let front = Endpoint::new(&nginx.url);
    cluster
        .model
        .push(MockResponse::sse(responses_text("msg_1", &["Noted."])));
    cluster.model.push(MockResponse::sse(responses_text(
        "msg_2",
        &["Still", " 42."],
    )));
    let a = cluster.node(0);
    let session = a.initialize(json!({})).await;
    let first = json_call(
        &a,
        &session,
        &tool_call(1, "codex", json!({"prompt": "Remember the number 42."})),
    )
    .await;
    let thread_id = thread_of(&first);
    let lease = format!("tandem:lease:{thread_id}");
    assert_eq!(cluster.redis.cli(&["GET", &lease]).await, "a");

    // kill -9 the owner between turns; its home is out of reach from here on.
    cluster.nodes[0].child.start_kill().unwrap();
    cluster.nodes[0].child.wait().await.unwrap();
    tokio::time::timeout(Duration::from_secs(20), async {
        // The lease TTL is the subject: wait for Redis to expire it.
        while cluster.redis.cli(&["EXISTS", &lease]).await != "0" {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the lease expires");

    let reply = json_call(
        &front,
        &session,
        &tool_call(
            2,
            "codex-reply",
            json!({"threadId": thread_id, "prompt": "Which number?"}),
        ),
    )
    .await;
    assert_eq!(
        reply["result"]["structuredContent"]["content"], "Still 42.",
        "{reply}"
    );
    let seen = user_texts(&cluster.model);
    assert!(seen.contains("Remember the number 42."), "{seen}");
    assert!(seen.contains("Noted."), "{seen}");
    let holder = cluster.redis.cli(&["GET", &lease]).await;
    assert!(holder == "b" || holder == "c", "{holder}");
}

/// Reads `stream` until the response to `id`, answering each elicitation through
/// `answer_on(kind)` with `decision`; the elicitations' kinds and the stream's messages.
async fn answer_elicitations(
    stream: &mut SseReader,
    session: &str,
    id: i64,
    answer_on: impl Fn(&str) -> (Endpoint, &'static str),
) -> (Vec<String>, Vec<Value>) {
    let mut kinds = Vec::new();
    let mut messages = Vec::new();
    loop {
        let message = stream.next().await.expect("stream open").json();
        if message["method"] == "elicitation/create" {
            let kind = message["params"]["_meta"]["codex_elicitation"]
                .as_str()
                .unwrap()
                .to_string();
            let request_id = message["id"].clone();
            assert!(
                request_id.is_string(),
                "cluster request ids name their node: {request_id}"
            );
            let (endpoint, decision) = answer_on(&kind);
            let reply = json!({"jsonrpc": "2.0", "id": request_id,
                "result": {"action": "accept", "content": {"decision": decision}}});
            let answered = endpoint.post(session, &reply).send().await.unwrap();
            assert_eq!(answered.status(), 202);
            kinds.push(kind);
        }
        let done = message.get("method").is_none() && message["id"] == id;
        messages.push(message);
        if done {
            return (kinds, messages);
        }
    }
}

#[tokio::test]
async fn approvals_answered_on_other_nodes_reach_the_turn_and_accept_for_session_holds() {
    let cluster = Cluster::start_demo().await;
    let workspace = tempfile::tempdir().unwrap();
    let (a, b, c) = (cluster.node(0), cluster.node(1), cluster.node(2));
    let session = a.initialize(json!({"elicitation": {}})).await;
    let arguments = json!({
        "prompt": "Show me what you can do.",
        "cwd": workspace.path().to_string_lossy(),
        "approval-policy": "untrusted",
        "sandbox": "workspace-write",
    });
    // The turn runs on C; the command's approval is answered on B, the others on A.
    let response = c
        .post(&session, &tool_call(3, "codex", arguments))
        .send()
        .await
        .unwrap();
    let mut stream = SseReader::new(response);
    let (kinds, messages) = answer_elicitations(&mut stream, &session, 3, |kind| {
        if kind == "exec-approval" {
            (b.clone(), "approved_for_session")
        } else {
            (a.clone(), "approved")
        }
    })
    .await;
    assert!(
        kinds.iter().any(|kind| kind == "exec-approval"),
        "{kinds:?}"
    );
    let command = messages
        .iter()
        .find(|message| message["params"]["msg"]["type"] == "exec_command_end")
        .expect("the command ran");
    assert_eq!(command["params"]["msg"]["status"], "completed", "{command}");
    let last = messages.last().unwrap();
    assert_eq!(last["result"]["isError"], false, "{last}");
    let thread_id = thread_of(last);

    // The next turn, sent to B, runs on C (the thread's owner): the command is not asked
    // about again; what is asked arrives on B and is answered on A.
    let response = b
        .post(
            &session,
            &tool_call(
                4,
                "codex-reply",
                json!({"threadId": thread_id, "prompt": "Again."}),
            ),
        )
        .send()
        .await
        .unwrap();
    let mut stream = SseReader::new(response);
    let (kinds, messages) =
        answer_elicitations(&mut stream, &session, 4, |_| (a.clone(), "approved")).await;
    assert!(
        !kinds.iter().any(|kind| kind == "exec-approval"),
        "{kinds:?}"
    );
    assert_eq!(messages.last().unwrap()["result"]["isError"], false);
}
