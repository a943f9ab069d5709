//! The owner check, walked over the client table: two engines over one home (one real store,
//! real rollouts, real SQLite), one acting for alice and one for bob, with a mock model server
//! over real HTTP for alice's turns.
//!
//! For every method whose params name a thread ([`ThreadScope::NamesThread`]), bob calls the
//! engine entry its handler reaches on alice's thread and on a thread that does not exist: the
//! two answers are the same, the owner check saw bob name alice's thread, and alice's thread
//! is unchanged. Lists show each principal only its own threads.

use std::sync::Arc;
use std::time::Duration;

use app_server_protocol::tables::ClientMethod;
use pretty_assertions::assert_eq;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use crate::access::{ClientPolicy, FrontEnd};
use crate::config::Config;
use crate::engine::owner::checks_of;
use crate::engine::test_support::{NoUser, RecordingSink};
use crate::engine::{Engine, EngineError};
use crate::families::{ThreadScope, names_thread};
use crate::model::test_support::{Reply, TestServer, responses_frame};
use crate::principal::Principal;
use crate::store::Store;

/// One model answer: the message `text`.
fn answer(text: &str) -> Reply {
    Reply::Sse(vec![
        responses_frame(json!({"type": "response.created", "response": {"id": "resp_1"}})),
        responses_frame(
            json!({"type": "response.output_item.done", "output_index": 0,
            "item": {"type": "message", "role": "assistant", "id": "msg_1",
                "content": [{"type": "output_text", "text": text}]}}),
        ),
        responses_frame(json!({"type": "response.completed", "response": {"id": "resp_1"}})),
    ])
}

/// A home whose config points the `mock` provider at `base_url`. The context window is set so
/// that no request but the turns' reaches the server.
fn home_config(home: &std::path::Path, base_url: &str) -> Config {
    std::fs::write(
        home.join("config.toml"),
        format!(
            "model_provider = \"mock\"\nmodel = \"mock-model\"\napproval_policy = \"never\"\nmodel_context_window = 100000\n\n[model_providers.mock]\nname = \"Mock\"\nbase_url = \"{base_url}\"\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n"
        ),
    )
    .expect("config.toml");
    Config::load(Some(home.to_path_buf()), &[]).expect("config")
}

/// An engine acting for `principal` over `store`, and its notifications.
fn engine(config: &Config, store: &Arc<Store>, principal: Principal) -> (Engine, Notifications) {
    let (sender, receiver) = mpsc::channel(1024);
    let engine = Engine::new(
        config.clone(),
        Arc::clone(store),
        Arc::new(crate::account::AccountState::load(&config.home)),
        Arc::new(RecordingSink(sender)),
        Arc::new(NoUser),
        principal,
        ClientPolicy::resolve(config, FrontEnd::AppServerStdio),
    );
    (engine, Notifications(receiver))
}

struct Notifications(mpsc::Receiver<Value>);

impl Notifications {
    /// Waits for the next `method` notification.
    async fn until(&mut self, method: &str) -> Value {
        loop {
            let message = tokio::time::timeout(Duration::from_secs(10), self.0.recv())
                .await
                .expect("a notification within 10 s")
                .expect("the engine is alive");
            if message["method"] == method {
                return message;
            }
        }
    }
}

fn params<T: DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("params")
}

/// A thread of `engine` with one completed turn (so it has a rollout and an index row).
async fn thread_with_a_turn(engine: &Engine, events: &mut Notifications, text: &str) -> String {
    let thread_id = engine
        .start_thread(params(json!({})))
        .await
        .expect("thread/start")
        .thread
        .id;
    let (_turn, launcher) = engine
        .start_turn(params(json!({
            "threadId": thread_id,
            "input": [{"type": "text", "text": text}],
        })))
        .expect("turn/start");
    launcher.expect("a new turn").launch();
    let completed = events.until("turn/completed").await;
    assert_eq!(completed["params"]["turn"]["status"], "completed");
    thread_id
}

/// An engine result as text, with `thread_id` replaced, so that the answers for two threads
/// compare.
fn outcome<T: std::fmt::Debug>(result: Result<T, EngineError>, thread_id: &str) -> String {
    match result {
        Ok(value) => format!("ok {value:?}"),
        Err(error) => format!("error {error:?}"),
    }
    .replace(thread_id, "<thread>")
}

/// Calls, on `engine`, the engine entry that the handler of `method` reaches with
/// `thread_id` (a conversation-API method reaches the same entries as the thread API).
async fn call(engine: &Engine, method: ClientMethod, thread_id: &str) -> String {
    let id = thread_id;
    match method {
        ClientMethod::ThreadResume | ClientMethod::ResumeConversation => outcome(
            engine
                .resume_thread(params(json!({"threadId": id})))
                .await
                .map(drop),
            id,
        ),
        ClientMethod::ThreadFork => outcome(
            engine
                .fork_thread(params(json!({"threadId": id})))
                .await
                .map(drop),
            id,
        ),
        ClientMethod::ThreadRead | ClientMethod::GetConversationSummary => outcome(
            engine
                .read_thread(params(json!({"threadId": id, "includeTurns": true})))
                .await
                .map(drop),
            id,
        ),
        ClientMethod::ThreadTurnsList => outcome(
            engine
                .list_turns(params(json!({"threadId": id})))
                .await
                .map(drop),
            id,
        ),
        ClientMethod::ThreadItemsList => outcome(
            engine
                .list_items(params(json!({"threadId": id})))
                .await
                .map(drop),
            id,
        ),
        ClientMethod::ThreadArchive | ClientMethod::ArchiveConversation => {
            outcome(engine.archive_thread(id).await, id)
        }
        ClientMethod::ThreadDelete => outcome(engine.delete_thread(id).await, id),
        ClientMethod::ThreadAttachmentAdd => outcome(
            engine
                .add_attachment(params(json!({
                    "threadId": id, "attachmentType": "file", "identityKey": "k", "payload": 1,
                })))
                .await,
            id,
        ),
        ClientMethod::ThreadAttachmentList => outcome(
            engine
                .list_attachments(params(json!({"threadId": id})))
                .await,
            id,
        ),
        ClientMethod::ThreadAttachmentRemove => outcome(
            engine
                .remove_attachment(params(json!({
                    "threadId": id, "attachmentType": "file", "identityKey": "k",
                })))
                .await,
            id,
        ),
        ClientMethod::ThreadGoalSet => outcome(
            engine
                .set_goal(params(json!({"threadId": id, "objective": "bob's goal"})))
                .await,
            id,
        ),
        ClientMethod::ThreadGoalGet => {
            outcome(engine.goal(params(json!({"threadId": id}))).await, id)
        }
        ClientMethod::ThreadGoalClear => {
            outcome(engine.clear_goal(params(json!({"threadId": id}))).await, id)
        }
        ClientMethod::ThreadMetadataUpdate => outcome(
            engine
                .update_thread_metadata(params(json!({"threadId": id, "daybreakEnabled": true})))
                .await
                .map(drop),
            id,
        ),
        ClientMethod::ThreadInjectItems => outcome(
            engine
                .inject_items(params(json!({
                    "threadId": id,
                    "items": [{"type": "message", "role": "user", "content": []}],
                })))
                .await,
            id,
        ),
        ClientMethod::ThreadRevert => outcome(
            engine
                .revert_thread(params(json!({"threadId": id, "beforeTurnId": "turn-1"})))
                .await
                .map(drop),
            id,
        ),
        ClientMethod::ThreadUnarchive => outcome(engine.unarchive_thread(id).await.map(drop), id),
        ClientMethod::ThreadSetName => {
            outcome(engine.set_thread_name(id, "bob was here").await, id)
        }
        ClientMethod::ThreadUnsubscribe => outcome(engine.unsubscribe(id).await, id),
        ClientMethod::ThreadRollback => outcome(
            engine
                .rollback_thread(params(json!({"threadId": id, "numTurns": 1})))
                .await
                .map(drop),
            id,
        ),
        ClientMethod::ThreadCompactStart => outcome(engine.start_compaction(id).map(drop), id),
        ClientMethod::ThreadBackgroundTerminalsList => outcome(
            engine
                .list_background_terminals(params(json!({"threadId": id})))
                .map(drop),
            id,
        ),
        ClientMethod::ThreadQueueAdd => outcome(
            engine
                .queue_add(params(json!({
                    "threadId": id,
                    "clientUserMessageId": "bob-1",
                    "input": [{"type": "text", "text": "bob's words"}],
                })))
                .map(drop),
            id,
        ),
        ClientMethod::ThreadQueueList => outcome(
            engine.queue_list(params(json!({"threadId": id}))).map(drop),
            id,
        ),
        ClientMethod::ThreadReadStateUpdate => outcome(
            engine
                .update_read_state(params(json!({
                    "threadId": id,
                    "expectedRevision": format!("initial:{id}"),
                    "operation": {"type": "unread"},
                })))
                .await
                .map(drop),
            id,
        ),
        ClientMethod::ThreadSectionMove => outcome(
            engine
                .move_to_section(params(json!({
                    "threadId": id,
                    "sectionId": app_server_protocol::thread_section::PINNED_SECTION_ID,
                })))
                .await
                .map(drop),
            id,
        ),
        ClientMethod::ThreadSettingsUpdate => outcome(
            engine
                .update_thread_settings(params(json!({"threadId": id, "model": "bob-model"})))
                .await
                .map(drop),
            id,
        ),
        ClientMethod::ReviewStart => outcome(
            engine
                .start_review(params(json!({
                    "threadId": id,
                    "target": {"type": "custom", "instructions": "bob's review"},
                })))
                .await
                .map(drop),
            id,
        ),
        ClientMethod::ThreadShellCommand => outcome(
            engine
                .start_shell_command(params(json!({"threadId": id, "command": "echo bob"})))
                .map(drop),
            id,
        ),
        ClientMethod::TurnStart | ClientMethod::SendUserMessage | ClientMethod::SendUserTurn => {
            outcome(
                engine
                    .start_turn(params(json!({
                        "threadId": id,
                        "input": [{"type": "text", "text": "bob's words"}],
                    })))
                    .map(drop),
                id,
            )
        }
        ClientMethod::TurnInterrupt => {
            outcome(engine.prepare_interrupt(id, "turn-1").map(drop), id)
        }
        ClientMethod::InterruptConversation => outcome(engine.active_turn_id(id), id),
        ClientMethod::TurnSteer => outcome(
            engine.steer_turn(params(json!({
                "threadId": id,
                "input": [{"type": "text", "text": "bob's words"}],
                "expectedTurnId": "turn-1",
            }))),
            id,
        ),
        ClientMethod::ExperimentalFeatureList => outcome(
            engine.experimental_features(params(json!({"threadId": id}))),
            id,
        ),
        ClientMethod::McpServerStatusList => outcome(
            engine.list_mcp_server_status(params(json!({"threadId": id}))),
            id,
        ),
        ClientMethod::HooksList => {
            outcome(engine.list_hooks(params(json!({"threadId": id}))).await, id)
        }
        ClientMethod::McpServerToolCall => outcome(
            engine
                .call_mcp_tool(params(
                    json!({"threadId": id, "server": "none", "tool": "none"}),
                ))
                .await,
            id,
        ),
        ClientMethod::FeedbackSave => {
            let dir = tempfile::tempdir().expect("tempdir");
            let result = engine
                .save_feedback(
                    params(json!({"classification": "bug", "savePath": "/unused", "threadId": id})),
                    dir.path().join("feedback.zip"),
                    Vec::new(),
                )
                .await;
            outcome(result.map(|response| response.thread_id), id)
        }
        ClientMethod::McpResourceRead => outcome(
            engine
                .read_mcp_resource(params(
                    json!({"threadId": id, "server": "none", "uri": "none:"}),
                ))
                .await,
            id,
        ),
        // Every other method names no thread (`ThreadScope::of`); reaching here with one
        // that does means this test has no call for it yet.
        _ => panic!("{} names no thread", method.method()),
    }
}

/// The ids of the threads `engine` lists (live or archived).
async fn listed(engine: &Engine, archived: bool) -> Vec<String> {
    let page = engine
        .list_threads(params(json!({"archived": archived})))
        .await
        .expect("thread/list");
    page.data.into_iter().map(|thread| thread.id).collect()
}

#[tokio::test]
async fn every_method_naming_a_thread_treats_another_principals_thread_as_missing() {
    let home = tempfile::tempdir().expect("tempdir");
    let server = TestServer::start(
        (0..4)
            .map(|turn| answer(&format!("answer {turn}")))
            .collect(),
    )
    .await;
    let config = home_config(home.path(), &server.base_url);
    let store = Arc::new(Store::open(&config.home).expect("store"));
    let (alice, mut alice_events) = engine(&config, &store, Principal::named("alice"));
    let (bob, mut bob_events) = engine(&config, &store, Principal::named("bob"));

    // Alice's live thread stays loaded in her engine; her second one is archived.
    let live = thread_with_a_turn(&alice, &mut alice_events, "alice's question").await;
    let archived = thread_with_a_turn(&alice, &mut alice_events, "alice's old question").await;
    alice.archive_thread(&archived).await.expect("archive");
    let bobs = thread_with_a_turn(&bob, &mut bob_events, "bob's question").await;

    let methods: Vec<ClientMethod> = ClientMethod::ALL
        .iter()
        .copied()
        .filter(|method| names_thread(*method))
        .collect();
    assert!(methods.len() >= 20, "{methods:?}");
    for method in methods {
        let target = match method {
            ClientMethod::ThreadUnarchive => &archived,
            _ => &live,
        };
        let missing = uuid::Uuid::now_v7().to_string();
        let for_missing = call(&bob, method, &missing).await;
        let checked = |id: &str| {
            checks_of(bob.principal())
                .iter()
                .filter(|checked| *checked == id)
                .count()
        };
        let checked_before = checked(target);
        let for_alices = call(&bob, method, target).await;
        assert_eq!(
            for_alices,
            for_missing,
            "{}: bob tells alice's thread from a missing one",
            method.method()
        );
        assert!(
            checked(target) > checked_before,
            "{}: the owner check did not see bob name alice's thread",
            method.method()
        );
    }

    // Alice's threads are as she left them.
    let thread = alice
        .read_thread(params(json!({"threadId": live, "includeTurns": true})))
        .await
        .expect("alice reads her thread");
    assert_eq!(thread.name, None);
    assert_eq!(thread.turns.len(), 1);
    assert_eq!(listed(&alice, false).await, vec![live.clone()]);
    assert_eq!(listed(&alice, true).await, vec![archived.clone()]);

    // Each lists only its own threads, live, archived and loaded.
    assert_eq!(listed(&bob, false).await, vec![bobs.clone()]);
    assert_eq!(listed(&bob, true).await, Vec::<String>::new());
    let loaded = |engine: &Engine| {
        engine
            .loaded_threads(params(json!({})))
            .expect("thread/loaded/list")
            .data
    };
    assert_eq!(loaded(&bob), vec![bobs]);
    assert_eq!(loaded(&alice), vec![live.clone()]);

    // And alice still drives her thread.
    let (_turn, launcher) = alice
        .start_turn(params(json!({
            "threadId": live,
            "input": [{"type": "text", "text": "again"}],
        })))
        .expect("alice's turn/start");
    launcher.expect("a new turn").launch();
    assert_eq!(
        alice_events.until("turn/completed").await["params"]["turn"]["status"],
        "completed"
    );
    alice.shutdown().await;
    bob.shutdown().await;
}

/// Whether a params property names a thread or what belongs to one (a thread id, a
/// conversation id, a rollout path, a history session or event).
fn names_a_thread(property: &str) -> bool {
    let property = property.to_ascii_lowercase();
    property.ends_with("threadid")
        || property.ends_with("threadids")
        || ["conversationid", "rolloutpath", "sessionid", "eventuid"].contains(&property.as_str())
}

/// The top-level properties of a params schema, in each branch of a union.
fn properties(schema: &Value) -> Vec<String> {
    let mut names: Vec<String> = schema["properties"]
        .as_object()
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default();
    for union in ["anyOf", "oneOf"] {
        for branch in schema[union].as_array().into_iter().flatten() {
            names.extend(properties(branch));
        }
    }
    names
}

#[test]
fn a_method_whose_params_name_a_thread_is_in_the_owner_checks_scope() {
    let options = app_server_protocol::export::ExportOptions { experimental: true };
    let schemas = app_server_protocol::export::json_schema(&options).expect("schemas");
    for spec in app_server_protocol::tables::ClientRequest::METHODS {
        let method = ClientMethod::from_method(spec.method).expect("a method of the table");
        let schema: Value = schemas
            .get(&format!("{}.json", spec.params))
            .map(|text| serde_json::from_str(text).expect("schema JSON"))
            .unwrap_or(Value::Null);
        // A fuzzy-file-search session's `sessionId` is the client's name for a search, not a
        // thread (elsewhere a session id is a thread id).
        let search_session = spec.method.starts_with("fuzzyFileSearch/");
        let named: Vec<String> = properties(&schema)
            .into_iter()
            .filter(|property| names_a_thread(property))
            .filter(|property| !(search_session && property == "sessionId"))
            .collect();
        let scope = ThreadScope::of(method);
        assert!(
            named.is_empty() || scope != ThreadScope::None,
            "{}: its params name a thread ({named:?}) but it is outside the owner check",
            spec.method
        );
        assert!(
            scope != ThreadScope::NamesThread || !named.is_empty(),
            "{}: in the owner check's scope, but its params name no thread",
            spec.method
        );
    }
    let scoped = |scope: ThreadScope| -> Vec<&str> {
        ClientMethod::ALL
            .iter()
            .filter(|method| ThreadScope::of(**method) == scope)
            .map(|method| method.method())
            .collect()
    };
    assert_eq!(
        scoped(ThreadScope::ListsThreads),
        vec!["thread/list", "thread/loaded/list", "listConversations"]
    );
    assert_eq!(
        scoped(ThreadScope::History),
        vec!["thread/search", "history/search", "history/open"]
    );
}

/// The thread index as version 1 created it, before threads recorded their owner.
const VERSION_1_SCHEMA: &str = "
CREATE TABLE threads (
    id TEXT PRIMARY KEY NOT NULL,
    rollout_path TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    cwd TEXT NOT NULL,
    model_provider TEXT NOT NULL,
    source TEXT NOT NULL,
    originator TEXT,
    preview TEXT NOT NULL,
    name TEXT,
    archived INTEGER NOT NULL,
    meta_json TEXT NOT NULL
);
CREATE INDEX threads_archived_created ON threads (archived, created_at, id);
CREATE INDEX threads_archived_updated ON threads (archived, updated_at_ms, id);
PRAGMA user_version = 1;
";

/// 2026-11-21T20:45:43Z.
const CREATED_AT: i64 = 1_795_293_943;

/// Writes thread `id` into `home` as a server did before owners were recorded: a rollout with
/// one completed turn whose header names no owner, and, with `index`, its row in a version-1
/// index.
fn pre_owner_thread(home: &std::path::Path, store: &Store, id: &str, index: bool) {
    let meta = crate::store::ThreadMeta {
        git_info: None,
        daybreak_enabled: None,
        id: id.to_owned(),
        created_at: CREATED_AT,
        updated_at_ms: CREATED_AT * 1000,
        cwd: home.to_string_lossy().into_owned(),
        model_provider: "mock".to_owned(),
        model: "mock-model".to_owned(),
        reasoning_effort: None,
        reasoning_summary: None,
        approval_policy: app_server_protocol::policy::AskForApproval::Never,
        sandbox: app_server_protocol::policy::SandboxPolicy::DangerFullAccess,
        originator: Some("an_old_client".to_owned()),
        source: "vscode".to_owned(),
        cli_version: "0.1.0".to_owned(),
        preview: String::new(),
        name: None,
        forked_from_id: None,
        thread_source: None,
        base_instructions: None,
        developer_instructions: None,
        archived: false,
        rollout_path: store.rollout_path_for(id, CREATED_AT),
        collaboration_mode: None,
        compact_prompt: None,
        owner: Principal::local_user(),
        dynamic_tools: Vec::new(),
    };
    let mut header = serde_json::to_value(&meta).expect("meta JSON");
    header
        .as_object_mut()
        .expect("an object")
        .remove("owner")
        .expect("an owner to remove");
    let item = |kind: &str, text: &str| match kind {
        "userMessage" => json!({"type": "userMessage", "id": "old-user",
            "content": [{"type": "text", "text": text}]}),
        _ => json!({"type": "agentMessage", "id": "old-answer", "text": text}),
    };
    let lines = [
        json!({"type": "session_meta", "payload": {"version": 1, "meta": header}}),
        json!({"type": "turn_started", "payload": {"turn_id": "old-turn", "started_at": CREATED_AT}}),
        json!({"type": "item", "payload": {"turn_id": "old-turn",
            "item": item("userMessage", "an old question")}}),
        json!({"type": "item", "payload": {"turn_id": "old-turn",
            "item": item("agentMessage", "an old answer")}}),
        json!({"type": "turn_completed", "payload": {"turn_id": "old-turn", "status": "completed",
            "error": null, "completed_at": CREATED_AT + 1, "duration_ms": 900}}),
    ];
    let mut text = String::new();
    for mut line in lines {
        line["timestamp"] = json!("2026-11-21T20:45:43.000Z");
        text.push_str(&format!("{line}\n"));
    }
    let path = &meta.rollout_path;
    std::fs::create_dir_all(path.parent().expect("parent")).expect("sessions directory");
    std::fs::write(path, text).expect("rollout");
    if index {
        let connection =
            rusqlite::Connection::open(home.join("state.sqlite")).expect("version-1 index");
        let tables: i64 = connection
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'threads'",
                [],
                |row| row.get(0),
            )
            .expect("tables");
        if tables == 0 {
            connection
                .execute_batch(VERSION_1_SCHEMA)
                .expect("version-1 schema");
        }
        connection
            .execute(
                "INSERT INTO threads (id, rollout_path, created_at, updated_at_ms, cwd,
                     model_provider, source, originator, preview, name, archived, meta_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'mock', 'vscode', 'an_old_client', '', NULL, 0, ?6)",
                rusqlite::params![
                    id,
                    path.to_string_lossy(),
                    CREATED_AT,
                    CREATED_AT * 1000,
                    meta.cwd,
                    header.to_string(),
                ],
            )
            .expect("version-1 row");
    }
}

#[tokio::test]
async fn the_local_user_keeps_the_threads_of_a_home_from_before_owners() {
    // A home with a version-1 index, and one whose index is gone (rebuilt from the rollouts).
    for index in [true, false] {
        let home = tempfile::tempdir().expect("tempdir");
        let server = TestServer::start(vec![answer("a new answer")]).await;
        let config = home_config(home.path(), &server.base_url);
        let store = Arc::new(Store::open(&config.home).expect("store"));
        let old = uuid::Uuid::now_v7().to_string();
        pre_owner_thread(home.path(), &store, &old, index);
        let (local, mut local_events) = engine(&config, &store, Principal::local_user());
        let (bob, _bob_events) = engine(&config, &store, Principal::named("bob"));

        assert_eq!(listed(&bob, false).await, Vec::<String>::new());
        assert_eq!(
            call(&bob, ClientMethod::ThreadRead, &old).await,
            call(
                &bob,
                ClientMethod::ThreadRead,
                &uuid::Uuid::now_v7().to_string()
            )
            .await,
        );
        assert_eq!(listed(&local, false).await, vec![old.clone()]);
        let thread = local
            .read_thread(params(json!({"threadId": old, "includeTurns": true})))
            .await
            .expect("thread/read");
        assert_eq!(thread.turns.len(), 1);
        assert_eq!(thread.originator.as_deref(), Some("an_old_client"));
        let summary = local
            .list_turns(params(json!({"threadId": old})))
            .await
            .expect("thread/turns/list");
        assert_eq!(summary.data.len(), 1);

        // The local user resumes it and runs a turn; it stays the local user's.
        local
            .resume_thread(params(json!({"threadId": old})))
            .await
            .expect("thread/resume");
        let (_turn, launcher) = local
            .start_turn(params(json!({
                "threadId": old,
                "input": [{"type": "text", "text": "a new question"}],
            })))
            .expect("turn/start");
        launcher.expect("a new turn").launch();
        assert_eq!(
            local_events.until("turn/completed").await["params"]["turn"]["status"],
            "completed"
        );
        assert_eq!(
            store.owner(&old).expect("owner"),
            Some(Principal::local_user())
        );
        let connection =
            rusqlite::Connection::open(home.path().join("state.sqlite")).expect("index");
        let version: i64 = connection
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .expect("version");
        assert_eq!(version, 4);
        local.shutdown().await;
        bob.shutdown().await;
    }
}
