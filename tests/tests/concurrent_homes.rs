//! Several `tandem app-server` processes on one home at once: every thread whose turn completed
//! for its client is stored with that turn.
//!
//! The processes share the home's rollouts and its thread index (`state.sqlite`). They are
//! released together just before `turn/start`, the request that creates the rollout and the
//! index, so that on a fresh home they all try to create the index at the same moment.
//! Afterwards a fresh process must list exactly the threads that were created and read each
//! back with its one completed turn.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tandem_tests::mock_model::{MockModel, MockResponse, responses_text};
use tandem_tests::server::{SpawnOptions, TestServer, mock_config};
use tokio::sync::Barrier;

/// Processes started together on one home.
const PROCESSES: usize = 6;
/// Rounds of processes per home: the first finds no index, the later ones a shared one.
const ROUNDS: usize = 3;
/// Fresh homes, each with its own rounds.
const REPETITIONS: usize = 10;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_started_together_on_one_home_lose_no_thread_and_no_turn() {
    let model = MockModel::start().await;
    let mut failures = Vec::new();
    for repetition in 0..REPETITIONS {
        let home = tempfile::tempdir().unwrap();
        let mut created = BTreeSet::new();
        for round in 0..ROUNDS {
            model.push_all(
                (0..PROCESSES).map(|_| MockResponse::sse(responses_text("msg_1", &["done"]))),
            );
            let barrier = Arc::new(Barrier::new(PROCESSES));
            let runs = (0..PROCESSES).map(|process| {
                let barrier = barrier.clone();
                let prompt = format!("repetition {repetition} round {round} process {process}");
                let home = home.path().to_path_buf();
                let base_url = model.base_url();
                async move {
                    let server = spawn_in(&home, &base_url).await;
                    one_thread_with_one_turn(server, &barrier, &prompt).await
                }
            });
            created.extend(futures::future::join_all(runs).await);
        }
        let stored = read_back(home.path(), &model.base_url()).await;
        if let Err(failure) = check(&created, &stored) {
            failures.push(format!("repetition {repetition}: {failure}"));
        }
    }
    assert_eq!(
        failures,
        Vec::<String>::new(),
        "{} of {REPETITIONS} repetitions lost data",
        failures.len()
    );
}

/// Spawns `tandem app-server` on `home` (the test client replaces the config file whole, so
/// a process starting meanwhile never reads half of it).
async fn spawn_in(home: &Path, base_url: &str) -> TestServer {
    TestServer::spawn_with(SpawnOptions {
        config_toml: mock_config(base_url),
        args: Vec::new(),
        home: Some(home.to_path_buf()),
        cwd: None,
    })
    .await
}

/// Initializes `server`, starts a thread, waits at `barrier` for the other processes, runs
/// one turn to `turn/completed` and closes stdin. Returns the thread id.
async fn one_thread_with_one_turn(
    mut server: TestServer,
    barrier: &Barrier,
    prompt: &str,
) -> String {
    server.initialize().await;
    let thread = server
        .request("thread/start", json!({}))
        .await
        .expect("thread/start");
    let thread_id = thread["thread"]["id"].as_str().unwrap().to_string();
    barrier.wait().await;
    server
        .request(
            "turn/start",
            json!({"threadId": thread_id, "input": [{"type": "text", "text": prompt}]}),
        )
        .await
        .expect("turn/start");
    let completed = server.notification("turn/completed").await;
    assert_eq!(
        completed["turn"]["status"],
        json!("completed"),
        "{completed}"
    );
    assert_eq!(server.shutdown().await, Some(0));
    thread_id
}

/// What a fresh process finds: the listed thread ids, and each listed thread as read with
/// its turns.
struct Stored {
    listed: BTreeSet<String>,
    read: Vec<(String, Result<Value, Value>)>,
}

/// Lists every thread with a fresh process and reads each one created, with its turns.
async fn read_back(home: &Path, base_url: &str) -> Stored {
    let mut server = spawn_in(home, base_url).await;
    server.initialize().await;
    let list = server
        .request("thread/list", json!({"limit": 1000}))
        .await
        .expect("thread/list");
    let listed: BTreeSet<String> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|thread| thread["id"].as_str().unwrap().to_string())
        .collect();
    let mut read = Vec::new();
    for thread_id in &listed {
        let thread = server
            .request(
                "thread/read",
                json!({"threadId": thread_id, "includeTurns": true}),
            )
            .await;
        read.push((thread_id.clone(), thread));
    }
    assert_eq!(server.shutdown().await, Some(0));
    Stored { listed, read }
}

/// The stored threads are exactly `created`, each with one completed turn.
fn check(created: &BTreeSet<String>, stored: &Stored) -> Result<(), String> {
    if &stored.listed != created {
        let missing: Vec<&String> = created.difference(&stored.listed).collect();
        let unexpected: Vec<&String> = stored.listed.difference(created).collect();
        return Err(format!(
            "thread/list: {} threads missing {missing:?}, unexpected {unexpected:?}",
            missing.len()
        ));
    }
    let mut problems = Vec::new();
    for (thread_id, thread) in &stored.read {
        let statuses: Vec<Value> = match thread {
            Ok(thread) => thread["thread"]["turns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|turn| turn["status"].clone())
                .collect(),
            Err(error) => {
                problems.push(format!("{thread_id}: thread/read failed: {error}"));
                continue;
            }
        };
        if statuses != [json!("completed")] {
            problems.push(format!("{thread_id}: turns {statuses:?}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}
