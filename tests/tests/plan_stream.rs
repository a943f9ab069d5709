//! A plan-mode turn's proposed plan through the real binary and the mock model: the
//! `<proposed_plan>` block of the answer, with its tags split across stream deltas, becomes a
//! `plan` item streamed as `item/plan/delta`, completed before the agent message, which keeps
//! only the text around the block; an answer that is all plan shows no agent message; the
//! same answer outside plan mode is an ordinary message. `thread/read` keeps the plan item.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use common::tool_turns::{completed_item, find, run_turn_with, setup};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockResponse, responses_text};

fn plan_mode() -> Value {
    json!({"collaborationMode": {"mode": "plan", "settings": {"model": "mock-model"}}})
}

fn default_mode() -> Value {
    json!({"collaborationMode": {"mode": "default", "settings": {"model": "mock-model"}}})
}

/// The concatenated deltas of `method`, checking that each names `item_id`.
fn deltas(messages: &[Value], method: &str, item_id: &str) -> String {
    find(messages, method)
        .into_iter()
        .map(|message| {
            assert_eq!(message["params"]["itemId"], item_id, "{message:#}");
            message["params"]["delta"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// Position of the first `method` notification about an item of `item_type`.
fn position(messages: &[Value], method: &str, item_type: &str) -> usize {
    messages
        .iter()
        .position(|message| {
            message["method"] == method && message["params"]["item"]["type"] == item_type
        })
        .unwrap_or_else(|| panic!("no {method} of a {item_type} item in {messages:#?}"))
}

#[tokio::test]
async fn a_proposed_plan_streams_as_a_plan_item_beside_the_message() {
    let mut setup = setup("never", "read-only").await;
    setup.model.push(MockResponse::sse(responses_text(
        "msg_1",
        &[
            "Here is my plan.\n<prop",
            "osed_plan>\n# Plan\n- one",
            "\n- two\n</proposed",
            "_plan>\nShall I go on?",
        ],
    )));
    let messages = run_turn_with(&mut setup, plan_mode(), "plan it", Vec::new()).await;
    let turn_id = find(&messages, "turn/started")[0]["params"]["turn"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let plan_id = format!("{turn_id}-plan");

    assert_eq!(
        deltas(&messages, "item/plan/delta", &plan_id),
        "# Plan\n- one\n- two\n"
    );
    assert_eq!(
        deltas(&messages, "item/agentMessage/delta", "msg_1"),
        "Here is my plan.\nShall I go on?"
    );
    let plan = completed_item(&messages, "plan");
    assert_eq!(
        (&plan["id"], &plan["text"]),
        (&json!(plan_id), &json!("# Plan\n- one\n- two\n"))
    );
    assert_eq!(
        completed_item(&messages, "agentMessage")["text"],
        "Here is my plan.\nShall I go on?"
    );
    // The message starts with its own first text, before the plan; the plan completes first.
    assert!(
        position(&messages, "item/started", "agentMessage")
            < position(&messages, "item/started", "plan")
    );
    assert!(
        position(&messages, "item/completed", "plan")
            < position(&messages, "item/completed", "agentMessage")
    );
    // The plan item is kept with the turn: `thread/read` shows it, before the message.
    let read = setup
        .server
        .request(
            "thread/read",
            json!({"threadId": setup.thread_id, "includeTurns": true}),
        )
        .await
        .unwrap();
    let kinds: Vec<&Value> = read["thread"]["turns"][0]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| &item["type"])
        .collect();
    assert_eq!(
        kinds,
        [
            &json!("userMessage"),
            &json!("plan"),
            &json!("agentMessage")
        ]
    );
    assert_eq!(
        read["thread"]["turns"][0]["items"][1]["text"],
        "# Plan\n- one\n- two\n"
    );
    // The model's history keeps the whole answer, tags included.
    setup
        .model
        .push(MockResponse::sse(responses_text("msg_2", &["ok"])));
    run_turn_with(&mut setup, plan_mode(), "go on", Vec::new()).await;
    let history = setup.model.requests()[1]["input"].to_string();
    assert!(history.contains("<proposed_plan>\\n# Plan"), "{history}");
}

#[tokio::test]
async fn an_answer_that_is_all_plan_shows_no_message_and_outside_plan_mode_no_plan() {
    let mut setup = setup("never", "read-only").await;
    let answer = ["\n<proposed_plan>\n- only step\n", "</proposed_plan>\n"];
    setup
        .model
        .push(MockResponse::sse(responses_text("msg_1", &answer)));
    let messages = run_turn_with(&mut setup, plan_mode(), "plan it", Vec::new()).await;
    assert_eq!(completed_item(&messages, "plan")["text"], "- only step\n");
    let agent_items: Vec<&Value> = find(&messages, "item/started")
        .into_iter()
        .chain(find(&messages, "item/completed"))
        .filter(|message| message["params"]["item"]["type"] == "agentMessage")
        .collect();
    assert_eq!(agent_items, Vec::<&Value>::new());
    assert!(find(&messages, "item/agentMessage/delta").is_empty());

    setup
        .model
        .push(MockResponse::sse(responses_text("msg_2", &answer)));
    let messages = run_turn_with(&mut setup, default_mode(), "again", Vec::new()).await;
    assert!(find(&messages, "item/plan/delta").is_empty());
    assert_eq!(
        completed_item(&messages, "agentMessage")["text"],
        answer.concat()
    );
    let plans = find(&messages, "item/completed")
        .into_iter()
        .filter(|message| message["params"]["item"]["type"] == "plan")
        .count();
    assert_eq!(plans, 0);
}
