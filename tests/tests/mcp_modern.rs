//! MCP 2026-07-28 beside 2025-11-25 on one `tandem mcp-server`, over real stdio and real
//! HTTP: `server/discover`, requests in the 2026 form served without `initialize` or a
//! session, the caching hints, the version, `_meta` and header errors, a `codex` call in the
//! 2026 form (progress and `codex/event` on its own SSE stream), a 2025 client served as
//! before on the same server at the same time, and, with Redis, a 2026 `codex-reply` reaching
//! another node than the thread's run on the thread's node.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::{McpHttp, McpStdio, SseReader};

const DEMO_CONFIG: &str = "model_provider = \"demo\"\napproval_policy = \"untrusted\"\n";

/// `_meta` of a 2026 request.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "modern-test", "version": "1.0"},
    })
}

/// `params` with the 2026 `_meta` added.
fn with_meta(mut params: Value) -> Value {
    params["_meta"] = meta();
    params
}

async fn json_of(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn over_stdio_2026_requests_need_no_initialize_and_a_2025_session_still_works() {
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    let discover = server
        .request(json!("d"), "server/discover", json!({"_meta": meta()}))
        .await;
    let result = &discover["result"];
    assert_eq!(result["resultType"], "complete", "{discover}");
    assert_eq!(
        result["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"])
    );
    assert_eq!(result["capabilities"]["tools"], json!({}));
    assert!(result["capabilities"].get("logging").is_none(), "{result}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "tandem-mcp-server"
    );
    // A client that answers elicitations is served in 2026 too (it is asked through
    // `input_required` results).
    let mut eliciting = meta();
    eliciting["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    let served = server
        .request(json!("e"), "server/discover", json!({"_meta": eliciting}))
        .await;
    assert_eq!(served["result"]["resultType"], "complete", "{served}");
    // Without the 2026 `_meta`, a probe still gets the error that makes 2025 clients fall back.
    let probe = server
        .request(json!("p"), "server/discover", json!({}))
        .await;
    assert_eq!(probe["error"]["code"], -32601, "{probe}");

    let listed = server
        .request(json!(1), "tools/list", json!({"_meta": meta()}))
        .await;
    let result = &listed["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["cacheScope"], "public");
    assert!(result["ttlMs"].as_u64().unwrap() > 0, "{result}");
    assert!(
        result["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tool| tool["name"] == "codex")
    );

    let removed = server
        .request(json!(2), "ping", json!({"_meta": meta()}))
        .await;
    assert_eq!(removed["error"]["code"], -32601, "{removed}");
    let mut old = meta();
    old["io.modelcontextprotocol/protocolVersion"] = json!("2024-01-01");
    let unsupported = server
        .request(json!(3), "tools/list", json!({"_meta": old}))
        .await;
    assert_eq!(unsupported["error"]["code"], -32022, "{unsupported}");
    assert_eq!(unsupported["error"]["data"]["requested"], "2024-01-01");
    assert_eq!(unsupported["error"]["data"]["supported"][0], "2026-07-28");
    let no_capabilities = server
        .request(
            json!(4),
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        )
        .await;
    assert_eq!(
        no_capabilities["error"]["code"], -32602,
        "{no_capabilities}"
    );

    // A 2025 client on the same process: the handshake and its session as before.
    let init = server.initialize("2025-11-25", json!({})).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let legacy = server.request(json!(5), "tools/list", json!({})).await;
    assert!(legacy["result"].get("resultType").is_none(), "{legacy}");
    assert!(legacy["result"].get("ttlMs").is_none(), "{legacy}");
    let pong = server.request(json!(6), "ping", Value::Null).await;
    assert_eq!(pong["result"], json!({}));
    // A 2026 listen request is acknowledged, tagged, and ends when cancelled.
    server
        .send(
            &json!({"jsonrpc": "2.0", "id": "l", "method": "subscriptions/listen", "params": {
                "_meta": meta(), "notifications": {"promptsListChanged": true},
            }}),
        )
        .await;
    let ack = server
        .take(|message| message["method"] == "notifications/subscriptions/acknowledged")
        .await;
    assert_eq!(
        ack["params"],
        json!({"notifications": {}, "_meta": {"io.modelcontextprotocol/subscriptionId": "l"}})
    );
    server
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "l"}}))
        .await;
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn over_stdio_a_2026_codex_call_runs_a_turn_and_continues_with_codex_reply() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    let params = with_meta(json!({"name": "codex", "arguments": {
        "prompt": "Show me what you can do.",
        "cwd": workspace.path().to_string_lossy(),
        "approval-policy": "never",
        "sandbox": "workspace-write",
    }}));
    let called = server.request(json!(10), "tools/call", params).await;
    let result = &called["result"];
    assert_eq!(result["resultType"], "complete", "{called}");
    assert_eq!(result["isError"], false, "{called}");
    let thread_id = result["structuredContent"]["threadId"].as_str().unwrap();
    // No server request on a 2026 request.
    assert!(
        !server
            .log
            .iter()
            .any(|message| message["method"] == "elicitation/create"),
        "2026 requests get no elicitation/create"
    );
    // Its events carry its request id.
    assert!(server.log.iter().any(|message| {
        message["method"] == "codex/event" && message["params"]["_meta"]["requestId"] == 10
    }));
    // Another request (another session) continues the thread from the store.
    let reply = server
        .request(
            json!(11),
            "tools/call",
            with_meta(json!({"name": "codex-reply", "arguments": {
                "threadId": thread_id, "prompt": "Again.",
            }})),
        )
        .await;
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    assert_eq!(reply["result"]["structuredContent"]["threadId"], thread_id);
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn over_http_2026_requests_are_stateless_and_their_headers_are_checked() {
    let server = McpHttp::spawn(DEMO_CONFIG, &[]).await;
    let accept = "application/json, text/event-stream";
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta()}});
    let response = server
        .post_2026(&discover, None, accept)
        .send()
        .await
        .unwrap();
    assert!(response.headers().get("mcp-session-id").is_none());
    let (status, body) = json_of(response).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["supportedVersions"][0], "2026-07-28");

    let list =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta()}});
    let (status, body) = json_of(server.post_2026(&list, None, accept).send().await.unwrap()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["cacheScope"], "public");
    assert!(body["result"]["ttlMs"].is_u64(), "{body}");

    // `_meta` without its required fields: -32602 and 400.
    let bare = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}});
    let (status, body) = json_of(server.post_2026(&bare, None, accept).send().await.unwrap()).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32602)),
        "{body}"
    );
    assert_eq!(body["id"], 3);
    // Header and body disagree on the version: -32020.
    let mut other = meta();
    other["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let mismatched =
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": other}});
    let (status, body) = json_of(
        server
            .post_2026(&mismatched, None, accept)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32020)),
        "{body}"
    );
    // Both say an unknown version: -32022 with the supported ones.
    let (status, body) = json_of(
        server
            .post_accept(None, &mismatched, accept)
            .header("mcp-protocol-version", "v999.0.0")
            .header("mcp-method", "tools/list")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32022)),
        "{body}"
    );
    assert_eq!(body["error"]["data"]["requested"], "v999.0.0");
    // `Mcp-Method` missing or not the body's method.
    let missing_method = server
        .post_accept(None, &list, accept)
        .header("mcp-protocol-version", "2026-07-28")
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(missing_method).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32020)),
        "{body}"
    );
    let wrong_method = server
        .post_accept(None, &list, accept)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "TOOLS/LIST")
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(wrong_method).await.0, 400);
    // `Mcp-Name` must name the body's tool; whitespace around it and base64 are fine.
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": with_meta(json!({"name": "search", "arguments": {"query": "nothing"}}))});
    for (name, expected) in [
        (None, 400),
        (Some("open"), 400),
        (Some("  search  "), 200),
        (Some("=?base64?c2VhcmNo?="), 200),
    ] {
        let (status, body) = json_of(
            server
                .post_2026(&call, name, "application/json")
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, expected, "{name:?}: {body}");
        if expected == 400 {
            assert_eq!(body["error"]["code"], -32020, "{body}");
        } else {
            assert_eq!(body["result"]["resultType"], "complete", "{body}");
        }
    }
    // Removed and unknown methods: 404 with -32601.
    for method in ["initialize", "ping", "logging/setLevel", "no/such"] {
        let body =
            json!({"jsonrpc": "2.0", "id": 6, "method": method, "params": {"_meta": meta()}});
        let (status, answer) =
            json_of(server.post_2026(&body, None, accept).send().await.unwrap()).await;
        assert_eq!(
            (status, answer["error"]["code"].clone()),
            (404, json!(-32601)),
            "{method}: {answer}"
        );
    }
    // A probe without the 2026 form still gets the 2025 answer.
    let probe = server
        .post(
            None,
            &json!({"jsonrpc": "2.0", "id": 7, "method": "server/discover"}),
        )
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(probe).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (400, json!(-32601)),
        "{body}"
    );
}

#[tokio::test]
async fn over_http_a_2026_codex_call_streams_beside_a_2025_session() {
    let workspace = tempfile::tempdir().unwrap();
    let server = McpHttp::spawn(DEMO_CONFIG, &[]).await;
    // A 2025 client holds a session the whole time.
    let (session, _) = server.initialize("2025-11-25", json!({})).await;

    let mut params = with_meta(json!({
        "name": "codex",
        "arguments": {
            "prompt": "Show me what you can do.",
            "cwd": workspace.path().to_string_lossy(),
            "approval-policy": "never",
            "sandbox": "workspace-write",
        },
    }));
    params["_meta"]["progressToken"] = json!("p");
    let call = json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": params});
    let response = server
        .post_2026(&call, Some("codex"), "application/json, text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers().get("mcp-session-id").is_none());
    let events: Vec<Value> = SseReader::new(response)
        .rest()
        .await
        .iter()
        .map(|event| event.json())
        .collect();
    let last = events.last().unwrap();
    assert_eq!(last["id"], 20, "{last}");
    assert_eq!(last["result"]["resultType"], "complete", "{last}");
    assert_eq!(last["result"]["isError"], false, "{last}");
    assert!(
        events
            .iter()
            .any(|event| event["method"] == "notifications/progress"
                && event["params"]["progressToken"] == "p")
    );
    assert!(events.iter().any(
        |event| event["method"] == "codex/event" && event["params"]["_meta"]["requestId"] == 20
    ));
    // No server request and no log message (no `logLevel` asked) on a 2026 stream.
    assert!(events.iter().all(|event| {
        event.get("method").is_none()
            || event["method"]
                .as_str()
                .unwrap()
                .starts_with("notifications/")
            || event["method"] == "codex/event"
    }));
    assert!(
        events
            .iter()
            .all(|event| event["method"] != "notifications/message")
    );

    // The 2025 session is untouched.
    let ping = json!({"jsonrpc": "2.0", "id": 21, "method": "ping"});
    let (status, body) = json_of(
        server
            .post_accept(Some(&session), &ping, "application/json")
            .header("mcp-protocol-version", "2025-11-25")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!((status, body["result"].clone()), (200, json!({})), "{body}");
}

#[tokio::test]
async fn over_http_a_2026_request_acts_for_its_token_principal_only() {
    const ALICE: &str = "alice-token-0123456789";
    const BOB: &str = "bob-token-9876543210";
    let workspace = tempfile::tempdir().unwrap();
    let home = tandem_tests::mcp::home_with(DEMO_CONFIG);
    let tokens = home.path().join("tokens");
    std::fs::write(&tokens, format!("alice {ALICE}\nbob {BOB}\n")).unwrap();
    let tokens_arg = tokens.to_str().unwrap().to_string();
    let path = home.path().to_path_buf();
    let server = McpHttp::spawn_in(
        path,
        Some(home),
        &["--auth-token-file", &tokens_arg],
        "info",
    )
    .await;
    let call = |id: i64, name: &str, arguments: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": with_meta(json!({"name": name, "arguments": arguments}))});
    // Without a token a 2026 request is refused like any other.
    let list =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}});
    let anonymous = server
        .post_2026(&list, None, "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), 401);

    let started = call(
        2,
        "codex",
        json!({
            "prompt": "Show me what you can do.",
            "cwd": workspace.path().to_string_lossy(),
            "approval-policy": "never",
            "sandbox": "workspace-write",
        }),
    );
    let (status, body) = json_of(
        server
            .post_2026(&started, Some("codex"), "application/json")
            .bearer_auth(ALICE)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["isError"], false, "{body}");
    let thread_id = body["result"]["structuredContent"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();

    // Bob cannot continue Alice's thread; Alice can.
    let reply = call(
        3,
        "codex-reply",
        json!({"threadId": thread_id, "prompt": "Again."}),
    );
    let (_, refused) = json_of(
        server
            .post_2026(&reply, Some("codex-reply"), "application/json")
            .bearer_auth(BOB)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    // Another principal's thread is as unknown as a missing one.
    let text = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("no rollout found"), "{refused}");
    let (_, continued) = json_of(
        server
            .post_2026(&reply, Some("codex-reply"), "application/json")
            .bearer_auth(ALICE)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(continued["result"]["isError"], false, "{continued}");
    assert_eq!(
        continued["result"]["structuredContent"]["threadId"],
        json!(thread_id)
    );
}

#[tokio::test]
async fn over_http_subscriptions_listen_carries_the_principals_stream_less_call_events_only() {
    const ALICE: &str = "alice-token-0123456789";
    const BOB: &str = "bob-token-9876543210";
    let home = tandem_tests::mcp::home_with(DEMO_CONFIG);
    let tokens = home.path().join("tokens");
    std::fs::write(&tokens, format!("alice {ALICE}\nbob {BOB}\n")).unwrap();
    let tokens_arg = tokens.to_str().unwrap().to_string();
    let path = home.path().to_path_buf();
    let server = McpHttp::spawn_in(
        path,
        Some(home),
        &["--auth-token-file", &tokens_arg],
        "info",
    )
    .await;
    let listen = |id: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": {
            "_meta": meta(),
            "notifications": {"io.tandem/codexEvents": true, "toolsListChanged": true},
        }})
    };
    let open = async |id: &str, token: &str| -> SseReader {
        let response = server
            .post_2026(&listen(id), None, "text/event-stream")
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
        assert_eq!(
            ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            id
        );
        // Lists never change here: only Tandem's own type is honoured.
        assert_eq!(
            ack["params"]["notifications"],
            json!({"io.tandem/codexEvents": true})
        );
        stream
    };
    let mut alices = open("alice-listen", ALICE).await;
    let mut bobs = open("bob-listen", BOB).await;
    // A call answered with one JSON object has its events on its principal's listen streams.
    let run = async |id: i64, token: &str| -> String {
        let workspace = tempfile::tempdir().unwrap();
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": with_meta(json!({
            "name": "codex",
            "arguments": {
                "prompt": "Show me what you can do.",
                "cwd": workspace.path().to_string_lossy(),
                "approval-policy": "never",
                "sandbox": "workspace-write",
            },
        }))});
        let (status, body) = json_of(
            server
                .post_2026(&call, Some("codex"), "application/json")
                .bearer_auth(token)
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        body["result"]["structuredContent"]["threadId"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let alice_thread = run(1, ALICE).await;
    let event = alices.next().await.unwrap().json();
    assert_eq!(event["method"], "codex/event", "{event}");
    assert_eq!(event["params"]["_meta"]["threadId"], json!(alice_thread));
    assert_eq!(
        event["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "alice-listen"
    );
    // Bob's stream got nothing of Alice's: its first event is of his own call.
    let bob_thread = run(2, BOB).await;
    let event = bobs.next().await.unwrap().json();
    assert_eq!(
        event["params"]["_meta"]["threadId"],
        json!(bob_thread),
        "{event}"
    );
    // Without text/event-stream a listen request is refused.
    let refused = server
        .post_2026(&listen("json"), None, "application/json")
        .bearer_auth(ALICE)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 406);
}

#[tokio::test]
async fn with_redis_a_2026_codex_reply_on_another_node_runs_on_the_threads_node() {
    let redis = tandem_tests::cluster::Redis::start().await;
    let mut nodes = Vec::new();
    for node_id in ["a", "b"] {
        let home = tandem_tests::mcp::home_with(&format!(
            "{DEMO_CONFIG}[mcp.distributed]\nnode_id = \"{node_id}\"\n"
        ));
        let path = home.path().to_path_buf();
        nodes.push(McpHttp::spawn_in(path, Some(home), &["--redis", &redis.url], "info").await);
    }
    let workspace = tempfile::tempdir().unwrap();
    let call = |id: i64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": with_meta(json!({
            "name": name, "arguments": arguments,
        }))})
    };
    let started = call(
        1,
        "codex",
        json!({
            "prompt": "Show me what you can do.",
            "cwd": workspace.path().to_string_lossy(),
            "approval-policy": "never",
            "sandbox": "workspace-write",
        }),
    );
    let (status, body) = json_of(
        nodes[0]
            .post_2026(&started, Some("codex"), "application/json")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let thread_id = body["result"]["structuredContent"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();
    // The thread is node a's: its lease names it.
    assert_eq!(
        redis
            .cli(&["GET", &format!("tandem:lease:{thread_id}")])
            .await,
        "a"
    );

    // Node b has no rollout of the thread; it forwards the call to node a (JSON answer).
    let reply = call(
        2,
        "codex-reply",
        json!({"threadId": thread_id, "prompt": "And again."}),
    );
    let (status, body) = json_of(
        nodes[1]
            .post_2026(&reply, Some("codex-reply"), "application/json")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["id"], 2, "{body}");
    assert_eq!(body["result"]["isError"], false, "{body}");
    assert_eq!(
        body["result"]["structuredContent"]["threadId"],
        thread_id.as_str(),
        "{body}"
    );
    assert!(
        !holds_rollout(&nodes[1].home, &thread_id),
        "node b wrote no rollout of the thread"
    );
    assert!(holds_rollout(&nodes[0].home, &thread_id));

    // The same on an SSE stream: node a's events come back through node b.
    let reply = call(
        3,
        "codex-reply",
        json!({"threadId": thread_id, "prompt": "Once more."}),
    );
    let response = nodes[1]
        .post_2026(
            &reply,
            Some("codex-reply"),
            "application/json, text/event-stream",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let events: Vec<Value> = SseReader::new(response)
        .rest()
        .await
        .iter()
        .map(|event| event.json())
        .collect();
    let last = events.last().unwrap();
    assert_eq!(last["id"], 3, "{last}");
    assert_eq!(last["result"]["isError"], false, "{last}");
    assert!(events.iter().any(
        |event| event["method"] == "codex/event" && event["params"]["_meta"]["requestId"] == 3
    ));
}

/// Whether a rollout file of `thread_id` exists under `home`'s sessions.
fn holds_rollout(home: &std::path::Path, thread_id: &str) -> bool {
    let mut directories = vec![home.join("sessions")];
    while let Some(directory) = directories.pop() {
        let Ok(entries) = std::fs::read_dir(&directory) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                directories.push(path);
            } else if path.to_string_lossy().contains(thread_id) {
                return true;
            }
        }
    }
    false
}
