//! `thread/items/list` through the real binary: a thread's items across turns in both orders,
//! pages joined by cursors (forwards and backwards), one turn's items, an item anchor, the same
//! answer once the thread is no longer loaded, and bad params.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockResponse, responses_text};

use crate::common::tool_turns::{run_turn, setup};

/// `(turnId, item type, item id)` of each entry of a page.
fn entries(page: &Value) -> Vec<(String, String, String)> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["turnId"].as_str().unwrap().to_string(),
                entry["item"]["type"].as_str().unwrap().to_string(),
                entry["item"]["id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test]
async fn items_page_across_turns_in_both_orders() {
    let mut setup = setup("never", "read-only").await;
    for (index, text) in ["first", "second"].iter().enumerate() {
        setup.model.push(MockResponse::sse(responses_text(
            &format!("msg_{index}"),
            &[&format!("answer {index}")],
        )));
        run_turn(&mut setup, text, Vec::new()).await;
    }
    let thread_id = setup.thread_id.clone();
    let server = &mut setup.server;
    let all = server
        .request("thread/items/list", json!({"threadId": thread_id}))
        .await
        .unwrap();
    let items = entries(&all);
    let kinds: Vec<&str> = items.iter().map(|(_, kind, _)| kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["userMessage", "agentMessage", "userMessage", "agentMessage"]
    );
    assert_eq!(items[0].0, items[1].0);
    assert_ne!(items[1].0, items[2].0);
    assert_eq!(all["nextCursor"], Value::Null);
    assert_eq!(all["data"][1]["item"]["text"], "answer 0");
    assert_eq!(all["data"][0]["outputDeferred"], false);
    assert!(all["data"][1]["completedAtMs"].is_i64(), "{all}");

    // Two pages of two, then back from the second page's start.
    let first = server
        .request(
            "thread/items/list",
            json!({"threadId": thread_id, "limit": 2}),
        )
        .await
        .unwrap();
    assert_eq!(entries(&first), items[..2].to_vec());
    let second = server
        .request(
            "thread/items/list",
            json!({"threadId": thread_id, "limit": 2, "cursor": first["nextCursor"]}),
        )
        .await
        .unwrap();
    assert_eq!(entries(&second), items[2..].to_vec());
    assert_eq!(second["nextCursor"], Value::Null);
    let back = server
        .request(
            "thread/items/list",
            json!({"threadId": thread_id, "sortDirection": "desc", "cursor": second["backwardsCursor"]}),
        )
        .await
        .unwrap();
    let mut before: Vec<_> = items[..2].to_vec();
    before.reverse();
    assert_eq!(entries(&back), before);

    // Newest first; one turn's items; after an item of that turn.
    let newest = server
        .request(
            "thread/items/list",
            json!({"threadId": thread_id, "sortDirection": "desc", "limit": 1}),
        )
        .await
        .unwrap();
    assert_eq!(entries(&newest), vec![items[3].clone()]);
    let turn = items[2].0.clone();
    let one_turn = server
        .request(
            "thread/items/list",
            json!({"threadId": thread_id, "turnId": turn}),
        )
        .await
        .unwrap();
    assert_eq!(entries(&one_turn), items[2..].to_vec());
    let after = server
        .request(
            "thread/items/list",
            json!({"threadId": thread_id, "turnId": turn, "cursor": {"type": "item", "itemId": items[2].2}}),
        )
        .await
        .unwrap();
    assert_eq!(entries(&after), vec![items[3].clone()]);

    // The stored thread answers the same once unloaded.
    server
        .request("thread/unsubscribe", json!({"threadId": thread_id}))
        .await
        .unwrap();
    server.notification("thread/closed").await;
    let stored = server
        .request("thread/items/list", json!({"threadId": thread_id}))
        .await
        .unwrap();
    assert_eq!(entries(&stored), items);

    // Bad params.
    for (params, message) in [
        (
            json!({"threadId": thread_id, "cursor": "nonsense"}),
            "invalid cursor: nonsense".to_string(),
        ),
        (
            json!({"threadId": thread_id, "cursor": {"type": "item", "itemId": items[0].2}}),
            "an item cursor needs the turnId of its item".to_string(),
        ),
        (
            json!({"threadId": thread_id, "turnId": "no-such-turn"}),
            "turn not found: no-such-turn".to_string(),
        ),
    ] {
        let error = server
            .request("thread/items/list", params.clone())
            .await
            .unwrap_err();
        assert_eq!(
            error,
            json!({"code": -32600, "message": message}),
            "{params}"
        );
    }
    let unknown = server
        .request(
            "thread/items/list",
            json!({"threadId": "00000000-0000-0000-0000-000000000000"}),
        )
        .await
        .unwrap_err();
    assert_eq!(unknown["code"], -32600, "{unknown}");
    let missing = server
        .request("thread/items/list", json!({}))
        .await
        .unwrap_err();
    assert_eq!(missing["code"], -32600, "{missing}");
}
