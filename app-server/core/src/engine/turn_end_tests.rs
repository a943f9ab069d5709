//! A turn whose task panics ends `failed`, and the thread takes the next turn; an interrupt of
//! a turn that is just starting is answered only after the turn announced itself.
//!
//! The engine runs in-process; its notifications are recorded as the JSON a front end would send.
//! The models are test-only clients behind the real [`ModelClient`] trait: one panics
//! mid-stream, one answers. Neither asks the user, so the approver only ever withdraws.

use std::sync::Arc;
use std::time::Duration;

use app_server_protocol::thread_requests::ThreadStartParams;
use app_server_protocol::turn_requests::TurnStartParams;
use futures::StreamExt;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::access::{ClientPolicy, FrontEnd};
use crate::config::Config;
use crate::engine::Engine;
use crate::engine::test_support::{NoUser, RecordingSink};
use crate::model::{
    ContentItem, ModelClient, ModelEvent, ModelListFuture, ModelRequest, ModelStream, ResponseItem,
};
use crate::store::Store;
use crate::sync::lock;

/// Streams one delta, then panics, as a provider bug would.
struct PanickingClient;

impl ModelClient for PanickingClient {
    fn stream(&self, _request: ModelRequest) -> ModelStream {
        let delta = Ok(ModelEvent::OutputTextDelta {
            item_id: "msg_1".to_string(),
            delta: "partial".to_string(),
        });
        let events = futures::stream::iter([0, 1]).map(move |step| {
            if step == 1 {
                panic!("test provider panics mid-stream");
            }
            delta.clone()
        });
        Box::pin(events)
    }

    fn list_models(&self) -> ModelListFuture<'_> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

/// Answers "done" at once.
struct AnsweringClient;

impl ModelClient for AnsweringClient {
    fn stream(&self, _request: ModelRequest) -> ModelStream {
        let message = ResponseItem::Message {
            id: Some("msg_2".to_string()),
            role: "assistant".to_string(),
            content: vec![ContentItem::OutputText {
                text: "done".to_string(),
            }],
        };
        Box::pin(futures::stream::iter([
            Ok(ModelEvent::OutputItemDone(message)),
            Ok(ModelEvent::Completed {
                response_id: "resp_2".to_string(),
                usage: None,
            }),
        ]))
    }

    fn list_models(&self) -> ModelListFuture<'_> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

/// Reads notifications until a `method` one; returns it and what came before.
async fn until(lines: &mut mpsc::Receiver<Value>, method: &str) -> (Value, Vec<Value>) {
    let mut before = Vec::new();
    loop {
        let message = tokio::time::timeout(Duration::from_secs(10), lines.recv())
            .await
            .expect("a notification within 10 s")
            .expect("the sender is alive");
        if message["method"] == method {
            return (message, before);
        }
        before.push(message);
    }
}

fn turn_start(thread_id: &str, text: &str) -> TurnStartParams {
    serde_json::from_value(json!({
        "threadId": thread_id,
        "input": [{"type": "text", "text": text}],
    }))
    .expect("turn/start params")
}

#[tokio::test]
async fn a_panicking_provider_fails_the_turn_and_the_thread_goes_on() {
    let home = tempfile::tempdir().expect("tempdir");
    let config = Config::load(
        Some(home.path().to_path_buf()),
        &["model_provider=\"demo\"".to_string()],
    )
    .expect("config");
    let store = Arc::new(Store::open(&config.home).expect("store"));
    let (sender, mut lines) = mpsc::channel(1024);
    let access = ClientPolicy::resolve(&config, FrontEnd::AppServerStdio);
    let account = Arc::new(crate::account::AccountState::load(&config.home));
    let engine = Engine::new(
        config,
        store,
        account,
        Arc::new(RecordingSink(sender)),
        Arc::new(NoUser),
        crate::principal::Principal::local_user(),
        access,
    );
    let thread_id = engine
        .start_thread(ThreadStartParams::default())
        .await
        .expect("thread/start")
        .thread
        .id;
    let thread = engine.thread(&thread_id).expect("loaded");
    lock(&thread.state).client = Arc::new(PanickingClient);

    let (first, launcher) = engine
        .start_turn(turn_start(&thread_id, "one"))
        .expect("turn/start");
    launcher.expect("a new turn").launch();
    let (completed, before) = until(&mut lines, "turn/completed").await;
    assert_eq!(completed["params"]["turn"]["id"], json!(first.id));
    assert_eq!(completed["params"]["turn"]["status"], "failed");
    let error = before
        .iter()
        .find(|message| message["method"] == "error")
        .expect("an error notification before turn/completed");
    assert_eq!(
        error["params"]["error"]["message"],
        "internal error: test provider panics mid-stream"
    );
    assert_eq!(error["params"]["turnId"], json!(first.id));

    // The thread is free: the next turn/start starts a new turn instead of joining the dead one.
    lock(&thread.state).client = Arc::new(AnsweringClient);
    let (second, launcher) = engine
        .start_turn(turn_start(&thread_id, "two"))
        .expect("turn/start");
    assert!(second.id != first.id, "the dead turn came back");
    launcher.expect("a new turn").launch();
    let (completed, _) = until(&mut lines, "turn/completed").await;
    assert_eq!(completed["params"]["turn"]["id"], json!(second.id));
    assert_eq!(completed["params"]["turn"]["status"], "completed");
    engine.shutdown().await;
}

/// Never answers: the turn waits on the model until it is interrupted.
struct SilentClient;

impl ModelClient for SilentClient {
    fn stream(&self, _request: ModelRequest) -> ModelStream {
        Box::pin(futures::stream::pending())
    }

    fn list_models(&self) -> ModelListFuture<'_> {
        Box::pin(async { Ok(Vec::new()) })
    }
}

#[tokio::test]
async fn an_interrupt_of_a_turn_just_starting_is_answered_after_turn_started() {
    use futures::FutureExt;

    let home = tempfile::tempdir().expect("tempdir");
    let config = Config::load(
        Some(home.path().to_path_buf()),
        &["model_provider=\"demo\"".to_string()],
    )
    .expect("config");
    let store = Arc::new(Store::open(&config.home).expect("store"));
    let (sender, mut lines) = mpsc::channel(1024);
    let access = ClientPolicy::resolve(&config, FrontEnd::AppServerStdio);
    let account = Arc::new(crate::account::AccountState::load(&config.home));
    let engine = Engine::new(
        config,
        store,
        account,
        Arc::new(RecordingSink(sender)),
        Arc::new(NoUser),
        crate::principal::Principal::local_user(),
        access,
    );
    let thread_id = engine
        .start_thread(ThreadStartParams::default())
        .await
        .expect("thread/start")
        .thread
        .id;
    let thread = engine.thread(&thread_id).expect("loaded");
    lock(&thread.state).client = Arc::new(SilentClient);
    while lines.try_recv().is_ok() {}

    let (turn, launcher) = engine
        .start_turn(turn_start(&thread_id, "one"))
        .expect("turn/start");
    let handle = engine
        .prepare_interrupt(&thread_id, &turn.id)
        .expect("the turn is active from turn/start on");
    // The turn has not announced itself yet: the interrupt's answer waits for it.
    assert!(handle.announced().now_or_never().is_none());
    launcher.expect("a new turn").launch();
    handle.announced().await;
    let announced: Vec<Value> = std::iter::from_fn(|| lines.try_recv().ok())
        .map(|message| message["method"].clone())
        .collect();
    assert_eq!(
        announced[..2],
        [json!("thread/status/changed"), json!("turn/started")]
    );
    handle.interrupt();
    let (completed, _) = until(&mut lines, "turn/completed").await;
    assert_eq!(completed["params"]["turn"]["status"], "interrupted");
    engine.shutdown().await;
}
