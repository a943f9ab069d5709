//! Approvals of 2026-07-28 `codex` calls without server requests, over real stdio and real
//! HTTP with the offline `demo` provider (its tour runs `uname -srm`, which needs approval
//! under `untrusted`, then proposes a patch adding `tandem-demo.txt`): the call answers
//! `input_required` with the elicitation form and a signed `requestState`, and the client's
//! retries with `inputResponses` approve or decline. Replayed, tampered, expired and
//! other-principal states are refused with `-32602`; waiting calls are capped per principal,
//! an unanswered question times out, and with Redis only the node whose call waits honours a
//! state, and a state is used once in the whole cluster (marked in Redis).

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tandem_tests::mcp::{McpHttp, McpStdio, SseReader};

const DEMO_CONFIG: &str = "model_provider = \"demo\"\napproval_policy = \"untrusted\"\n";
const DEMO_FILE: &str = "tandem-demo.txt";
/// The operator's key of the HTTP tests (`[mcp.request_state] key`), 32 bytes of 0xab.
const KEY_HEX: &str = "abababababababababababababababababababababababababababababababab";

/// `_meta` of a 2026 request from a client that answers elicitations.
fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "mrtr-test", "version": "1.0"},
    })
}

fn codex_params(cwd: &Path) -> Value {
    json!({"name": "codex", "_meta": meta(), "arguments": {
        "prompt": "Show me what you can do.",
        "cwd": cwd.to_string_lossy(),
        "approval-policy": "untrusted",
        "sandbox": "workspace-write",
    }})
}

/// The retry of `codex` with `answer` for the pending question of `state`.
fn retry(cwd: &Path, state: &str, answer: Value) -> Value {
    let mut params = codex_params(cwd);
    params["requestState"] = json!(state);
    params["inputResponses"] = json!({"elicitation": answer});
    params
}

fn approve() -> Value {
    json!({"action": "accept", "content": {"decision": "approved"}})
}

/// The asked question's kind (`codex_elicitation`) and the state of an `input_required`
/// result.
fn asked(result: &Value) -> (String, String) {
    assert_eq!(result["resultType"], "input_required", "{result}");
    let request = &result["inputRequests"]["elicitation"];
    assert_eq!(request["method"], "elicitation/create", "{result}");
    assert_eq!(request["params"]["mode"], "form", "{result}");
    assert!(
        request["params"]["requestedSchema"]["properties"]["decision"].is_object(),
        "{result}"
    );
    (
        request["params"]["_meta"]["codex_elicitation"]
            .as_str()
            .unwrap()
            .to_string(),
        result["requestState"].as_str().unwrap().to_string(),
    )
}

/// A state signed with [`KEY_HEX`] (HMAC-SHA256 of the base64url claims).
fn signed_state(claims: &Value) -> String {
    let key = [0xabu8; 32];
    let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(&key);
    let inner = Sha256::new()
        .chain_update(block.map(|byte| byte ^ 0x36))
        .chain_update(claims.as_bytes())
        .finalize();
    let outer = Sha256::new()
        .chain_update(block.map(|byte| byte ^ 0x5c))
        .chain_update(inner)
        .finalize();
    format!("{claims}.{}", URL_SAFE_NO_PAD.encode(outer))
}

#[tokio::test]
async fn over_stdio_a_2026_call_is_approved_through_input_required_and_states_are_single_use() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    // The probe of a client that answers elicitations is served in 2026 now.
    let discover = server
        .request(json!("d"), "server/discover", json!({"_meta": meta()}))
        .await;
    assert_eq!(discover["result"]["resultType"], "complete", "{discover}");

    let first = server
        .request(json!(1), "tools/call", codex_params(workspace.path()))
        .await;
    let (kind, command_state) = asked(&first["result"]);
    assert_eq!(kind, "exec-approval");
    let form = &first["result"]["inputRequests"]["elicitation"]["params"];
    assert_eq!(form["codex_elicitation"], "exec-approval", "{form}");
    assert!(
        form["message"].as_str().unwrap().contains("uname"),
        "{form}"
    );

    let second = server
        .request(
            json!(2),
            "tools/call",
            retry(workspace.path(), &command_state, approve()),
        )
        .await;
    let (kind, patch_state) = asked(&second["result"]);
    assert_eq!(kind, "patch-approval");
    assert_ne!(patch_state, command_state);

    // The first state was used: a replay is refused and changes nothing.
    let replayed = server
        .request(
            json!(3),
            "tools/call",
            retry(workspace.path(), &command_state, approve()),
        )
        .await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    assert!(
        replayed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already been used"),
        "{replayed}"
    );
    // A tampered one too.
    let tampered = server
        .request(
            json!(4),
            "tools/call",
            retry(
                workspace.path(),
                &format!("{patch_state}-TAMPERED"),
                approve(),
            ),
        )
        .await;
    assert_eq!(tampered["error"]["code"], -32602, "{tampered}");
    assert!(!workspace.path().join(DEMO_FILE).exists());

    let done = server
        .request(
            json!(5),
            "tools/call",
            retry(workspace.path(), &patch_state, approve()),
        )
        .await;
    let result = &done["result"];
    assert_eq!(result["resultType"], "complete", "{done}");
    assert_eq!(result["isError"], false, "{done}");
    assert!(
        result["structuredContent"]["threadId"].is_string(),
        "{done}"
    );
    assert!(
        workspace.path().join(DEMO_FILE).exists(),
        "the approved patch is written"
    );
    // The call's events after an answer carry the id of the retry that waits on it.
    assert!(server.log.iter().any(|message| {
        message["method"] == "codex/event" && message["params"]["_meta"]["requestId"] == 5
    }));
    // No server request at any point.
    assert!(
        server
            .log
            .iter()
            .all(|message| message["method"] != "elicitation/create")
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn over_stdio_declined_inputs_run_nothing_and_a_missing_answer_is_asked_again() {
    let workspace = tempfile::tempdir().unwrap();
    let mut server = McpStdio::spawn(DEMO_CONFIG, &[]).await;
    let first = server
        .request(json!(1), "tools/call", codex_params(workspace.path()))
        .await;
    let (_, state) = asked(&first["result"]);
    // A retry without the answer gets the same question under a new state.
    let mut unanswered = codex_params(workspace.path());
    unanswered["requestState"] = json!(state);
    unanswered["inputResponses"] = json!({"other": {"action": "accept"}});
    let again = server.request(json!(2), "tools/call", unanswered).await;
    let (kind, state) = asked(&again["result"]);
    assert_eq!(kind, "exec-approval");

    let decline = json!({"action": "decline"});
    let second = server
        .request(
            json!(3),
            "tools/call",
            retry(workspace.path(), &state, decline.clone()),
        )
        .await;
    let (kind, state) = asked(&second["result"]);
    assert_eq!(kind, "patch-approval");
    let done = server
        .request(
            json!(4),
            "tools/call",
            retry(workspace.path(), &state, decline),
        )
        .await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert!(
        !workspace.path().join(DEMO_FILE).exists(),
        "a declined patch is not written"
    );
    assert_eq!(server.shutdown().await, Some(0));
}

#[tokio::test]
async fn over_http_states_belong_to_their_principal_expire_and_continue_the_call() {
    const ALICE: &str = "alice-token-0123456789";
    const BOB: &str = "bob-token-9876543210";
    let workspace = tempfile::tempdir().unwrap();
    let home = tandem_tests::mcp::home_with(&format!(
        "{DEMO_CONFIG}[mcp.request_state]\nkey = \"{KEY_HEX}\"\n"
    ));
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
    // The operator's key is used: no key file is generated.
    assert!(!server.home.join("mcp-request-state.key").exists());
    let post = |id: i64, params: &Value, token: &str, accept: &str| {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        server
            .post_2026(&body, Some("codex"), accept)
            .bearer_auth(token)
            .send()
    };
    let json_body = async |response: reqwest::Response| -> Value {
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    };

    // A call whose first message is its error is answered with one JSON object, even when
    // the client accepts a stream.
    let unknown = json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": "nope", "arguments": {}, "_meta": meta()}});
    let refused = server
        .post_2026(
            &unknown,
            Some("nope"),
            "application/json, text/event-stream",
        )
        .bearer_auth(ALICE)
        .send()
        .await
        .unwrap();
    assert!(
        refused.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let refused = json_body(refused).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    let first = json_body(
        post(
            1,
            &codex_params(workspace.path()),
            ALICE,
            "application/json",
        )
        .await
        .unwrap(),
    )
    .await;
    let (kind, state) = asked(&first["result"]);
    assert_eq!(kind, "exec-approval");

    // Bob cannot answer Alice's question, and his attempt does not use her state up.
    let foreign = json_body(
        post(
            2,
            &retry(workspace.path(), &state, approve()),
            BOB,
            "application/json",
        )
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(foreign["error"]["code"], -32602, "{foreign}");
    assert!(
        foreign["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another principal"),
        "{foreign}"
    );
    // A state signed with the key but expired is refused.
    let expired = signed_state(&json!({
        "p": "alice", "t": "tools/call:codex", "q": "0123", "x": 1, "d": {},
    }));
    let old = json_body(
        post(
            3,
            &retry(workspace.path(), &expired, approve()),
            ALICE,
            "application/json",
        )
        .await
        .unwrap(),
    )
    .await;
    assert!(
        old["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired"),
        "{old}"
    );

    let second = json_body(
        post(
            4,
            &retry(workspace.path(), &state, approve()),
            ALICE,
            "application/json",
        )
        .await
        .unwrap(),
    )
    .await;
    let (kind, state) = asked(&second["result"]);
    assert_eq!(kind, "patch-approval");

    // The last retry streams: its answer is the call's result.
    let events: Vec<Value> = SseReader::new(
        post(
            5,
            &retry(workspace.path(), &state, approve()),
            ALICE,
            "application/json, text/event-stream",
        )
        .await
        .unwrap(),
    )
    .rest()
    .await
    .iter()
    .map(|event| event.json())
    .collect();
    let last = events.last().unwrap();
    assert_eq!(last["id"], 5, "{last}");
    assert_eq!(last["result"]["resultType"], "complete", "{last}");
    assert_eq!(last["result"]["isError"], false, "{last}");
    // The call's events while this retry waited came on its stream, under its id.
    assert!(
        events
            .iter()
            .any(|event| event["method"] == "codex/event"
                && event["params"]["_meta"]["requestId"] == 5),
        "{events:?}"
    );
    assert!(workspace.path().join(DEMO_FILE).exists());
}

#[tokio::test]
async fn waiting_calls_are_capped_per_principal_and_an_unanswered_question_times_out() {
    const ALICE: &str = "alice-token-0123456789";
    const BOB: &str = "bob-token-9876543210";
    let home = tandem_tests::mcp::home_with(&format!(
        "{DEMO_CONFIG}[mcp.request_state]\nttl = \"1s\"\nmax_pending = 1\n"
    ));
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
    // Without an operator's key, the home's key is generated, private.
    let key = server.home.join("mcp-request-state.key");
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&key).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    let call = async |id: i64, token: &str, params: &Value| -> Value {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let response = server
            .post_2026(&body, Some("codex"), "application/json")
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    };
    let alice_first = tempfile::tempdir().unwrap();
    let waiting = call(1, ALICE, &codex_params(alice_first.path())).await;
    let (_, state) = asked(&waiting["result"]);
    // Alice's second call cannot wait too: its approval fails at once and the call completes.
    let alice_second = tempfile::tempdir().unwrap();
    let capped = call(2, ALICE, &codex_params(alice_second.path())).await;
    assert_eq!(capped["result"]["resultType"], "complete", "{capped}");
    assert!(!alice_second.path().join(DEMO_FILE).exists());
    // Bob has room of his own.
    let bob = tempfile::tempdir().unwrap();
    let bobs = call(3, BOB, &codex_params(bob.path())).await;
    asked(&bobs["result"]);

    // Nobody answers Alice: her question times out, and her state is no good any more.
    server
        .wait_for_stderr_line(
            "tandem mcp-server: a question of a 2026 call went unanswered: principal alice",
            std::time::Duration::from_secs(30),
        )
        .await;
    let late = call(4, ALICE, &retry(alice_first.path(), &state, approve())).await;
    assert_eq!(late["error"]["code"], -32602, "{late}");
    assert!(!alice_first.path().join(DEMO_FILE).exists());
}

#[tokio::test]
async fn with_redis_a_state_is_honoured_only_by_the_node_whose_call_waits() {
    let redis = tandem_tests::cluster::Redis::start().await;
    let mut nodes = Vec::new();
    for node_id in ["a", "b"] {
        let home = tandem_tests::mcp::home_with(&format!(
            "{DEMO_CONFIG}[mcp.distributed]\nnode_id = \"{node_id}\"\n[mcp.request_state]\nkey = \"{KEY_HEX}\"\n"
        ));
        let path = home.path().to_path_buf();
        nodes.push(McpHttp::spawn_in(path, Some(home), &["--redis", &redis.url], "info").await);
    }
    let call = async |node: &McpHttp, id: i64, params: &Value| -> Value {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let response = node
            .post_2026(&body, Some("codex"), "application/json")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    };
    let workspace = tempfile::tempdir().unwrap();
    let first = call(&nodes[0], 1, &codex_params(workspace.path())).await;
    let (_, state) = asked(&first["result"]);
    // Node b checks the signature with the shared key, but no call waits there.
    let elsewhere = call(&nodes[1], 2, &retry(workspace.path(), &state, approve())).await;
    assert_eq!(elsewhere["error"]["code"], -32602, "{elsewhere}");
    assert!(
        elsewhere["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no call waits"),
        "{elsewhere}"
    );
    // The node running the call continues it, once.
    let second = call(&nodes[0], 3, &retry(workspace.path(), &state, approve())).await;
    let (kind, next) = asked(&second["result"]);
    assert_eq!(kind, "patch-approval");
    let replay = call(&nodes[0], 4, &retry(workspace.path(), &state, approve())).await;
    assert_eq!(replay["error"]["code"], -32602, "{replay}");
    let done = call(&nodes[0], 5, &retry(workspace.path(), &next, approve())).await;
    assert_eq!(done["result"]["isError"], false, "{done}");
    assert!(workspace.path().join(DEMO_FILE).exists());
}

/// The question id a state answers (its claims' `q`).
fn question_of(state: &str) -> String {
    let claims = state.split('.').next().unwrap();
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(claims).unwrap()).unwrap();
    claims["q"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn with_redis_a_state_is_used_once_in_the_whole_cluster() {
    let redis = tandem_tests::cluster::Redis::start().await;
    let home = tandem_tests::mcp::home_with(&format!(
        "{DEMO_CONFIG}[mcp.request_state]\nkey = \"{KEY_HEX}\"\n"
    ));
    let path = home.path().to_path_buf();
    let node = McpHttp::spawn_in(path, Some(home), &["--redis", &redis.url], "info").await;
    let call = async |id: i64, params: &Value| -> Value {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let response = node
            .post_2026(&body, Some("codex"), "application/json")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    };
    // A state this node redeems is marked used in Redis, for every other node to see.
    let workspace = tempfile::tempdir().unwrap();
    let first = call(1, &codex_params(workspace.path())).await;
    let (_, state) = asked(&first["result"]);
    let second = call(2, &retry(workspace.path(), &state, approve())).await;
    let (kind, _) = asked(&second["result"]);
    assert_eq!(kind, "patch-approval");
    let mark = format!("tandem:used-state:{}", question_of(&state));
    assert_eq!(redis.cli(&["EXISTS", &mark]).await, "1");
    let ttl: i64 = redis.cli(&["PTTL", &mark]).await.parse().unwrap();
    assert!(ttl > 0, "the mark expires with the state: {ttl}");

    // A state used on another node (its mark in Redis) is refused here although this node
    // never saw it used, and the call still waits for a valid answer.
    let other = tempfile::tempdir().unwrap();
    let waiting = call(3, &codex_params(other.path())).await;
    let (_, state) = asked(&waiting["result"]);
    let mark = format!("tandem:used-state:{}", question_of(&state));
    assert_eq!(redis.cli(&["SET", &mark, "1"]).await, "OK");
    let refused = call(4, &retry(other.path(), &state, approve())).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already been used"),
        "{refused}"
    );
    assert!(!other.path().join(DEMO_FILE).exists());
}

#[tokio::test]
async fn over_http_declined_inputs_run_nothing() {
    let workspace = tempfile::tempdir().unwrap();
    let server = McpHttp::spawn(DEMO_CONFIG, &[]).await;
    let call = async |id: i64, params: &Value| -> Value {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let response = server
            .post_2026(&body, Some("codex"), "application/json")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        response.json().await.unwrap()
    };
    let first = call(1, &codex_params(workspace.path())).await;
    let (kind, state) = asked(&first["result"]);
    assert_eq!(kind, "exec-approval");
    // Codex's own answer shape is accepted too.
    let second = call(
        2,
        &retry(workspace.path(), &state, json!({"decision": "denied"})),
    )
    .await;
    let (kind, state) = asked(&second["result"]);
    assert_eq!(kind, "patch-approval");
    let done = call(
        3,
        &retry(workspace.path(), &state, json!({"action": "decline"})),
    )
    .await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert!(!workspace.path().join(DEMO_FILE).exists());
}
