//! Replays recorded Codex sessions against Tandem (with the mock model serving the same
//! answers) and compares what comes back: the same methods in the same order, the same
//! fields in every message, and the same values where they carry meaning (statuses,
//! decisions, exit codes, texts, error messages); ids, timestamps and paths are compared by
//! shape only.
//!
//! Left out of the comparison, because Tandem does not implement them (see docs/protocol.md):
//! `remoteControl/status/changed`, `account/rateLimits/updated`, the experimental-only
//! `thread/settings/updated`, and the `warning` the reference server sends for a model slug it
//! has no metadata for; and, because their values are the run's own, the experimental-only
//! `thread/readState/changed` and the read-state fields (`readStates`, `readState`).

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{Value, json};
use tandem_tests::mock_model::{
    MockModel, MockResponse, responses_function_call, responses_text, token_deltas,
};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

const IGNORED_METHODS: [&str; 5] = [
    "remoteControl/status/changed",
    "account/rateLimits/updated",
    "thread/readState/changed",
    "thread/settings/updated",
    "warning",
];

/// Read state, whose revisions are random and whose unread positions name the run's own turns,
/// so that a recorded value can never match a replayed one.
const IGNORED_FIELDS: [&str; 2] = ["readStates", "readState"];

/// The keys of a message, recursively; arrays merge the shapes of their elements.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Shape(BTreeMap<String, Shape>);

fn shape(value: &Value) -> Shape {
    match value {
        Value::Object(map) => Shape(
            map.iter()
                .filter(|(key, _)| !IGNORED_FIELDS.contains(&key.as_str()))
                .map(|(key, value)| (key.clone(), shape(value)))
                .collect(),
        ),
        Value::Array(items) => items.iter().map(shape).fold(Shape::default(), merge),
        _ => Shape::default(),
    }
}

fn merge(mut left: Shape, right: Shape) -> Shape {
    for (key, value) in right.0 {
        let merged = match left.0.remove(&key) {
            Some(existing) => merge(existing, value),
            None => value,
        };
        left.0.insert(key, merged);
    }
    left
}

/// Keys present on one side only, as dotted paths.
fn shape_differences(expected: &Shape, actual: &Shape, path: &str, out: &mut Vec<String>) {
    let keys: BTreeSet<&String> = expected.0.keys().chain(actual.0.keys()).collect();
    for key in keys {
        let child = format!("{path}.{key}");
        match (expected.0.get(key), actual.0.get(key)) {
            (Some(a), Some(b)) => shape_differences(a, b, &child, out),
            (Some(_), None) => out.push(format!("missing {child}")),
            (None, Some(_)) => out.push(format!("extra {child}")),
            (None, None) => {}
        }
    }
}

fn kind(message: &Value) -> String {
    match message.get("method").and_then(Value::as_str) {
        Some(method) if message.get("id").is_some() => format!("request {method}"),
        Some(method) => method.to_string(),
        None if message.get("error").is_some() => "error".into(),
        None => "result".into(),
    }
}

struct Recording {
    client: Vec<Value>,
    server: Vec<Value>,
}

fn recording(name: &str) -> Recording {
    let text = std::fs::read_to_string(common::transcripts_dir().join(name)).unwrap();
    let mut client = Vec::new();
    let mut server = Vec::new();
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let Some(message) = record.get("msg").cloned() else {
            continue;
        };
        if record["dir"] == "c2s" {
            client.push(message);
        } else if !IGNORED_METHODS
            .iter()
            .any(|method| message.get("method") == Some(&json!(method)))
        {
            server.push(message);
        }
    }
    Recording { client, server }
}

/// Sends the recorded client messages (with each key of `replacements` replaced by its value:
/// recorded thread ids, learned here, and paths; cursors mapped to ours) and collects Tandem's
/// replies: each request's response, and for `turn/start` everything up to `turn/completed`,
/// answering server requests with the recorded answers.
async fn replay(
    mut server: TestServer,
    recording: &Recording,
    replacements: &mut HashMap<String, String>,
) -> Vec<Value> {
    let client = &recording.client;
    let mut last_cursor: Option<String> = None;
    let mut seen = Vec::new();
    // The client's answers to server requests, sent when each request arrives.
    let mut answers: std::collections::VecDeque<Value> = client
        .iter()
        .filter(|message| message.get("method").is_none())
        .cloned()
        .collect();
    for message in client
        .iter()
        .filter(|message| message.get("method").is_some())
    {
        let mut text = message.to_string();
        for (theirs, ours) in replacements.iter() {
            text = text.replace(theirs, ours);
        }
        let mut message: Value = serde_json::from_str(&text).unwrap();
        if let (Some(cursor), Some(params)) = (&last_cursor, message.get_mut("params"))
            && params.get("cursor").is_some()
        {
            params["cursor"] = json!(cursor);
        }
        server.send(&message).await;
        let Some(id) = message.get("id").cloned() else {
            continue;
        };
        let reply = server
            .take_matching(|m| m.get("id") == Some(&id) && m.get("method").is_none())
            .await;
        let mut batch: Vec<Value> = server.drain_backlog();
        batch.push(reply.clone());
        if message["method"] == "turn/start" {
            loop {
                let message = server.next_message().await;
                let done = message.get("method") == Some(&json!("turn/completed"));
                if message.get("method").is_some()
                    && let Some(request_id) = message.get("id")
                {
                    let mut answer = answers.pop_front().expect("a recorded answer");
                    answer["id"] = request_id.clone();
                    server.send(&answer).await;
                }
                batch.push(message);
                if done {
                    break;
                }
            }
        }
        // Learn our id for a thread the recording created.
        let recorded = recording
            .server
            .iter()
            .find(|m| m.get("id") == message.get("id") && m.get("method").is_none());
        if let (Some(theirs), Some(ours)) = (
            recorded.and_then(|m| m["result"]["thread"]["id"].as_str()),
            reply["result"]["thread"]["id"].as_str(),
        ) {
            replacements
                .entry(theirs.to_string())
                .or_insert_with(|| ours.to_string());
        }
        if let Some(cursor) = reply["result"]["nextCursor"].as_str() {
            last_cursor = Some(cursor.to_string());
        }
        seen.extend(batch);
    }
    // Everything sent after the last reply, up to the server's exit at EOF.
    let (rest, code) = server.finish().await;
    assert_eq!(code, Some(0), "the server exits cleanly at EOF");
    seen.extend(rest);
    seen.retain(|message| {
        !IGNORED_METHODS
            .iter()
            .any(|method| message.get("method") == Some(&json!(method)))
    });
    seen
}

/// Consecutive command output deltas count as one: how a process's output is cut into
/// chunks depends on timing (and the reference server never streams the first chunk).
fn collapse_output_deltas(messages: &[Value]) -> Vec<Value> {
    let mut collapsed: Vec<Value> = Vec::new();
    for message in messages {
        let is_delta = message["method"] == "item/commandExecution/outputDelta";
        if is_delta
            && collapsed
                .last()
                .is_some_and(|last| last["method"] == "item/commandExecution/outputDelta")
        {
            continue;
        }
        collapsed.push(message.clone());
    }
    collapsed
}

/// The fields whose values must match the recording, wherever they appear: statuses,
/// decisions, exit codes, command output, error codes and messages, and the `type` tags that
/// say what an item or a status is. Ids, timestamps, paths and counters are compared by shape
/// only, and so are the model's texts and deltas: the mock's answers here are not the
/// recording's (which echoed tool output), and output chunking depends on timing.
const VALUE_KEYS: [&str; 7] = [
    "status",
    "decision",
    "exitCode",
    "message",
    "code",
    "type",
    "aggregatedOutput",
];

/// Differences in the values of [`VALUE_KEYS`] at the same paths of both messages.
fn value_differences(expected: &Value, actual: &Value, path: &str, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(expected), Value::Object(actual)) => {
            for (key, expected_value) in expected {
                let Some(actual_value) = actual.get(key) else {
                    continue;
                };
                let child = format!("{path}.{key}");
                if VALUE_KEYS.contains(&key.as_str()) && !expected_value.is_object() {
                    if expected_value != actual_value {
                        out.push(format!("{child}: {expected_value} != {actual_value}"));
                    }
                } else {
                    value_differences(expected_value, actual_value, &child, out);
                }
            }
        }
        (Value::Array(expected), Value::Array(actual)) if expected.len() == actual.len() => {
            for (index, (expected, actual)) in expected.iter().zip(actual).enumerate() {
                value_differences(expected, actual, &format!("{path}[{index}]"), out);
            }
        }
        _ => {}
    }
}

fn compare(recorded: &[Value], ours: &[Value]) {
    let recorded = &collapse_output_deltas(recorded);
    let ours = &collapse_output_deltas(ours);
    let expected: Vec<String> = recorded.iter().map(kind).collect();
    let actual: Vec<String> = ours.iter().map(kind).collect();
    pretty_assertions::assert_eq!(expected, actual, "message sequence differs");
    let mut problems = Vec::new();
    for (index, (a, b)) in recorded.iter().zip(ours).enumerate() {
        let mut differences = Vec::new();
        shape_differences(&shape(a), &shape(b), "", &mut differences);
        value_differences(a, b, "", &mut differences);
        if !differences.is_empty() {
            problems.push(format!("#{index} {}: {}", kind(a), differences.join(", ")));
        }
    }
    assert!(
        problems.is_empty(),
        "field differences:\n{}",
        problems.join("\n")
    );
}

#[tokio::test]
async fn text_stream_and_history_sessions_match_the_recordings() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;

    // a_text_stream: one thread, one 8-delta answer.
    let text_stream = recording("a_text_stream.jsonl");
    model.push(MockResponse::sse(responses_text("msg_2", &token_deltas(8))));
    let server = TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(&model.base_url()),
        args: Vec::new(),
        home: Some(home.path().to_path_buf()),
        cwd: None,
    })
    .await;
    let mut thread_ids = HashMap::new();
    let ours = replay(server, &text_stream, &mut thread_ids).await;
    compare(&text_stream.server, &ours);
    let our_thread = thread_ids["01a1ffdd-bf21-7cd3-a055-888a65ab3622"].clone();
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(&model.base_url()),
        args: Vec::new(),
        home: Some(home.path().to_path_buf()),
        cwd: None,
    })
    .await;
    server.initialize().await;
    // More history for the listing scenario: enough threads for the recorded pages.
    for prompt in [
        "Run a command.",
        "Patch please. MOCK_PATCH",
        "Long answer.",
        "Another one.",
    ] {
        model.push(MockResponse::sse(responses_text("msg_x", &["ok "])));
        let thread = server
            .request("thread/start", json!({"cwd": "/home/user/project"}))
            .await
            .unwrap();
        let id = thread["thread"]["id"].as_str().unwrap().to_string();
        server
            .request(
                "turn/start",
                json!({"threadId": id, "input": [{"type": "text", "text": prompt}]}),
            )
            .await
            .unwrap();
        server.until_turn_completed().await;
    }
    server
        .request(
            "thread/name/set",
            json!({"threadId": our_thread, "name": "Example thread"}),
        )
        .await
        .unwrap();
    assert_eq!(server.shutdown().await, Some(0));

    // f_history_list_read_resume: a new process on that history.
    let history = recording("f_history_list_read_resume.jsonl");
    model.push(MockResponse::sse(responses_text("msg_9", &token_deltas(3))));
    let server = TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(&model.base_url()),
        args: Vec::new(),
        home: Some(home.path().to_path_buf()),
        cwd: None,
    })
    .await;
    let ours = replay(server, &history, &mut thread_ids).await;
    compare(&history.server, &ours);
}

/// Replays one tool scenario in a fresh server whose workspace is a temp dir standing in for
/// the recording's `/home/user/project`.
async fn replay_tool_scenario(name: &str, responses: Vec<MockResponse>, files: &[(&str, &str)]) {
    let recording = recording(name);
    let workspace = tempfile::tempdir().unwrap();
    for (file, content) in files {
        std::fs::write(workspace.path().join(file), content).unwrap();
    }
    let model = MockModel::start().await;
    model.push_all(responses);
    let server = TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(&model.base_url()),
        args: Vec::new(),
        home: None,
        cwd: Some(workspace.path().to_path_buf()),
    })
    .await;
    let mut replacements = HashMap::from([(
        "/home/user/project".to_string(),
        workspace.path().to_str().unwrap().to_string(),
    )]);
    let ours = replay(server, &recording, &mut replacements).await;
    compare(&recording.server, &ours);
}

fn exec_call(call_id: &str, cmd: &str) -> MockResponse {
    let arguments = json!({"cmd": cmd, "yield_time_ms": 2000, "login": false}).to_string();
    MockResponse::sse(responses_function_call(call_id, "exec_command", &arguments))
}

fn heredoc(patch: &str) -> String {
    format!("apply_patch <<'EOF'\n*** Begin Patch\n{patch}*** End Patch\nEOF\n")
}

fn answer(msg_id: &str) -> MockResponse {
    MockResponse::sse(responses_text(msg_id, &["Tool ", "finished"]))
}

#[tokio::test]
async fn command_approval_sessions_match_the_recordings() {
    replay_tool_scenario(
        "b_shell_approval_accept.jsonl",
        vec![
            exec_call(
                "call_5",
                "for i in 1 2 3; do echo line$i; sleep 0.2; done; touch approved.txt",
            ),
            answer("msg_7"),
        ],
        &[],
    )
    .await;
    replay_tool_scenario(
        "c_shell_approval_decline.jsonl",
        vec![
            exec_call("call_9", "touch declined.txt && echo should-not-run"),
            answer("msg_11"),
        ],
        &[],
    )
    .await;
}

#[tokio::test]
async fn file_change_sessions_match_the_recordings() {
    replay_tool_scenario(
        "d_filechange_approval_accept.jsonl",
        vec![
            exec_call(
                "call_16",
                &heredoc("*** Add File: patched.txt\n+Hello from apply_patch\n"),
            ),
            answer("msg_18"),
        ],
        &[],
    )
    .await;
    replay_tool_scenario(
        "d2_filechange_approval_decline.jsonl",
        vec![
            exec_call(
                "call_20",
                &heredoc("*** Add File: patched-declined.txt\n+Hello from apply_patch\n"),
            ),
            answer("msg_22"),
        ],
        &[],
    )
    .await;
    replay_tool_scenario(
        "d3_filechange_update_delete.jsonl",
        vec![
            exec_call(
                "call_24",
                &heredoc("*** Update File: upd.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n"),
            ),
            answer("msg_26"),
            exec_call("call_28", &heredoc("*** Delete File: gone.txt\n")),
            answer("msg_30"),
        ],
        &[("upd.txt", "alpha\nbeta\ngamma\n"), ("gone.txt", "bye\n")],
    )
    .await;
}

#[tokio::test]
async fn user_input_session_matches_the_recording() {
    let question = json!({"questions": [{"id": "confirm_path", "header": "Confirm",
        "question": "Proceed with the plan?", "options": [
            {"label": "Yes (Recommended)", "description": "Continue."},
            {"label": "No", "description": "Stop."}]}]})
    .to_string();
    replay_tool_scenario(
        "i_request_user_input.jsonl",
        vec![
            MockResponse::sse(responses_function_call(
                "call_55",
                "request_user_input",
                &question,
            )),
            answer("msg_58"),
            MockResponse::sse(responses_function_call(
                "call_60",
                "request_user_input",
                &question,
            )),
            answer("msg_63"),
        ],
        &[],
    )
    .await;
}
