//! Cluster-wide rules of distributed `tandem mcp-server --http --redis` nodes, against a real
//! `redis-server`: one GET stream per session on the whole cluster (and a dead holder's
//! claim expiring), a POST stream resumed with `Last-Event-ID` on another node than the one
//! that served it, `logging/setLevel` honoured by every node, notifications and answers that
//! do not copy a session onto the node they land on, and capped, expiring rollout mirrors.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::cluster::{Endpoint, Redis, start_node, tool_call};
use tandem_tests::cluster_turns::{json_call, until_turn_ends, wait_until_gone};
use tandem_tests::mcp::{McpHttp, SseReader};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text, token_deltas};

/// Redis, three nodes `a`, `b`, `c` with `extra_config` in `[mcp.distributed]`, and their
/// model.
async fn start(extra_config: &str) -> (Redis, Vec<McpHttp>, MockModel) {
    let redis = Redis::start().await;
    let model = MockModel::start().await;
    let mut nodes = Vec::new();
    for node_id in ["a", "b", "c"] {
        nodes.push(start_node(&model.base_url(), &redis.url, node_id, extra_config, &[]).await);
    }
    (redis, nodes, model)
}

/// The value of gauge `name` in a node's `/metrics`.
async fn gauge(endpoint: &Endpoint, name: &str) -> i64 {
    let metrics = endpoint.metrics().await;
    metrics
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{name} ")))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("{name} in {metrics}"))
}

/// `initialize` alone (no `notifications/initialized`); the session id.
async fn initialize_only(endpoint: &Endpoint) -> String {
    let response = endpoint
        .client
        .post(&endpoint.url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(
            json!({
                "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "mcp-cluster-test", "version": "1.0"},
                },
            })
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn notifications_and_answers_do_not_copy_a_session_onto_the_node_they_reach() {
    let (_redis, nodes, _model) = start("").await;
    let (a, b, c) = (
        Endpoint::of(&nodes[0]),
        Endpoint::of(&nodes[1]),
        Endpoint::of(&nodes[2]),
    );
    let session = initialize_only(&a).await;
    let notification =
        |method: &str, params: Value| json!({"jsonrpc": "2.0", "method": method, "params": params});
    let initialized = b
        .post(
            &session,
            &notification("notifications/initialized", json!({})),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(initialized.status(), 202);
    let cancelled = c
        .post(
            &session,
            &notification("notifications/cancelled", json!({"requestId": 77})),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(cancelled.status(), 202);
    let answer = json!({"jsonrpc": "2.0", "id": "a:1", "result": {"action": "decline"}});
    assert_eq!(
        c.post(&session, &answer).send().await.unwrap().status(),
        202
    );
    assert_eq!(gauge(&a, "tandem_mcp_sessions_open").await, 1);
    assert_eq!(gauge(&b, "tandem_mcp_sessions_open").await, 0);
    assert_eq!(gauge(&c, "tandem_mcp_sessions_open").await, 0);
    // Unknown sessions still get 404 there, and a request does copy the session.
    let unknown = b
        .post(
            &"0".repeat(64),
            &notification("notifications/initialized", json!({})),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    assert_eq!(b.list_status(&session).await, 200);
    assert_eq!(gauge(&b, "tandem_mcp_sessions_open").await, 1);
}

#[tokio::test]
async fn a_session_has_one_get_stream_on_the_whole_cluster_until_its_holder_leaves_or_dies() {
    let (redis, mut nodes, _model) = start("lease_ttl = \"1s\"").await;
    let (a, b, c) = (
        Endpoint::of(&nodes[0]),
        Endpoint::of(&nodes[1]),
        Endpoint::of(&nodes[2]),
    );
    let session = b.initialize(json!({})).await;
    let holder_key = format!("tandem:get:{session}");
    let on_a = a.get(&session, None).await;
    assert_eq!(on_a.status(), 200);
    for node in [&b, &c, &a] {
        assert_eq!(node.get(&session, None).await.status(), 409);
    }

    // The holder's connection closes: the claim is released.
    drop(on_a);
    wait_until_gone(&redis, &holder_key).await;
    let on_c = c.get(&session, None).await;
    assert_eq!(on_c.status(), 200);
    assert_eq!(b.get(&session, None).await.status(), 409);

    // The holder dies: its claim expires after the lease TTL.
    nodes[2].child.start_kill().unwrap();
    nodes[2].child.wait().await.unwrap();
    drop(on_c);
    wait_until_gone(&redis, &holder_key).await;
    assert_eq!(a.get(&session, None).await.status(), 200);
}

#[tokio::test]
async fn a_post_stream_resumes_with_last_event_id_on_another_node() {
    const DELTAS: usize = 40;
    let (_redis, nodes, model) = start("").await;
    let (a, b, c) = (
        Endpoint::of(&nodes[0]),
        Endpoint::of(&nodes[1]),
        Endpoint::of(&nodes[2]),
    );
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &token_deltas(DELTAS)));
    model.push(response);
    let session = a.initialize(json!({})).await;
    let call = b
        .post(&session, &tool_call(3, "codex", json!({"prompt": "Talk."})))
        .send()
        .await
        .unwrap();
    assert_eq!(call.status(), 200);
    let mut on_b = SseReader::new(call);
    gate.release(DELTAS / 2);
    let mut ids = Vec::new();
    let mut texts = Vec::new();
    while texts.len() < 5 {
        let event = on_b.next().await.expect("POST stream open");
        ids.push(event.id.clone().unwrap());
        let message = event.json();
        if let Some(delta) = message["params"]["msg"]["delta"].as_str() {
            texts.push(delta.to_string());
        }
    }
    // The client loses B's connection and resumes on C.
    drop(on_b);
    let last_event_id = ids.last().unwrap().clone();
    let resumed = c.get(&session, Some(&last_event_id)).await;
    assert_eq!(resumed.status(), 200);
    gate.release_all();
    let mut resumed = SseReader::new(resumed);
    let mut result = None;
    while result.is_none() {
        let event = resumed.next().await.expect("resumed stream open");
        ids.push(event.id.clone().unwrap());
        let message = event.json();
        if let Some(delta) = message["params"]["msg"]["delta"].as_str() {
            texts.push(delta.to_string());
        }
        if message["id"] == 3 {
            result = Some(message);
        }
    }
    let result = result.unwrap();
    assert_eq!(
        result["result"]["structuredContent"]["content"],
        token_deltas(DELTAS).concat()
    );
    assert_eq!(
        texts.concat(),
        token_deltas(DELTAS).concat(),
        "every delta once, in order"
    );
    let stream = ids[0].split_once('/').unwrap().0.to_string();
    let expected: Vec<String> = (1..=ids.len())
        .map(|seq| format!("{stream}/{seq}"))
        .collect();
    assert_eq!(ids, expected);

    // A stream nobody keeps is refused on every node.
    assert_eq!(c.get(&session, Some("999/1")).await.status(), 400);
}

#[tokio::test]
async fn log_levels_set_on_one_node_hold_on_every_node() {
    let (_redis, nodes, model) = start("").await;
    let (a, b, c) = (
        Endpoint::of(&nodes[0]),
        Endpoint::of(&nodes[1]),
        Endpoint::of(&nodes[2]),
    );
    let session = a.initialize(json!({})).await;
    let mut get = SseReader::new(a.get(&session, None).await);
    let set_level = |level: &str| json!({"jsonrpc": "2.0", "id": 50, "method": "logging/setLevel", "params": {"level": level}});
    // A failing turn on C (which holds a copy of the session by then): the events on the GET
    // stream, up to the end of the turn.
    let failing_turn = |id: i64| {
        let c = c.clone();
        let session = session.clone();
        async move {
            let reply: Value = json_call(
                &c,
                &session,
                &tool_call(id, "codex", json!({"prompt": "Fail."})),
            )
            .await;
            assert_eq!(reply["result"]["isError"], true, "{reply}");
        }
    };
    assert_eq!(c.list_status(&session).await, 200);

    // `critical` set on B: C logs nothing for an error.
    let reply = b
        .post_json(&session, &set_level("critical"))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    model.push(MockResponse::error(400, "bad request from the test"));
    failing_turn(61).await;
    let seen = until_turn_ends(&mut get).await;
    assert!(
        seen.iter()
            .all(|message| message["method"] != "notifications/message"),
        "{seen:?}"
    );

    // `error` set on A: C logs the next error.
    let reply = a
        .post_json(&session, &set_level("error"))
        .send()
        .await
        .unwrap();
    assert_eq!(reply.status(), 200);
    model.push(MockResponse::error(400, "bad request from the test"));
    failing_turn(62).await;
    let seen = until_turn_ends(&mut get).await;
    let logged: Vec<&Value> = seen
        .iter()
        .filter(|message| message["method"] == "notifications/message")
        .collect();
    assert_eq!(logged.len(), 1, "{seen:?}");
    assert_eq!(logged[0]["params"]["level"], "error");
}

/// A field of `XINFO STREAM key` as redis-cli prints it (one element per line); `None`
/// while the stream does not exist.
async fn stream_info(redis: &Redis, key: &str, field: &str) -> Option<u64> {
    let info = redis.cli(&["XINFO", "STREAM", key]).await;
    let mut lines = info.lines();
    while let Some(line) = lines.next() {
        if line.trim() == field {
            return lines.next()?.trim().parse().ok();
        }
    }
    None
}

/// How many lines the rollout file of `thread_id` under `home` has.
fn rollout_lines(home: &std::path::Path, thread_id: &str) -> u64 {
    fn find(dir: &std::path::Path, thread_id: &str) -> Option<std::path::PathBuf> {
        for entry in std::fs::read_dir(dir).ok()?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if let Some(found) = find(&path, thread_id) {
                    return Some(found);
                }
            } else if path
                .to_string_lossy()
                .ends_with(&format!("{thread_id}.jsonl"))
            {
                return Some(path);
            }
        }
        None
    }
    find(&home.join("sessions"), thread_id)
        .and_then(|path| std::fs::read_to_string(path).ok())
        .map_or(0, |text| text.lines().count() as u64)
}

#[tokio::test]
async fn rollout_mirrors_are_capped_keep_their_header_and_expire() {
    let (redis, nodes, model) = start("rollout_stream_len = 8\nrollout_ttl = \"2s\"").await;
    // Small stream nodes, so that the approximate cap trims at this size.
    redis
        .cli(&["CONFIG", "SET", "stream-node-max-entries", "4"])
        .await;
    let a = Endpoint::of(&nodes[0]);
    let session = a.initialize(json!({})).await;
    model.push(MockResponse::sse(responses_text("msg_0", &["First."])));
    let first: Value = json_call(
        &a,
        &session,
        &tool_call(1, "codex", json!({"prompt": "One."})),
    )
    .await;
    let thread_id = first["result"]["structuredContent"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();
    for turn in 2..6 {
        model.push(MockResponse::sse(responses_text(
            &format!("msg_{turn}"),
            &["More."],
        )));
        let reply: Value = json_call(
            &a,
            &session,
            &tool_call(
                turn,
                "codex-reply",
                json!({"threadId": thread_id, "prompt": "Again."}),
            ),
        )
        .await;
        assert_eq!(reply["result"]["isError"], false, "{reply}");
    }
    let key = format!("tandem:rollout:{thread_id}");
    let head = format!("tandem:rollout-head:{thread_id}");
    // The mirror is written off the turn's path: wait until it has every line of the file.
    let written = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let on_disk = rollout_lines(&nodes[0].home, &thread_id);
            let added = stream_info(&redis, &key, "entries-added").await;
            if on_disk > 0 && added == Some(on_disk) {
                return on_disk;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the turns' lines are mirrored");
    let length = stream_info(&redis, &key, "length").await.unwrap();
    assert!(
        length < written && length <= 8 + 4,
        "{length} of {written} lines kept"
    );
    let header = redis.cli(&["GET", &head]).await;
    assert!(header.contains("\"type\":\"session_meta\""), "{header}");

    // Nothing more is written: both keys expire.
    wait_until_gone(&redis, &key).await;
    wait_until_gone(&redis, &head).await;
}
