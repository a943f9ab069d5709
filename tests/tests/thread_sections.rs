//! `threadSection/*` and `thread/section/move` against the real binary: sections created,
//! listed (the built-in "Pinned" first), renamed and deleted; threads moved in, before one
//! another and out, announced with `thread/section/changed`, shown in `thread/read` and
//! `thread/list`, which filters by section and sorts by position; everything kept across a
//! restart; and the reference's refusals for bad params. (Another principal's thread:
//! `thread_lifecycle.rs`; another principal's sections: the store's tests.)

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};

const PINNED: &str = "01984de2-8f74-7c91-a3b2-5c5e937cf318";

async fn spawn_in(home: &std::path::Path, model: &MockModel) -> TestServer {
    let mut server = TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(&model.base_url()),
        args: Vec::new(),
        home: Some(home.to_path_buf()),
        cwd: None,
    })
    .await;
    server
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    server
}

async fn thread_with_turn(server: &mut TestServer, model: &MockModel, prompt: &str) -> String {
    model.push(MockResponse::sse(responses_text("msg_1", &["Done."])));
    let thread = server
        .request("thread/start", json!({"cwd": "/tmp"}))
        .await
        .unwrap();
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": prompt}]}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;
    thread_id
}

/// The ids of a `thread/list` answer, with each thread's section name.
fn listed(list: &Value) -> Vec<(String, Value)> {
    list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|thread| {
            (
                thread["id"].as_str().unwrap().to_string(),
                thread["section"]["name"].clone(),
            )
        })
        .collect()
}

async fn move_thread(server: &mut TestServer, params: Value) {
    let thread_id = params["threadId"].clone();
    let section_id = params["sectionId"].clone();
    let answer = server.request("thread/section/move", params).await.unwrap();
    assert_eq!(answer, json!({}));
    let changed = server.notification("thread/section/changed").await;
    assert_eq!(
        changed,
        json!({"threadId": thread_id, "sectionId": section_id})
    );
}

#[tokio::test]
async fn sections_group_order_and_keep_threads() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let mut threads = Vec::new();
    for prompt in ["one", "two", "three"] {
        threads.push(thread_with_turn(&mut server, &model, prompt).await);
    }
    let work = server
        .request(
            "threadSection/create",
            json!({"name": " Work ", "appearance": {"color": "red"}}),
        )
        .await
        .unwrap()["section"]
        .clone();
    let work_id = work["id"].as_str().unwrap().to_string();
    assert_eq!(
        work,
        json!({"id": work_id, "name": "Work", "appearance": {"color": "red", "icon": null}})
    );
    let sections = server
        .request("threadSection/list", json!({}))
        .await
        .unwrap();
    assert_eq!(
        sections,
        json!({"data": [{"id": PINNED, "name": "Pinned", "appearance": null}, work], "nextCursor": null})
    );
    let first_page = server
        .request("threadSection/list", json!({"limit": 1}))
        .await
        .unwrap();
    assert_eq!(first_page["nextCursor"], PINNED);

    for thread in &threads {
        move_thread(
            &mut server,
            json!({"threadId": thread, "sectionId": work_id}),
        )
        .await;
    }
    move_thread(
        &mut server,
        json!({"threadId": threads[2], "sectionId": work_id, "beforeThreadId": threads[0]}),
    )
    .await;
    let by_position = json!({"sectionId": work_id, "sortKey": "section_position", "limit": 2});
    let page = server
        .request("thread/list", by_position.clone())
        .await
        .unwrap();
    let work_name = json!("Work");
    assert_eq!(
        listed(&page),
        vec![
            (threads[2].clone(), work_name.clone()),
            (threads[0].clone(), work_name.clone())
        ]
    );
    let mut next = by_position.clone();
    next["cursor"] = page["nextCursor"].clone();
    let rest = server.request("thread/list", next).await.unwrap();
    assert_eq!(listed(&rest), vec![(threads[1].clone(), work_name.clone())]);
    assert_eq!(rest["nextCursor"], Value::Null);

    move_thread(
        &mut server,
        json!({"threadId": threads[1], "sectionId": null}),
    )
    .await;
    let unsectioned = server
        .request("thread/list", json!({"sectionId": null}))
        .await
        .unwrap();
    assert_eq!(
        listed(&unsectioned),
        vec![(threads[1].clone(), Value::Null)]
    );
    let renamed = server
        .request(
            "threadSection/update",
            json!({"sectionId": work_id, "name": "Projects"}),
        )
        .await
        .unwrap();
    assert_eq!(
        renamed["section"]["appearance"],
        json!({"color": "red", "icon": null})
    );

    // Across a restart: the section, its order and the threads' places.
    server.shutdown().await;
    let mut server = spawn_in(home.path(), &model).await;
    let read = server
        .request("thread/read", json!({"threadId": threads[2]}))
        .await
        .unwrap();
    assert_eq!(read["thread"]["section"]["name"], "Projects");
    let resumed = server
        .request("thread/resume", json!({"threadId": threads[0]}))
        .await
        .unwrap();
    assert_eq!(resumed["thread"]["section"]["name"], "Projects");
    assert!(read["thread"]["sectionEnteredAt"].as_i64().unwrap() > 0);
    let page = server
        .request(
            "thread/list",
            json!({"sectionId": work_id, "sortKey": "section_position", "sortDirection": "asc"}),
        )
        .await
        .unwrap();
    let projects = json!("Projects");
    assert_eq!(
        listed(&page),
        vec![
            (threads[2].clone(), projects.clone()),
            (threads[0].clone(), projects)
        ]
    );

    // Deleting the section frees its threads.
    let deleted = server
        .request("threadSection/delete", json!({"sectionId": work_id}))
        .await
        .unwrap();
    assert_eq!(deleted, json!({}));
    let read = server
        .request("thread/read", json!({"threadId": threads[2]}))
        .await
        .unwrap();
    assert_eq!(
        (
            &read["thread"]["section"],
            &read["thread"]["sectionEnteredAt"]
        ),
        (&Value::Null, &Value::Null)
    );
}

#[tokio::test]
async fn bad_section_params_are_refused_as_the_reference_does() {
    let home = tempfile::tempdir().unwrap();
    let model = MockModel::start().await;
    let mut server = spawn_in(home.path(), &model).await;
    let thread = thread_with_turn(&mut server, &model, "hello").await;
    let missing_thread = "019a0000-0000-7000-8000-000000000000";
    let refusals = [
        (
            "threadSection/create",
            json!({}),
            -32600,
            "Invalid request: missing field `name`".to_string(),
        ),
        (
            "threadSection/create",
            json!({"name": "  "}),
            -32602,
            "section name must not be empty".to_string(),
        ),
        (
            "threadSection/update",
            json!({"sectionId": "nope", "name": "x"}),
            -32602,
            "thread section not found: nope".to_string(),
        ),
        (
            "threadSection/update",
            json!({"sectionId": PINNED, "name": "Pins"}),
            -32602,
            "the built-in pinned section cannot be renamed".to_string(),
        ),
        (
            "threadSection/delete",
            json!({"sectionId": PINNED}),
            -32602,
            "the built-in pinned section cannot be deleted".to_string(),
        ),
        (
            "threadSection/delete",
            json!({"sectionId": "nope"}),
            -32602,
            "thread section not found: nope".to_string(),
        ),
        (
            "thread/section/move",
            json!({"threadId": thread, "sectionId": "nope"}),
            -32600,
            "section nope does not exist".to_string(),
        ),
        (
            "thread/section/move",
            json!({"threadId": missing_thread, "sectionId": PINNED}),
            -32600,
            "thread not found: 019a0000-0000-7000-8000-000000000000".to_string(),
        ),
        (
            "thread/section/move",
            json!({"threadId": thread, "sectionId": PINNED, "beforeThreadId": thread}),
            -32600,
            format!("thread {thread} cannot be moved before itself"),
        ),
        (
            "thread/section/move",
            json!({"threadId": thread, "sectionId": PINNED, "beforeThreadId": missing_thread}),
            -32600,
            format!("before thread {missing_thread} is not in section {PINNED}"),
        ),
        (
            "thread/list",
            json!({"sortKey": "section_position"}),
            -32600,
            "section-position sorting requires a section filter".to_string(),
        ),
    ];
    for (method, params, code, message) in refusals {
        let error = server.request(method, params.clone()).await.unwrap_err();
        assert_eq!(
            (&error["code"], error["message"].as_str().unwrap()),
            (&json!(code), message.as_str()),
            "{method} {params}"
        );
    }
}
