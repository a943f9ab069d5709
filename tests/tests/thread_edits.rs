//! `thread/metadata/update`, `thread/inject_items`, `thread/revert` and `thread/goal/*` against
//! the real binary
//! and the mock model: what each changes is what the next model request, `thread/read`,
//! `thread/turns/list` and a later process see; bad params are refused with the reference's
//! messages. (Another principal's thread: `thread_lifecycle.rs`.)

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, methods, mock_config};

async fn spawn_in(home: &std::path::Path, model: &MockModel) -> TestServer {
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

async fn start_thread(server: &mut TestServer) -> String {
    let thread = server
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap();
    thread["thread"]["id"].as_str().unwrap().to_string()
}

/// Runs one turn that the model answers with `answer`; returns the turn id.
async fn turn(
    server: &mut TestServer,
    model: &MockModel,
    thread_id: &str,
    prompt: &str,
    answer: &str,
) -> String {
    model.push(MockResponse::sse(responses_text("msg_1", &[answer])));
    let started = server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": prompt}]}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;
    started["turn"]["id"].as_str().unwrap().to_string()
}

/// The texts of the model-visible messages of a model request, in order.
fn request_texts(request: &Value) -> Vec<String> {
    request["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "message")
        .flat_map(|item| item["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|part| part["text"].as_str().map(str::to_string))
        .collect()
}

fn error_message(error: &Value) -> String {
    assert_eq!(error["code"], -32600, "{error}");
    error["message"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn metadata_updates_are_returned_persisted_and_checked() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let thread_id = start_thread(&mut server).await;
    turn(&mut server, &model, &thread_id, "Hello.", "Hi.").await;

    let updated = server
        .request(
            "thread/metadata/update",
            json!({"threadId": thread_id, "gitInfo": {"branch": "main", "sha": "4f1c2e9", "originUrl": "https://example.com/repo.git"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        updated["thread"]["gitInfo"],
        json!({"sha": "4f1c2e9", "branch": "main", "originUrl": "https://example.com/repo.git"})
    );
    assert_eq!(updated["thread"]["id"], thread_id.as_str());
    assert_eq!(updated["thread"]["turns"], json!([]));
    // `null` clears one field; the others stay.
    let cleared = server
        .request(
            "thread/metadata/update",
            json!({"threadId": thread_id, "gitInfo": {"branch": null}, "daybreakEnabled": true, "projectId": ""}),
        )
        .await
        .unwrap();
    assert_eq!(
        cleared["thread"]["gitInfo"],
        json!({"sha": "4f1c2e9", "branch": null, "originUrl": "https://example.com/repo.git"})
    );
    assert_eq!(cleared["thread"]["daybreakEnabled"], true);
    assert_eq!(cleared["thread"]["projectId"], Value::Null);

    let checks = [
        (
            json!({"threadId": thread_id}),
            "thread metadata update must include at least one field",
        ),
        (
            json!({"threadId": thread_id, "gitInfo": {"branch": ""}}),
            "gitInfo.branch must not be empty",
        ),
        (
            json!({"threadId": thread_id, "projectId": "proj1"}),
            "project not found: proj1",
        ),
        (
            json!({"threadId": "019a0000-0000-7000-8000-000000000000", "daybreakEnabled": true}),
            "no rollout found for thread id 019a0000-0000-7000-8000-000000000000",
        ),
    ];
    for (params, message) in checks {
        let error = server
            .request("thread/metadata/update", params)
            .await
            .unwrap_err();
        assert_eq!(error_message(&error), message);
    }
    let not_an_id = server
        .request(
            "thread/metadata/update",
            json!({"threadId": "nope", "daybreakEnabled": true}),
        )
        .await
        .unwrap_err();
    assert!(error_message(&not_an_id).starts_with("invalid thread id"));
    let undecodable = server
        .request(
            "thread/metadata/update",
            json!({"threadId": thread_id, "gitInfo": "main"}),
        )
        .await
        .unwrap_err();
    assert!(error_message(&undecodable).starts_with("Invalid request"));
    server.shutdown().await;

    // A later process reads them back, updates the stored thread and lists it with them.
    let mut server = spawn_in(home.path(), &model).await;
    let read = server
        .request("thread/read", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(read["thread"]["gitInfo"]["sha"], "4f1c2e9");
    assert_eq!(read["thread"]["daybreakEnabled"], true);
    let stored = server
        .request(
            "thread/metadata/update",
            json!({"threadId": thread_id, "gitInfo": {"branch": "feature"}}),
        )
        .await
        .unwrap();
    assert_eq!(stored["thread"]["status"], json!({"type": "notLoaded"}));
    assert_eq!(stored["thread"]["gitInfo"]["branch"], "feature");
    let listed = server.request("thread/list", json!({})).await.unwrap();
    assert_eq!(
        listed["data"][0]["gitInfo"],
        json!({"sha": "4f1c2e9", "branch": "feature", "originUrl": "https://example.com/repo.git"})
    );
    server.shutdown().await;
}

#[tokio::test]
async fn injected_items_reach_the_next_model_request_but_no_turn() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let thread_id = start_thread(&mut server).await;
    turn(
        &mut server,
        &model,
        &thread_id,
        "First question.",
        "First answer.",
    )
    .await;

    let injected = server
        .request(
            "thread/inject_items",
            json!({"threadId": thread_id, "items": [
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "The codeword is pelican-42."}]},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Noted."}]},
            ]}),
        )
        .await
        .unwrap();
    assert_eq!(injected, json!({}));
    turn(
        &mut server,
        &model,
        &thread_id,
        "Second question.",
        "Second answer.",
    )
    .await;

    let texts = request_texts(&model.requests()[1]);
    let position = |text: &str| {
        texts
            .iter()
            .position(|seen| seen == text)
            .unwrap_or_else(|| panic!("{text} not in {texts:?}"))
    };
    assert!(position("First answer.") < position("The codeword is pelican-42."));
    assert!(position("The codeword is pelican-42.") < position("Noted."));
    assert!(position("Noted.") < position("Second question."));
    // No turn and no item shows them.
    let turns = server
        .request(
            "thread/turns/list",
            json!({"threadId": thread_id, "itemsView": "full"}),
        )
        .await
        .unwrap();
    assert_eq!(turns["data"].as_array().unwrap().len(), 2);
    assert!(!turns.to_string().contains("pelican-42"), "{turns}");

    let checks = [
        (
            json!({"threadId": thread_id, "items": []}),
            "items must not be empty",
        ),
        (
            json!({"threadId": thread_id, "items": [{"bogus": 1}]}),
            "items[0] is not a valid response item: missing field `type`",
        ),
    ];
    for (params, message) in checks {
        let error = server
            .request("thread/inject_items", params)
            .await
            .unwrap_err();
        assert_eq!(error_message(&error), message);
    }
    let not_a_list = server
        .request(
            "thread/inject_items",
            json!({"threadId": thread_id, "items": "x"}),
        )
        .await
        .unwrap_err();
    assert!(error_message(&not_a_list).starts_with("Invalid request"));
    server.shutdown().await;

    // They are in the rollout: a resumed thread sends them again; a stored thread that is not
    // loaded takes none.
    let mut server = spawn_in(home.path(), &model).await;
    let unloaded = server
        .request(
            "thread/inject_items",
            json!({"threadId": thread_id, "items": [{"type": "message", "role": "user", "content": []}]}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error_message(&unloaded),
        format!("thread not found: {thread_id}")
    );
    server
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    turn(
        &mut server,
        &model,
        &thread_id,
        "Third question.",
        "Third answer.",
    )
    .await;
    assert!(
        request_texts(&model.requests()[2]).contains(&"The codeword is pelican-42.".to_string())
    );
    server.shutdown().await;
}

#[tokio::test]
async fn revert_drops_the_turn_and_later_ones_from_the_history() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let thread_id = start_thread(&mut server).await;
    let first = turn(
        &mut server,
        &model,
        &thread_id,
        "Question one.",
        "Answer one.",
    )
    .await;
    let second = turn(
        &mut server,
        &model,
        &thread_id,
        "Question two.",
        "Answer two.",
    )
    .await;
    turn(
        &mut server,
        &model,
        &thread_id,
        "Question three.",
        "Answer three.",
    )
    .await;

    let revert_id = server
        .send_request(
            "thread/revert",
            json!({"threadId": thread_id, "beforeTurnId": second}),
        )
        .await;
    let messages = vec![
        server.next_message().await,
        server.next_message().await,
        server.next_message().await,
        server.next_message().await,
    ];
    assert_eq!(
        methods(&messages),
        vec![
            "thread/status/changed",
            "thread/status/changed",
            "response",
            "thread/reverted"
        ]
    );
    assert_eq!(
        messages[0]["params"]["status"],
        json!({"type": "notLoaded"})
    );
    assert_eq!(messages[1]["params"]["status"], json!({"type": "idle"}));
    assert_eq!(messages[2]["id"], json!(revert_id));
    let result = &messages[2]["result"];
    assert_eq!(result["thread"]["turns"], json!([]));
    assert_eq!(messages[3]["params"], json!({"threadId": thread_id}));

    // The cursors start the backwards pages at the last kept turn and item.
    let turns = server
        .request(
            "thread/turns/list",
            json!({"threadId": thread_id, "sortDirection": "desc", "cursor": result["turnsBackwardsCursor"]}),
        )
        .await
        .unwrap();
    let kept: Vec<&str> = turns["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| turn["id"].as_str().unwrap())
        .collect();
    assert_eq!(kept, vec![first.as_str()]);
    let items = server
        .request(
            "thread/items/list",
            json!({"threadId": thread_id, "sortDirection": "desc", "cursor": result["itemsBackwardsCursor"], "limit": 1}),
        )
        .await
        .unwrap();
    assert_eq!(items["data"][0]["item"]["text"], "Answer one.");

    // The model forgets the dropped turns.
    turn(
        &mut server,
        &model,
        &thread_id,
        "Question four.",
        "Answer four.",
    )
    .await;
    let texts = request_texts(&model.requests()[3]);
    assert!(texts.contains(&"Answer one.".to_string()), "{texts:?}");
    for dropped in [
        "Question two.",
        "Answer two.",
        "Question three.",
        "Answer three.",
    ] {
        assert!(
            !texts.contains(&dropped.to_string()),
            "{dropped} in {texts:?}"
        );
    }

    let checks = [
        (
            json!({"threadId": thread_id, "beforeTurnId": second}),
            format!("turn not found: {second}"),
        ),
        (
            json!({"threadId": "019a0000-0000-7000-8000-000000000000", "beforeTurnId": first}),
            "thread not found: 019a0000-0000-7000-8000-000000000000".to_string(),
        ),
    ];
    for (params, message) in checks {
        let error = server.request("thread/revert", params).await.unwrap_err();
        assert_eq!(error_message(&error), message);
    }
    let missing_field = server
        .request("thread/revert", json!({"threadId": thread_id}))
        .await
        .unwrap_err();
    assert!(error_message(&missing_field).contains("missing field `beforeTurnId`"));
    server.shutdown().await;

    // A later process reads the same two turns back from the rollout.
    let mut server = spawn_in(home.path(), &model).await;
    let turns = server
        .request(
            "thread/turns/list",
            json!({"threadId": thread_id, "sortDirection": "asc"}),
        )
        .await
        .unwrap();
    let texts: Vec<String> = turns["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| turn["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(texts.len(), 2);
    assert_eq!(texts[0], first);
    server.shutdown().await;
}

#[tokio::test]
async fn a_goal_is_set_changed_cleared_and_kept_across_a_restart() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let thread_id = start_thread(&mut server).await;
    let none = server
        .request("thread/goal/get", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(none, json!({"goal": null}));
    let no_goal = server
        .request(
            "thread/goal/set",
            json!({"threadId": thread_id, "status": "active"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error_message(&no_goal),
        format!("cannot update goal for thread {thread_id}: no goal exists")
    );

    let set = server
        .request(
            "thread/goal/set",
            json!({"threadId": thread_id, "objective": "Ship the pelican feature"}),
        )
        .await
        .unwrap();
    let goal = set["goal"].clone();
    assert_eq!(goal["threadId"], thread_id.as_str());
    assert_eq!(goal["objective"], "Ship the pelican feature");
    assert_eq!(goal["status"], "active");
    assert_eq!(goal["tokenBudget"], Value::Null);
    assert_eq!(
        (goal["tokensUsed"].clone(), goal["timeUsedSeconds"].clone()),
        (json!(0), json!(0))
    );
    let updated = server.notification("thread/goal/updated").await;
    assert_eq!(
        updated,
        json!({"threadId": thread_id, "turnId": null, "goal": goal})
    );

    let paused = server
        .request(
            "thread/goal/set",
            json!({"threadId": thread_id, "status": "paused", "tokenBudget": 1000, "origin": "user"}),
        )
        .await
        .unwrap();
    assert_eq!(paused["goal"]["status"], "paused");
    assert_eq!(paused["goal"]["tokenBudget"], 1000);
    assert_eq!(paused["goal"]["objective"], "Ship the pelican feature");
    assert_eq!(paused["goal"]["createdAt"], goal["createdAt"]);
    let empty = server
        .request(
            "thread/goal/set",
            json!({"threadId": thread_id, "objective": " "}),
        )
        .await
        .unwrap_err();
    assert_eq!(error_message(&empty), "goal objective must not be empty");
    let bad_status = server
        .request(
            "thread/goal/set",
            json!({"threadId": thread_id, "status": "sleeping"}),
        )
        .await
        .unwrap_err();
    assert!(error_message(&bad_status).starts_with("Invalid request"));
    let unknown = server
        .request(
            "thread/goal/get",
            json!({"threadId": "019a0000-0000-7000-8000-000000000000"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error_message(&unknown),
        "thread not found: 019a0000-0000-7000-8000-000000000000"
    );
    server.shutdown().await;

    // The goal is in the rollout (created for it, before any turn): a resume has it back and
    // says so with `thread/goal/updated` instead of `thread/goal/cleared`.
    let mut server = spawn_in(home.path(), &model).await;
    server
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    let resumed = server.notification("thread/goal/updated").await;
    assert_eq!(resumed["goal"], paused["goal"]);
    let got = server
        .request("thread/goal/get", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(got["goal"], paused["goal"]);

    let cleared = server
        .request("thread/goal/clear", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(cleared, json!({"cleared": true}));
    assert_eq!(
        server.notification("thread/goal/cleared").await,
        json!({"threadId": thread_id})
    );
    let again = server
        .request("thread/goal/clear", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(again, json!({"cleared": false}));
    server.shutdown().await;

    let mut server = spawn_in(home.path(), &model).await;
    server
        .request("thread/resume", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(
        server.notification("thread/goal/cleared").await,
        json!({"threadId": thread_id})
    );
    server.shutdown().await;
}
