//! Project instructions (AGENTS.md) and `thread/rollback`, end to end through the binary and
//! the mock model, across restarts.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

fn text_input(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}

async fn spawn_in(home: &Path, model: &MockModel) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(&model.base_url()),
        args: Vec::new(),
        home: Some(home.to_path_buf()),
        cwd: None,
    })
    .await;
    server.initialize().await;
    server
}

/// Runs one turn answering `answer` and returns the request the model received.
async fn turn(
    server: &mut TestServer,
    model: &MockModel,
    thread_id: &str,
    prompt: &str,
    answer: &str,
) -> Value {
    model.push(MockResponse::sse(responses_text("msg_1", &[answer])));
    let before = model.requests().len();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input(prompt)}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    let completed = messages.last().unwrap();
    assert_eq!(
        completed["params"]["turn"]["status"], "completed",
        "{completed}"
    );
    model.requests()[before].clone()
}

/// The texts of the input items of a model request, in order.
fn input_texts(request: &Value) -> Vec<String> {
    request["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|item| {
            item["content"].as_array().map(|parts| {
                parts
                    .iter()
                    .filter_map(|part| part["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("")
            })
        })
        .collect()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test]
async fn agents_md_reaches_the_model_once_and_resume_keeps_what_the_thread_started_with() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    let cwd = repo.join("crates/app");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    write(&home.path().join("AGENTS.md"), "Global rule.");
    write(&repo.join("AGENTS.md"), "Root rule.");
    write(&repo.join("crates/AGENTS.md"), "Replaced rule.");
    write(&repo.join("crates/AGENTS.override.md"), "Override rule.");
    write(&cwd.join("AGENTS.md"), "Nearest rule.");
    let cwd_text = cwd.to_string_lossy().into_owned();
    let sources = json!([
        home.path().join("AGENTS.md").to_string_lossy(),
        repo.join("AGENTS.md").to_string_lossy(),
        repo.join("crates/AGENTS.override.md").to_string_lossy(),
        cwd.join("AGENTS.md").to_string_lossy(),
    ]);
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;

    let config = server
        .request("config/read", json!({"cwd": cwd_text}))
        .await
        .unwrap();
    assert_eq!(config["instructionSources"], sources);
    let started = server
        .request("thread/start", json!({"cwd": cwd_text}))
        .await
        .unwrap();
    assert_eq!(started["instructionSources"], sources);
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();

    let first = turn(&mut server, &model, &thread_id, "first", "one").await;
    let expected = format!(
        "# AGENTS.md instructions for {cwd_text}\n\n<INSTRUCTIONS>\nGlobal rule.\n\nRoot rule.\n\nOverride rule.\n\nNearest rule.\n</INSTRUCTIONS>"
    );
    let texts = input_texts(&first);
    assert_eq!(texts[0], expected);
    assert_eq!(first["input"][0]["role"], "user");
    assert!(texts[1].starts_with("<environment_context>"), "{texts:?}");
    assert_eq!(texts[2], "first");
    let second = turn(&mut server, &model, &thread_id, "second", "two").await;
    let sent = input_texts(&second);
    assert_eq!(sent.iter().filter(|text| **text == expected).count(), 1);
    assert_eq!(server.shutdown().await, Some(0));

    // A changed file reaches new threads; a resumed thread keeps what it started with.
    write(&cwd.join("AGENTS.md"), "Changed rule.");
    let mut server = spawn_in(home.path(), &model).await;
    let resumed = server
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(resumed["instructionSources"], sources);
    let third = turn(&mut server, &model, &thread_id, "third", "three").await;
    let texts = input_texts(&third);
    assert_eq!(texts[0], expected);
    assert!(!texts.iter().any(|text| text.contains("Changed rule.")));
    let fresh = server
        .request("thread/start", json!({"cwd": cwd_text}))
        .await
        .unwrap();
    let fresh_id = fresh["thread"]["id"].as_str().unwrap().to_string();
    let request = turn(&mut server, &model, &fresh_id, "hello", "hi").await;
    assert!(input_texts(&request)[0].contains("Changed rule."));
}

#[tokio::test]
async fn the_size_cap_cuts_the_instructions_and_zero_turns_them_off() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    write(&work.path().join("AGENTS.md"), &"x".repeat(100));
    let model = MockModel::start().await;
    let config = format!(
        "project_doc_max_bytes = 10\n{}",
        mock_config(&model.base_url())
    );
    // `project_doc_max_bytes` is a cap, not a key a client may set by default: the operator
    // lets this client set any key.
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: config,
        args: vec![
            "-c".to_string(),
            "clients.allow_client_config=\"all\"".to_string(),
        ],
        home: Some(home.path().to_path_buf()),
        cwd: None,
    })
    .await;
    server.initialize().await;
    let cwd = work.path().to_string_lossy().into_owned();
    let started = server
        .request("thread/start", json!({"cwd": cwd}))
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    let request = turn(&mut server, &model, &thread_id, "q", "a").await;
    assert!(input_texts(&request)[0].contains(&format!(
        "<INSTRUCTIONS>\n{}\n</INSTRUCTIONS>",
        "x".repeat(10)
    )));
    // The cut is the user's to know: one `warning` for the thread, in its first turn.
    let warnings: Vec<&Value> = server
        .log
        .iter()
        .filter(|message| message["method"] == "warning")
        .map(|message| &message["params"])
        .collect();
    assert_eq!(
        warnings,
        [&json!({
            "threadId": thread_id,
            "message": format!(
                "{cwd}/AGENTS.md was truncated to 10 of its 100 bytes: the project instructions are capped at project_doc_max_bytes (10 bytes)"
            ),
        })]
    );

    let off = server
        .request(
            "thread/start",
            json!({"cwd": cwd, "config": {"project_doc_max_bytes": 0}}),
        )
        .await
        .unwrap();
    assert_eq!(off["instructionSources"], json!([]));
    let off_id = off["thread"]["id"].as_str().unwrap().to_string();
    let request = turn(&mut server, &model, &off_id, "q", "a").await;
    assert!(input_texts(&request)[0].starts_with("<environment_context>"));
    assert_eq!(
        server
            .log
            .iter()
            .filter(|message| message["method"] == "warning")
            .count(),
        1,
        "instructions turned off cut nothing"
    );
}

#[tokio::test]
async fn rollback_drops_turns_from_history_and_restart_agrees() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let work = tempfile::tempdir().unwrap();
    let mut server = spawn_in(home.path(), &model).await;
    let started = server
        .request(
            "thread/start",
            json!({"cwd": work.path().to_string_lossy()}),
        )
        .await
        .unwrap();
    let thread_id = started["thread"]["id"].as_str().unwrap().to_string();
    for (prompt, answer) in [("q1", "a1"), ("q2", "a2"), ("q3", "a3")] {
        turn(&mut server, &model, &thread_id, prompt, answer).await;
    }

    let error = server
        .request(
            "thread/rollback",
            json!({"threadId": thread_id, "numTurns": 0}),
        )
        .await
        .unwrap_err();
    assert_eq!(error["message"], "numTurns must be at least 1");
    let rolled = server
        .request(
            "thread/rollback",
            json!({"threadId": thread_id, "numTurns": 2}),
        )
        .await
        .unwrap();
    assert_eq!(rolled["thread"]["id"], json!(thread_id));
    let turns = rolled["thread"]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0]["items"][0]["content"][0]["text"], "q1");

    let request = turn(&mut server, &model, &thread_id, "q4", "a4").await;
    let texts = input_texts(&request);
    assert_eq!(&texts[1..], ["q1", "a1", "q4"]);

    // Refused while a turn runs.
    let (response, gate) = MockResponse::gated(responses_text("msg_g", &["slow"]));
    model.push(response);
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": text_input("q5")}),
        )
        .await
        .unwrap();
    assert!(
        gate.wait_requested(std::time::Duration::from_secs(10))
            .await
    );
    let error = server
        .request(
            "thread/rollback",
            json!({"threadId": thread_id, "numTurns": 1}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error["message"],
        "cannot roll back while a turn is in progress"
    );
    gate.release_all();
    server.until_turn_completed().await;
    server
        .request(
            "thread/rollback",
            json!({"threadId": thread_id, "numTurns": 1}),
        )
        .await
        .unwrap();
    assert_eq!(server.shutdown().await, Some(0));

    // The rollout's rollback records rebuild the same thread for readers and resume.
    let mut server = spawn_in(home.path(), &model).await;
    let read = server
        .request(
            "thread/read",
            json!({"threadId": thread_id, "includeTurns": true}),
        )
        .await
        .unwrap();
    let prompts: Vec<&str> = read["thread"]["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| turn["items"][0]["content"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(prompts, ["q1", "q4"]);
    server
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    let request = turn(&mut server, &model, &thread_id, "q6", "a6").await;
    assert_eq!(&input_texts(&request)[1..], ["q1", "a1", "q4", "a4", "q6"]);
}
