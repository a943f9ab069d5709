//! `tandem mcp-server` over real stdio: handshake and version negotiation, tools, a `codex`
//! call streamed from the mock model, `codex-reply`, bad arguments, cancellation and overload.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mcp::McpStdio;
use tandem_tests::mock_model::{MockModel, MockResponse, responses_failed, responses_text};
use tandem_tests::server::mock_config;

fn is_event_for(message: &Value, id: i64) -> bool {
    message["method"] == "codex/event" && message["params"]["_meta"]["requestId"] == json!(id)
}

#[tokio::test]
async fn the_handshake_negotiates_versions_and_answers_basic_methods() {
    let mut server = McpStdio::spawn(&mock_config("http://127.0.0.1:9"), &[]).await;
    // A 2026-era client probes first; any JSON-RPC error makes it fall back.
    let discover = server
        .request(json!("d"), "server/discover", json!({}))
        .await;
    assert_eq!(discover["error"]["code"], -32601);
    let early = server.request(json!(1), "tools/list", json!({})).await;
    assert_eq!(early["error"]["code"], -32600);
    let pong = server.request(json!(2), "ping", Value::Null).await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));

    let init = server.initialize("2025-06-18", json!({})).await;
    let result = &init["result"];
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert_eq!(result["serverInfo"]["name"], "tandem-mcp-server");
    assert_eq!(
        result["capabilities"]["tools"],
        json!({"listChanged": false})
    );
    assert_eq!(result["capabilities"]["logging"], json!({}));
    let again = server.initialize("2025-06-18", json!({})).await;
    assert_eq!(again["error"]["message"], "already initialized");

    let tools = server.request(json!(3), "tools/list", json!({})).await;
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        vec![
            "codex",
            "codex-reply",
            "query_project",
            "repo_index_refresh",
            "search",
            "open"
        ]
    );
    assert_eq!(
        tools["result"]["tools"][0]["inputSchema"]["required"],
        json!(["prompt"])
    );
    assert_eq!(
        tools["result"]["tools"][1]["inputSchema"]["required"],
        json!(["threadId", "prompt"])
    );

    let unknown_method = server.request(json!(4), "resources/list", json!({})).await;
    assert_eq!(unknown_method["error"]["code"], -32601);
    let bad_level = server
        .request(json!(5), "logging/setLevel", json!({"level": "loud"}))
        .await;
    assert_eq!(bad_level["error"]["code"], -32602);
    let level = server
        .request(json!(6), "logging/setLevel", json!({"level": "warning"}))
        .await;
    assert_eq!(level["result"], json!({}));

    let unknown_tool = server
        .request(
            json!(7),
            "tools/call",
            json!({"name": "nope", "arguments": {}}),
        )
        .await;
    assert_eq!(
        unknown_tool["error"],
        json!({"code": -32602, "message": "unknown tool: nope"})
    );
    let bad_arguments = server
        .request(
            json!(8),
            "tools/call",
            json!({"name": "codex", "arguments": {"prompt": 5}}),
        )
        .await;
    assert_eq!(bad_arguments["result"]["isError"], true);
    let text = bad_arguments["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(
        text.starts_with("invalid arguments for `codex`: invalid type: integer `5`"),
        "{text}"
    );
    let missing = server
        .request(
            json!(9),
            "tools/call",
            json!({"name": "codex-reply", "arguments": {"prompt": "x"}}),
        )
        .await;
    assert_eq!(
        missing["result"]["content"][0]["text"],
        "invalid arguments for `codex-reply`: missing field `threadId`"
    );
    let unknown_thread = server
        .request(
            json!(10),
            "tools/call",
            json!({"name": "codex-reply", "arguments": {"threadId": "019a0000-0000-7000-8000-000000000000", "prompt": "x"}}),
        )
        .await;
    assert_eq!(unknown_thread["result"]["isError"], true);

    // Garbage gets a parse error and the session goes on.
    server.send_line("{not json").await;
    let parse_error = server.take(|message| message["id"].is_null()).await;
    assert_eq!(parse_error["error"]["code"], -32700);
    let pong = server.request(json!(11), "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn requests_pipelined_after_initialize_see_the_initialized_session() {
    let mut server = McpStdio::spawn(&mock_config("http://127.0.0.1:9"), &[]).await;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"},
    }});
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    server.send_line(&format!("{initialize}\n{list}")).await;
    let listed = server.response(&json!(2)).await;
    assert_eq!(
        listed["result"]["tools"].as_array().map(Vec::len),
        Some(6),
        "{listed}"
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn unknown_versions_get_the_newest_and_old_versions_are_echoed() {
    for (asked, answered) in [
        ("2024-11-05", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
        ("2025-03-26", "2025-03-26"),
        ("2025-11-25", "2025-11-25"),
    ] {
        let mut server = McpStdio::spawn(&mock_config("http://127.0.0.1:9"), &[]).await;
        let init = server.initialize(asked, json!({})).await;
        assert_eq!(init["result"]["protocolVersion"], answered, "asked {asked}");
        assert_eq!(server.shutdown().await, Some(0));
    }
}

#[tokio::test]
async fn a_codex_call_streams_events_and_codex_reply_continues_the_thread() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["Hello", " from", " Tandem."],
    )));
    model.push(MockResponse::sse(responses_text(
        "msg_2",
        &["Second", " answer."],
    )));
    let mut server = McpStdio::spawn(&mock_config(&model.base_url()), &[]).await;
    server.initialize("2025-06-18", json!({})).await;

    let response = server
        .request(
            json!(21),
            "tools/call",
            json!({
                "name": "codex",
                "arguments": {"prompt": "Say hello.", "cwd": "/tmp", "approval-policy": "never"},
                "_meta": {"progressToken": "p-21"},
            }),
        )
        .await;
    let result = &response["result"];
    assert_eq!(result["isError"], false);
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "Hello from Tandem."}])
    );
    let thread_id = result["structuredContent"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        result["structuredContent"],
        json!({"threadId": thread_id, "content": "Hello from Tandem."})
    );

    // Every event of the turn came before the response, tagged with the call's id.
    let before: Vec<&Value> = server
        .log
        .iter()
        .take_while(|message| message.get("id") != Some(&json!(21)))
        .collect();
    let events: Vec<&Value> = before
        .iter()
        .copied()
        .filter(|message| is_event_for(message, 21))
        .collect();
    let types: Vec<&str> = events
        .iter()
        .map(|event| event["params"]["msg"]["type"].as_str().unwrap())
        .collect();
    // Codex's order for a plain turn (spec/codex-events.md).
    assert_eq!(
        types,
        vec![
            "session_configured",
            "mcp_startup_complete",
            "task_started",
            "item_started",
            "item_completed",
            "user_message",
            "item_started",
            "agent_message_content_delta",
            "agent_message_content_delta",
            "agent_message_content_delta",
            "item_completed",
            "agent_message",
            "token_count",
            "task_complete",
        ]
    );
    assert!(
        events
            .iter()
            .all(|event| event["params"]["_meta"]["threadId"] == json!(thread_id))
    );
    let turn_id = events[2]["params"]["msg"]["turn_id"].as_str().unwrap();
    assert_eq!(events[0]["params"]["id"], "", "session events have no turn");
    assert!(
        events[2..]
            .iter()
            .all(|event| event["params"]["id"] == turn_id)
    );
    let configured = &events[0]["params"]["msg"];
    assert_eq!(configured["thread_id"], json!(thread_id));
    assert_eq!(configured["session_id"], json!(thread_id));
    assert_eq!(configured["approval_policy"], "never");
    assert_eq!(configured["approvals_reviewer"], "user");
    assert_eq!(configured["cwd"], "/tmp");
    assert!(
        configured["rollout_path"]
            .as_str()
            .unwrap()
            .ends_with(".jsonl")
    );
    assert_eq!(
        events[1]["params"]["msg"],
        json!({"type": "mcp_startup_complete", "ready": [], "failed": [], "cancelled": []})
    );
    let user_message = &events[5]["params"]["msg"];
    assert_eq!(
        user_message,
        &json!({
            "type": "user_message", "message": "Say hello.", "images": [], "local_images": [],
            "audio": [], "local_audio": [], "text_elements": [],
        })
    );
    let delta = &events[7]["params"]["msg"];
    assert_eq!(delta["delta"], "Hello");
    assert_eq!(delta["thread_id"], json!(thread_id));
    assert_eq!(delta["turn_id"], turn_id);
    assert_eq!(
        events[11]["params"]["msg"],
        json!({"type": "agent_message", "message": "Hello from Tandem.", "phase": null, "memory_citation": null})
    );
    let complete = &events[13]["params"]["msg"];
    assert_eq!(complete["last_agent_message"], "Hello from Tandem.");
    assert_eq!(complete["turn_id"], turn_id);

    let progress: Vec<&Value> = before
        .iter()
        .copied()
        .filter(|message| message["method"] == "notifications/progress")
        .collect();
    assert!(progress.len() >= 3, "{progress:?}");
    let values: Vec<u64> = progress
        .iter()
        .map(|message| message["params"]["progress"].as_u64().unwrap())
        .collect();
    assert!(
        values.windows(2).all(|pair| pair[0] < pair[1]),
        "{values:?}"
    );
    assert!(
        progress
            .iter()
            .all(|message| message["params"]["progressToken"] == "p-21")
    );
    assert_eq!(
        progress.last().unwrap()["params"]["message"],
        "turn/completed"
    );

    let reply = server
        .request(
            json!("r2"),
            "tools/call",
            json!({"name": "codex-reply", "arguments": {"threadId": thread_id, "prompt": "Again."}}),
        )
        .await;
    assert_eq!(
        reply["result"]["structuredContent"]["content"],
        "Second answer."
    );
    assert_eq!(
        reply["result"]["structuredContent"]["threadId"],
        json!(thread_id)
    );
    // The second model request carried the whole conversation.
    let second = &model.requests()[1]["input"];
    let text = second.to_string();
    assert!(
        text.contains("Say hello.")
            && text.contains("Hello from Tandem.")
            && text.contains("Again.")
    );
    // No progress without a token.
    let reply_progress = server
        .log
        .iter()
        .skip_while(|message| message.get("id") != Some(&json!(21)))
        .filter(|message| message["method"] == "notifications/progress")
        .count();
    assert_eq!(reply_progress, 0);
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn cancelling_a_call_interrupts_its_turn_and_sends_no_response() {
    let model = MockModel::start().await;
    let (response, gate) = MockResponse::gated(responses_text("msg_1", &["never", " finished"]));
    model.push(response);
    let mut server = McpStdio::spawn(&mock_config(&model.base_url()), &[]).await;
    server.initialize("2025-11-25", json!({})).await;
    server
        .send(&json!({
            "jsonrpc": "2.0", "id": 31, "method": "tools/call",
            "params": {"name": "codex", "arguments": {"prompt": "Take your time."}},
        }))
        .await;
    gate.release(1);
    server
        .take(|message| {
            is_event_for(message, 31) && message["params"]["msg"]["type"] == "task_started"
        })
        .await;
    server
        .send(&json!({
            "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 31, "reason": "user pressed stop"},
        }))
        .await;
    let completed = server
        .take(|message| {
            is_event_for(message, 31) && message["params"]["msg"]["type"] == "turn_aborted"
        })
        .await;
    assert_eq!(completed["params"]["msg"]["reason"], "interrupted");
    // The session is alive, and the cancelled call never gets a response.
    let pong = server.request(json!(32), "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    drop(gate);
    let earlier = server.log.clone();
    let (later, code) = server.finish().await;
    assert!(
        earlier
            .iter()
            .chain(later.iter())
            .all(|message| message.get("id") != Some(&json!(31))),
        "a response to the cancelled call was sent"
    );
    assert_eq!(code, Some(0));
}

#[tokio::test]
async fn profile_config_and_model_arguments_choose_the_model() {
    let model = MockModel::start().await;
    for answer in ["one", "two", "three"] {
        model.push(MockResponse::sse(responses_text("msg", &[answer])));
    }
    let config = format!(
        "{}\n[profiles.fast]\nmodel = \"fast-model\"\n",
        mock_config(&model.base_url())
    );
    let mut server = McpStdio::spawn(&config, &[]).await;
    server.initialize("2025-06-18", json!({})).await;
    for (id, arguments) in [
        (1, json!({"prompt": "a", "profile": "fast"})),
        (
            2,
            json!({"prompt": "b", "profile": "fast", "config": {"model": "config-model", "model_reasoning_effort": "high"}}),
        ),
        (
            3,
            json!({"prompt": "c", "profile": "fast", "model": "argument-model"}),
        ),
    ] {
        let response = server
            .request(
                json!(id),
                "tools/call",
                json!({"name": "codex", "arguments": arguments}),
            )
            .await;
        assert_eq!(response["result"]["isError"], false, "{response}");
    }
    let models: Vec<Value> = model
        .requests()
        .iter()
        .map(|request| request["model"].clone())
        .collect();
    assert_eq!(
        models,
        vec![
            json!("fast-model"),
            json!("config-model"),
            json!("argument-model")
        ]
    );
    let efforts: Vec<Value> = model
        .requests()
        .iter()
        .map(|request| request["reasoning"]["effort"].clone())
        .collect();
    assert_eq!(efforts, vec![Value::Null, json!("high"), Value::Null]);

    let unknown = server
        .request(
            json!(4),
            "tools/call",
            json!({"name": "codex", "arguments": {"prompt": "d", "profile": "missing"}}),
        )
        .await;
    assert_eq!(unknown["result"]["isError"], true);
    let text = unknown["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("invalid configuration: ") && text.contains("missing"),
        "{text}"
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn a_failed_turn_is_an_error_result_that_keeps_the_thread() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_failed(
        "the model is overloaded",
    )));
    model.push(MockResponse::sse(responses_text("msg_2", &["Recovered."])));
    let mut server = McpStdio::spawn(&mock_config(&model.base_url()), &[]).await;
    server.initialize("2025-06-18", json!({})).await;
    let failed = server
        .request(
            json!(1),
            "tools/call",
            json!({"name": "codex", "arguments": {"prompt": "Try."}}),
        )
        .await;
    let result = &failed["result"];
    assert_eq!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("the turn failed: ") && text.contains("overloaded"),
        "{text}"
    );
    // The engine's `error` event also reached the client as a log message.
    let logged = server
        .log
        .iter()
        .find(|message| message["method"] == "notifications/message")
        .expect("a notifications/message");
    assert_eq!(logged["params"]["level"], "error");
    assert_eq!(logged["params"]["logger"], "tandem");
    let thread_id = result["structuredContent"]["threadId"]
        .as_str()
        .unwrap()
        .to_string();
    let retried = server
        .request(
            json!(2),
            "tools/call",
            json!({"name": "codex-reply", "arguments": {"threadId": thread_id, "prompt": "Again."}}),
        )
        .await;
    assert_eq!(
        retried["result"]["structuredContent"]["content"],
        "Recovered."
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn a_call_cancelled_right_after_it_was_sent_never_reaches_the_model() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_1", &["unused"])));
    let mut server = McpStdio::spawn(&mock_config(&model.base_url()), &[]).await;
    server.initialize("2025-06-18", json!({})).await;
    let call = json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
        "params": {"name": "codex", "arguments": {"prompt": "never mind"}}});
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 41}});
    server.send_line(&format!("{call}\n{cancel}")).await;
    let pong = server.request(json!(42), "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    let earlier = server.log.clone();
    let (later, code) = server.finish().await;
    assert!(
        earlier
            .iter()
            .chain(later.iter())
            .all(|message| message.get("id") != Some(&json!(41))),
        "the cancelled call was answered"
    );
    assert_eq!(code, Some(0));
    assert_eq!(model.request_count(), 0);
}

#[tokio::test]
async fn batches_are_answered_with_one_array_under_2025_03_26_only() {
    let batch = json!([
        {"jsonrpc": "2.0", "id": "b1", "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": "b2", "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "b3", "method": "initialize", "params": {}},
    ]);
    let mut old = McpStdio::spawn(&mock_config("http://127.0.0.1:9"), &[]).await;
    old.initialize("2025-03-26", json!({})).await;
    old.send(&batch).await;
    let reply = old.take(|message| message.is_array()).await;
    let replies = reply.as_array().unwrap();
    assert_eq!(replies.len(), 3, "{reply}");
    let by_id = |id: &str| replies.iter().find(|reply| reply["id"] == id).unwrap();
    assert_eq!(by_id("b1")["result"], json!({}));
    assert_eq!(
        by_id("b2")["result"]["tools"].as_array().map(Vec::len),
        Some(6)
    );
    assert_eq!(by_id("b3")["error"]["code"], -32600);
    assert_eq!(old.shutdown().await, Some(0));

    let mut new = McpStdio::spawn(&mock_config("http://127.0.0.1:9"), &[]).await;
    new.initialize("2025-06-18", json!({})).await;
    new.send(&batch).await;
    let refused = new.take(|message| message["id"].is_null()).await;
    assert_eq!(refused["error"]["code"], -32600);
    assert!(new.log.iter().all(|message| !message.is_array()));
    assert_eq!(new.shutdown().await, Some(0));
}

/// With every worker busy, one more request is refused with `-32001` at once, `ping` is still
/// answered, and the running calls finish normally.
#[tokio::test]
async fn a_saturated_session_refuses_requests_but_answers_ping() {
    let model = MockModel::start().await;
    let mut gates = Vec::new();
    for answer in ["first", "second"] {
        let (response, gate) = MockResponse::gated(responses_text("msg", &[answer]));
        model.push(response);
        gates.push(gate);
    }
    let mut server = McpStdio::spawn(
        &mock_config(&model.base_url()),
        &["-c", "app_server.request_queue_capacity=2"],
    )
    .await;
    server.initialize("2025-11-25", json!({})).await;
    for id in [1, 2] {
        server
            .send(&json!({
                "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "codex", "arguments": {"prompt": "Wait for the gate."}},
            }))
            .await;
    }
    for gate in &gates {
        gate.release(1);
    }
    for id in [1, 2] {
        server
            .take(|message| {
                is_event_for(message, id) && message["params"]["msg"]["type"] == "task_started"
            })
            .await;
    }
    let refused = server
        .request(
            json!(3),
            "tools/call",
            json!({"name": "codex", "arguments": {"prompt": "One more."}}),
        )
        .await;
    assert_eq!(
        refused["error"],
        json!({"code": -32001, "message": "Server overloaded; retry later."})
    );
    let pong = server.request(json!(4), "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}));
    drop(gates);
    for id in [1, 2] {
        let done = server.response(&json!(id)).await;
        assert_eq!(done["result"]["isError"], json!(false), "call {id}: {done}");
    }
    // A worker is free again.
    let listed = server.request(json!(5), "tools/list", json!({})).await;
    assert!(listed["result"]["tools"].is_array());
    assert_eq!(server.shutdown().await, Some(0));
}
