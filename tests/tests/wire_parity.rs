//! Wire parity with the reference on what the recorded transcripts show: experimental gating
//! of fields and methods (`g_errors`), `getConversationSummary` (`g3_error_probes`), and the
//! `UserInput` variants `mention`, `skill`, `audio` and `localAudio`.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

mod common;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{TestServer, mock_config};

use common::transcripts_dir;

/// The `msg` of every line of a transcript, by `seq`.
fn transcript(name: &str) -> Vec<(u64, Value)> {
    let text = std::fs::read_to_string(transcripts_dir().join(name)).unwrap();
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter_map(|record| Some((record["seq"].as_u64()?, record.get("msg")?.clone())))
        .collect()
}

async fn started_thread(server: &mut TestServer) -> String {
    let result = server
        .request("thread/start", json!({"cwd": "/tmp/project"}))
        .await
        .unwrap();
    server.notification("thread/started").await;
    result["thread"]["id"].as_str().unwrap().to_string()
}

/// The requests `g_errors` sends without `experimentalApi` get the reference's error, word for
/// word; with `experimentalApi` the same requests are no longer refused for it.
#[tokio::test]
async fn experimental_fields_and_methods_are_gated_with_the_reference_wording() {
    let lines = transcript("g_errors.jsonl");
    let message = |seq: u64| lines.iter().find(|(at, _)| *at == seq).unwrap().1.clone();
    let model = MockModel::start().await;

    let mut stable = TestServer::spawn(&mock_config(&model.base_url())).await;
    stable.initialize().await;
    for (request_seq, answer_seq) in [(29, 30), (31, 32), (33, 34)] {
        let request = message(request_seq);
        let expected = message(answer_seq);
        let error = stable
            .request(
                request["method"].as_str().unwrap(),
                request["params"].clone(),
            )
            .await
            .unwrap_err();
        assert_eq!(error, expected["error"], "answer to {request}");
    }
    // An explicit `null` does not use the field.
    stable
        .request(
            "thread/start",
            json!({"cwd": "/tmp/project", "dynamicTools": null}),
        )
        .await
        .unwrap();
    assert_eq!(stable.shutdown().await, Some(0));

    let mut experimental = TestServer::spawn(&mock_config(&model.base_url())).await;
    experimental
        .initialize_with(json!({"experimentalApi": true}))
        .await;
    experimental
        .request(
            "thread/start",
            json!({"cwd": "/tmp/project", "dynamicTools": []}),
        )
        .await
        .unwrap();
    let error = experimental
        .request(
            "thread/backgroundTerminals/clean",
            json!({"threadId": "01a1ffd8-0000-7000-8000-000000000000"}),
        )
        .await
        .unwrap_err();
    assert_ne!(
        error["message"],
        "thread/backgroundTerminals/clean requires experimentalApi capability"
    );
    assert_eq!(experimental.shutdown().await, Some(0));
}

/// `getConversationSummary` answers with the reference's shape, by id and by rollout path,
/// with the values `thread/read` reports.
#[tokio::test]
async fn get_conversation_summary_answers_as_the_reference() {
    let lines = transcript("g3_error_probes.jsonl");
    let reference = &lines.iter().find(|(seq, _)| *seq == 56).unwrap().1["result"];
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text(
        "msg_1",
        &["Hi", " there"],
    )));
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;
    let thread_id = started_thread(&mut server).await;
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "Summarize me"}]}),
        )
        .await
        .unwrap();
    server.until_turn_completed().await;
    let thread = server
        .request("thread/read", json!({"threadId": thread_id}))
        .await
        .unwrap()["thread"]
        .clone();

    let by_id = server
        .request(
            "getConversationSummary",
            json!({"conversationId": thread_id.to_uppercase()}),
        )
        .await
        .unwrap();
    let keys = |value: &Value| -> Vec<String> {
        let mut keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    assert_eq!(keys(&by_id["summary"]), keys(&reference["summary"]));
    let summary = &by_id["summary"];
    assert_eq!(summary["conversationId"], json!(thread_id));
    assert_eq!(summary["path"], thread["path"]);
    assert_eq!(summary["preview"], "Summarize me");
    assert_eq!(summary["modelProvider"], thread["modelProvider"]);
    assert_eq!(summary["cwd"], thread["cwd"]);
    assert_eq!(summary["cliVersion"], thread["cliVersion"]);
    assert_eq!(summary["source"], "vscode");
    let timestamp = summary["timestamp"].as_str().unwrap();
    assert_eq!(
        timestamp.len(),
        "2026-11-21T20:48:24.761Z".len(),
        "{timestamp}"
    );
    assert!(timestamp.ends_with('Z'), "{timestamp}");

    let by_path = server
        .request(
            "getConversationSummary",
            json!({"rolloutPath": thread["path"]}),
        )
        .await
        .unwrap();
    assert_eq!(by_path, by_id);

    let error = server
        .request(
            "getConversationSummary",
            json!({"rolloutPath": "/nowhere/notes.jsonl"}),
        )
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600);
    assert_eq!(
        error["message"],
        "no rollout found for path: /nowhere/notes.jsonl"
    );
    let error = server
        .request(
            "getConversationSummary",
            json!({"conversationId": "01a1ffd8-0000-7000-8000-000000000000"}),
        )
        .await
        .unwrap_err();
    assert_eq!(error["code"], -32600);
    assert_eq!(server.shutdown().await, Some(0));
}

/// Mentions and skills are accepted, echoed in the userMessage item, and reach the model as
/// context next to the text.
#[tokio::test]
async fn mentions_and_skills_reach_the_model_as_context() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_1", &["Done"])));
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;
    let thread_id = started_thread(&mut server).await;
    let input = json!([
        {"type": "text", "text": "Use them"},
        {"type": "mention", "name": "Docs", "path": "app://docs"},
        {"type": "skill", "name": "review", "path": "/skills/review/SKILL.md"},
    ]);
    server
        .request("turn/start", json!({"threadId": thread_id, "input": input}))
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    let completed = messages.last().unwrap();
    assert_eq!(completed["params"]["turn"]["status"], "completed");
    let user_message = messages
        .iter()
        .find(|message| {
            message["method"] == "item/completed"
                && message["params"]["item"]["type"] == "userMessage"
        })
        .unwrap();
    assert_eq!(
        user_message["params"]["item"]["content"],
        json!([
            {"type": "text", "text": "Use them", "text_elements": []},
            {"type": "mention", "name": "Docs", "path": "app://docs"},
            {"type": "skill", "name": "review", "path": "/skills/review/SKILL.md"},
        ])
    );
    let body = serde_json::to_string(&model.requests()[0]).unwrap();
    assert!(
        body.contains("<mention>\\n<name>Docs</name>\\n<path>app://docs</path>\\n</mention>"),
        "{body}"
    );
    assert!(
        body.contains(
            "<skill>\\n<name>review</name>\\n<path>/skills/review/SKILL.md</path>\\n</skill>"
        ),
        "{body}"
    );
    assert_eq!(server.shutdown().await, Some(0));
}

/// A turn with audio fails with a clear error before any model request, and the thread takes
/// the next turn.
#[tokio::test]
async fn audio_fails_the_turn_with_a_clear_error() {
    let model = MockModel::start().await;
    model.push(MockResponse::sse(responses_text("msg_1", &["Heard"])));
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;
    let thread_id = started_thread(&mut server).await;
    for audio in [
        json!({"type": "audio", "url": "data:audio/wav;base64,UklGRg=="}),
        json!({"type": "localAudio", "path": "/tmp/voice.wav"}),
    ] {
        server
            .request(
                "turn/start",
                json!({"threadId": thread_id, "input": [{"type": "text", "text": "Listen"}, audio]}),
            )
            .await
            .unwrap();
        let messages = server.until_turn_completed().await;
        let error = messages
            .iter()
            .find(|message| message["method"] == "error")
            .unwrap();
        assert_eq!(
            error["params"]["error"]["message"],
            "audio input is not supported: the model providers of this server take text and images only"
        );
        assert_eq!(error["params"]["willRetry"], false);
        assert_eq!(
            messages.last().unwrap()["params"]["turn"]["status"],
            "failed"
        );
    }
    assert_eq!(model.request_count(), 0);

    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": "Text only"}]}),
        )
        .await
        .unwrap();
    let messages = server.until_turn_completed().await;
    assert_eq!(
        messages.last().unwrap()["params"]["turn"]["status"],
        "completed"
    );
    assert_eq!(model.request_count(), 1);
    assert_eq!(server.shutdown().await, Some(0));
}

/// `params` as an array must hold every field of the params struct, and `null` params read as
/// absent, with the reference's messages.
#[tokio::test]
async fn params_as_an_empty_array_or_null_get_the_reference_errors() {
    let model = MockModel::start().await;
    let mut server = TestServer::spawn(&mock_config(&model.base_url())).await;
    server.initialize().await;
    let empty = server
        .request("thread/loaded/list", json!([]))
        .await
        .unwrap_err();
    assert_eq!(
        empty,
        json!({"code": -32600, "message": "Invalid request: invalid length 0, expected struct ThreadLoadedListParams with 2 elements"})
    );
    let null = server
        .request("thread/loaded/list", Value::Null)
        .await
        .unwrap_err();
    assert_eq!(
        null,
        json!({"code": -32600, "message": "Invalid request: missing field `params`"})
    );
    assert_eq!(
        server.request("thread/loaded/list", json!({})).await,
        Ok(json!({"data": [], "nextCursor": null}))
    );
    assert_eq!(server.shutdown().await, Some(0));
}
