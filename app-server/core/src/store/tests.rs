//! Tests of the store: rollout round trips and crash tolerance, archiving, and rebuilding the
//! index from the rollouts. The `thread/list` tests are in `list_tests.rs`.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use app_server_protocol::item::{ThreadItem, ThreadItemDetails, UserInput};
use app_server_protocol::policy::{AskForApproval, ReasoningEffort, SandboxPolicy, SortDirection};
use app_server_protocol::thread::{
    CodexErrorInfo, ThreadTokenUsage, TokenUsageBreakdown, Turn, TurnError, TurnItemsView,
    TurnStatus,
};
use app_server_protocol::thread_requests::ThreadSortKey;
use pretty_assertions::assert_eq;
use tempfile::TempDir;

use super::Store;
use crate::model::{ContentItem, ResponseItem};
use crate::principal::Principal;
use crate::store::rollout::encode_line_for_test;
use crate::store::{
    ListQuery, ROLLOUT_VERSION, RolloutRecord, StoreError, StoredThread, ThreadMeta,
};

/// 2026-11-21T20:45:43Z.
pub(super) const CREATED_AT: i64 = 1_795_293_943;

pub(super) fn open_store() -> (TempDir, Store) {
    let home = tempfile::tempdir().expect("tempdir");
    let store = Store::open(home.path()).expect("open store");
    (home, store)
}

/// A sortable UUID-shaped id.
pub(super) fn thread_id(number: u32) -> String {
    format!("01a1ffdb-0000-7000-8000-{number:012}")
}

pub(super) fn meta(store: &Store, id: &str, created_at: i64) -> ThreadMeta {
    ThreadMeta {
        git_info: None,
        daybreak_enabled: None,
        collaboration_mode: None,
        compact_prompt: None,
        id: id.to_owned(),
        created_at,
        updated_at_ms: created_at * 1000,
        cwd: "/home/user/project".to_owned(),
        model_provider: "mock".to_owned(),
        model: "mock-model".to_owned(),
        reasoning_effort: None,
        reasoning_summary: None,
        approval_policy: AskForApproval::OnRequest,
        sandbox: SandboxPolicy::DangerFullAccess,
        originator: Some("example_client".to_owned()),
        source: "vscode".to_owned(),
        cli_version: "0.1.0".to_owned(),
        preview: String::new(),
        name: None,
        forked_from_id: None,
        thread_source: None,
        base_instructions: None,
        developer_instructions: None,
        archived: false,
        rollout_path: store.rollout_path_for(id, created_at),
        owner: Principal::local_user(),
        dynamic_tools: Vec::new(),
    }
}

fn user_message(id: &str, text: &str) -> ThreadItem {
    ThreadItem {
        details: ThreadItemDetails::UserMessage {
            id: id.to_owned(),
            client_id: None,
            content: vec![UserInput::Text {
                text: text.to_owned(),
                text_elements: None,
            }],
        },
        started_at_ms: Some(CREATED_AT * 1000 + 10),
        completed_at_ms: Some(CREATED_AT * 1000 + 10),
    }
}

fn agent_message(id: &str, text: &str) -> ThreadItem {
    ThreadItem {
        details: ThreadItemDetails::AgentMessage {
            moderation: None,
            id: id.to_owned(),
            text: text.to_owned(),
            phase: None,
            memory_citation: None,
            delivery: None,
            questions: None,
        },
        started_at_ms: Some(CREATED_AT * 1000 + 20),
        completed_at_ms: Some(CREATED_AT * 1000 + 30),
    }
}

fn history_message(role: &str, text: &str) -> ResponseItem {
    let content = match role {
        "user" => ContentItem::InputText {
            text: text.to_owned(),
        },
        _ => ContentItem::OutputText {
            text: text.to_owned(),
        },
    };
    ResponseItem::Message {
        id: None,
        role: role.to_owned(),
        content: vec![content],
    }
}

fn usage(total_tokens: i64) -> ThreadTokenUsage {
    let breakdown = TokenUsageBreakdown {
        total_tokens,
        input_tokens: total_tokens - 8,
        cached_input_tokens: 0,
        cache_write_input_tokens: 0,
        output_tokens: 8,
        reasoning_output_tokens: 0,
    };
    ThreadTokenUsage {
        total: breakdown,
        last: breakdown,
        model_context_window: Some(258_400),
    }
}

/// The records of one completed turn: a user message and an answer.
pub(super) fn completed_turn(turn_id: &str, question: &str, answer: &str) -> Vec<RolloutRecord> {
    vec![
        RolloutRecord::TurnStarted {
            turn_id: turn_id.to_owned(),
            started_at: CREATED_AT + 1,
        },
        RolloutRecord::Item {
            turn_id: turn_id.to_owned(),
            item: user_message(&format!("{turn_id}-user"), question),
        },
        RolloutRecord::ResponseItem {
            turn_id: turn_id.to_owned(),
            item: history_message("user", question),
        },
        RolloutRecord::Item {
            turn_id: turn_id.to_owned(),
            item: agent_message(&format!("{turn_id}-answer"), answer),
        },
        RolloutRecord::ResponseItem {
            turn_id: turn_id.to_owned(),
            item: history_message("assistant", answer),
        },
        RolloutRecord::TurnCompleted {
            turn_id: turn_id.to_owned(),
            status: TurnStatus::Completed,
            error: None,
            completed_at: CREATED_AT + 2,
            duration_ms: 1200,
        },
    ]
}

/// The turn [`completed_turn`] describes, as `load` returns it.
pub(super) fn expected_turn(turn_id: &str, question: &str, answer: &str) -> Turn {
    Turn {
        id: turn_id.to_owned(),
        root_turn_id: Some(turn_id.to_owned()),
        items: vec![
            user_message(&format!("{turn_id}-user"), question),
            agent_message(&format!("{turn_id}-answer"), answer),
        ],
        items_view: TurnItemsView::Full,
        status: TurnStatus::Completed,
        error: None,
        started_at: Some(CREATED_AT + 1),
        completed_at: Some(CREATED_AT + 2),
        duration_ms: Some(1200),
    }
}

/// Creates a thread whose rollout holds `records`, written through the store.
pub(super) fn create_thread(store: &Store, meta: &ThreadMeta, records: &[RolloutRecord]) {
    let mut writer = store.create(meta).expect("create");
    for record in records {
        writer.append(record).expect("append");
    }
    writer.sync().expect("sync");
}

/// Writes a rollout file by hand, one line per record with the given millisecond timestamps.
fn write_rollout(path: &Path, records: &[(i64, RolloutRecord)]) {
    fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    let mut bytes = Vec::new();
    for (timestamp_ms, record) in records {
        bytes.extend(encode_line_for_test(record, *timestamp_ms));
    }
    fs::write(path, bytes).expect("write rollout");
}

fn append_bytes(path: &Path, bytes: &[u8]) {
    let mut file = fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open");
    file.write_all(bytes).expect("append");
}

pub(super) fn query() -> ListQuery {
    ListQuery {
        owner: Principal::local_user(),
        cursor: None,
        limit: None,
        sort_key: ThreadSortKey::CreatedAt,
        sort_direction: SortDirection::Desc,
        model_providers: Vec::new(),
        sources: Vec::new(),
        originators: Vec::new(),
        archived: false,
        cwds: Vec::new(),
        search_term: None,
        excluded_ids: Vec::new(),
        section: None,
    }
}

pub(super) fn list_ids(store: &Store, query: &ListQuery) -> Vec<String> {
    let page = store.list(query).expect("list");
    page.threads.into_iter().map(|meta| meta.id).collect()
}

#[test]
fn store_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Store>();
}

#[test]
fn open_creates_the_layout() {
    let (home, store) = open_store();
    assert!(home.path().join("sessions").is_dir());
    assert!(home.path().join("archived_sessions").is_dir());
    // The index waits for the first request that needs it.
    assert!(!home.path().join("state.sqlite").exists());
    store.list(&query()).unwrap();
    assert!(home.path().join("state.sqlite").is_file());
    assert_eq!(
        store.rollout_path_for("01a1ffdb-9681-7591-90fe-0162743c88d7", CREATED_AT),
        home.path().join(
            "sessions/2026/11/21/rollout-2026-11-21T20-45-43-01a1ffdb-9681-7591-90fe-0162743c88d7.jsonl"
        )
    );
}

#[test]
fn round_trip_rebuilds_the_whole_thread() {
    let (_home, store) = open_store();
    let id = thread_id(1);
    let created = meta(&store, &id, CREATED_AT);
    let mut settings = ThreadMeta {
        model: "other-model".to_owned(),
        reasoning_effort: Some(ReasoningEffort::High),
        name: Some("first name".to_owned()),
        ..created.clone()
    };
    let mut records = vec![RolloutRecord::ThreadName {
        name: "first name".to_owned(),
    }];
    records.extend(completed_turn("turn-1", "Say hello.", "Hello!"));
    records.push(RolloutRecord::TokenUsage {
        turn_id: "turn-1".to_owned(),
        usage: usage(108),
    });
    records.push(RolloutRecord::Settings {
        meta: settings.clone(),
    });
    records.extend(vec![
        RolloutRecord::TurnStarted {
            turn_id: "turn-2".to_owned(),
            started_at: CREATED_AT + 3,
        },
        RolloutRecord::Item {
            turn_id: "turn-2".to_owned(),
            item: user_message("turn-2-user", "Fail please."),
        },
        RolloutRecord::ResponseItem {
            turn_id: "turn-2".to_owned(),
            item: history_message("user", "Fail please."),
        },
        RolloutRecord::TokenUsage {
            turn_id: "turn-2".to_owned(),
            usage: usage(216),
        },
        RolloutRecord::TurnCompleted {
            turn_id: "turn-2".to_owned(),
            status: TurnStatus::Failed,
            error: Some(TurnError {
                message: "usage limit reached".to_owned(),
                codex_error_info: Some(CodexErrorInfo::UsageLimitExceeded),
                additional_details: None,
                misalignment: None,
            }),
            completed_at: CREATED_AT + 4,
            duration_ms: 15,
        },
        RolloutRecord::ThreadName {
            name: "second name".to_owned(),
        },
    ]);
    let before_ms = crate::store::rollout::now_ms();
    create_thread(&store, &created, &records);
    let after_ms = crate::store::rollout::now_ms();

    let loaded = store.load(&id).expect("load");
    let updated_at_ms = loaded.meta.updated_at_ms;
    assert!((before_ms..=after_ms).contains(&updated_at_ms));
    settings.name = Some("second name".to_owned());
    settings.preview = "Say hello.".to_owned();
    settings.updated_at_ms = updated_at_ms;
    let expected = StoredThread {
        meta: settings,
        turns: vec![
            expected_turn("turn-1", "Say hello.", "Hello!"),
            Turn {
                id: "turn-2".to_owned(),
                root_turn_id: Some("turn-2".to_owned()),
                items: vec![user_message("turn-2-user", "Fail please.")],
                items_view: TurnItemsView::Full,
                status: TurnStatus::Failed,
                error: Some(TurnError {
                    message: "usage limit reached".to_owned(),
                    codex_error_info: Some(CodexErrorInfo::UsageLimitExceeded),
                    additional_details: None,
                    misalignment: None,
                }),
                started_at: Some(CREATED_AT + 3),
                completed_at: Some(CREATED_AT + 4),
                duration_ms: Some(15),
            },
        ],
        history: vec![
            history_message("user", "Say hello."),
            history_message("assistant", "Hello!"),
            history_message("user", "Fail please."),
        ],
        token_usage: Some(usage(216)),
        instruction_sources: Vec::new(),
        turn_starts: vec![("turn-1".to_owned(), 0), ("turn-2".to_owned(), 2)],
        goal: None,
        attachments: Vec::new(),
    };
    assert_eq!(loaded, expected);

    // The index row is what `create` wrote until the engine updates it.
    assert_eq!(store.find(&id).expect("find"), Some(created));
    assert_eq!(store.find(&thread_id(2)).expect("find"), None);
}

#[test]
fn rollout_lines_have_the_documented_envelope() {
    let (_home, store) = open_store();
    let created = meta(&store, &thread_id(1), CREATED_AT);
    create_thread(&store, &created, &completed_turn("turn-1", "Hi", "Hello"));
    let text = fs::read_to_string(&created.rollout_path).expect("read");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 7);
    for line in &lines {
        let object = line.as_object().expect("object");
        let keys: Vec<&str> = object.keys().map(String::as_str).collect();
        assert_eq!(keys, ["payload", "timestamp", "type"]);
        let timestamp = object["timestamp"].as_str().expect("timestamp");
        // `2026-11-21T20:45:43.123Z`
        assert_eq!((timestamp.len(), timestamp.as_bytes()[19]), (24, b'.'));
        assert!(timestamp.ends_with('Z'));
    }
    assert_eq!(lines[0]["type"], "session_meta");
    assert_eq!(lines[0]["payload"]["version"], ROLLOUT_VERSION);
    assert_eq!(lines[0]["payload"]["meta"]["id"], thread_id(1).as_str());
    assert_eq!(lines[1]["type"], "turn_started");
    assert_eq!(lines[6]["type"], "turn_completed");
}

#[test]
fn turn_without_completion_is_interrupted() {
    let (_home, store) = open_store();
    let id = thread_id(1);
    let created = meta(&store, &id, CREATED_AT);
    let mut records = completed_turn("turn-1", "First", "Answer");
    records.extend(vec![
        RolloutRecord::TurnStarted {
            turn_id: "turn-2".to_owned(),
            started_at: CREATED_AT + 3,
        },
        RolloutRecord::Item {
            turn_id: "turn-2".to_owned(),
            item: user_message("turn-2-user", "Second"),
        },
    ]);
    create_thread(&store, &created, &records);

    let loaded = store.load(&id).expect("load");
    assert_eq!(
        loaded.turns,
        vec![
            expected_turn("turn-1", "First", "Answer"),
            Turn {
                id: "turn-2".to_owned(),
                root_turn_id: Some("turn-2".to_owned()),
                items: vec![user_message("turn-2-user", "Second")],
                items_view: TurnItemsView::Full,
                status: TurnStatus::Interrupted,
                error: None,
                started_at: Some(CREATED_AT + 3),
                completed_at: None,
                duration_ms: None,
            },
        ]
    );
}

#[test]
fn truncated_last_line_is_ignored_and_cut_off_before_appending() {
    let (_home, store) = open_store();
    let id = thread_id(1);
    let created = meta(&store, &id, CREATED_AT);
    let records: Vec<(i64, RolloutRecord)> = std::iter::once(RolloutRecord::SessionMeta {
        version: ROLLOUT_VERSION,
        meta: created.clone(),
        codex: None,
    })
    .chain(completed_turn("turn-1", "Hi", "Hello"))
    .enumerate()
    .map(|(index, record)| (CREATED_AT * 1000 + index as i64, record))
    .collect();
    write_rollout(&created.rollout_path, &records);
    let intact = store.load(&id).expect("load intact");
    assert_eq!(intact.meta.updated_at_ms, CREATED_AT * 1000 + 6);

    // The process died in the middle of writing the next line.
    let partial = encode_line_for_test(
        &RolloutRecord::TurnStarted {
            turn_id: "turn-2".to_owned(),
            started_at: CREATED_AT + 5,
        },
        CREATED_AT * 1000 + 7,
    );
    append_bytes(&created.rollout_path, &partial[..partial.len() / 2]);
    assert_eq!(store.load(&id).expect("load truncated"), intact);

    // Appending first drops the partial line, so the file stays readable.
    let mut writer = store.append_writer(&id).expect("append writer");
    for record in completed_turn("turn-2", "Again", "Sure") {
        writer.append(&record).expect("append");
    }
    let loaded = store.load(&id).expect("load appended");
    assert_eq!(
        loaded.turns,
        vec![
            expected_turn("turn-1", "Hi", "Hello"),
            expected_turn("turn-2", "Again", "Sure"),
        ]
    );
    let text = fs::read_to_string(&created.rollout_path).expect("read");
    assert_eq!(text.lines().count(), 13);
}

#[test]
fn complete_last_line_without_newline_is_kept_when_appending() {
    let (_home, store) = open_store();
    let id = thread_id(1);
    let created = meta(&store, &id, CREATED_AT);
    let header = RolloutRecord::SessionMeta {
        version: ROLLOUT_VERSION,
        meta: created.clone(),
        codex: None,
    };
    write_rollout(&created.rollout_path, &[(CREATED_AT * 1000, header)]);
    let name = encode_line_for_test(
        &RolloutRecord::ThreadName {
            name: "kept".to_owned(),
        },
        CREATED_AT * 1000 + 1,
    );
    append_bytes(&created.rollout_path, name.trim_ascii_end());

    let mut writer = store.append_writer(&id).expect("append writer");
    writer
        .append(&RolloutRecord::TurnStarted {
            turn_id: "turn-1".to_owned(),
            started_at: CREATED_AT + 1,
        })
        .expect("append");
    let loaded = store.load(&id).expect("load");
    assert_eq!(loaded.meta.name.as_deref(), Some("kept"));
    assert_eq!(loaded.turns.len(), 1);
}

#[test]
fn garbled_middle_line_is_corrupt() {
    let (_home, store) = open_store();
    let id = thread_id(1);
    let created = meta(&store, &id, CREATED_AT);
    create_thread(&store, &created, &completed_turn("turn-1", "Hi", "Hello"));
    let text = fs::read_to_string(&created.rollout_path).expect("read");
    let mut lines: Vec<&str> = text.lines().collect();
    lines[2] = "{\"timestamp\":\"2026-11-21T20:45:43.000Z\",\"type\":\"item\",\"payl";
    fs::write(&created.rollout_path, lines.join("\n") + "\n").expect("write");

    let error = store.load(&id).expect_err("corrupt");
    let StoreError::Corrupt { path, line, .. } = &error else {
        panic!("expected a corrupt error, got {error:?}");
    };
    assert_eq!((path, *line), (&created.rollout_path, 3));
}

#[test]
fn rollout_must_start_with_a_header() {
    let (_home, store) = open_store();
    let created = meta(&store, &thread_id(1), CREATED_AT);
    let records = completed_turn("turn-1", "Hi", "Hello")
        .into_iter()
        .map(|record| (CREATED_AT * 1000, record))
        .collect::<Vec<_>>();
    write_rollout(&created.rollout_path, &records);
    let error = store.load(&thread_id(1)).expect_err("no header");
    assert_eq!(
        error.to_string(),
        format!(
            "{}:1: first record is not session_meta",
            created.rollout_path.display()
        )
    );
}

#[test]
fn unknown_thread_is_not_found() {
    let (_home, store) = open_store();
    let id = thread_id(9);
    assert!(matches!(store.load(&id), Err(StoreError::NotFound(missing)) if missing == id));
    assert!(matches!(
        store.append_writer(&id),
        Err(StoreError::NotFound(_))
    ));
    let error = store.archive(&id).expect_err("archive unknown");
    assert_eq!(
        error.to_string(),
        format!("no rollout found for thread id {id}")
    );
    let error = store.unarchive(&id).expect_err("unarchive unknown");
    assert_eq!(
        error.to_string(),
        format!("no archived rollout found for thread id {id}")
    );
}

#[test]
fn load_finds_a_rollout_the_index_lost() {
    let (_home, store) = open_store();
    let id = thread_id(1);
    let created = meta(&store, &id, CREATED_AT);
    create_thread(&store, &created, &completed_turn("turn-1", "Hi", "Hello"));
    store
        .connection()
        .unwrap()
        .execute("DELETE FROM threads WHERE id = ?1", [&id])
        .expect("delete row");
    assert_eq!(store.find(&id).expect("find"), None);

    let loaded = store.load(&id).expect("load by scan");
    assert_eq!(loaded.meta.rollout_path, created.rollout_path);
    assert_eq!(store.find(&id).expect("find"), Some(loaded.meta));
    assert_eq!(list_ids(&store, &query()), vec![id]);
}

#[test]
fn update_meta_upserts_but_keeps_the_location() {
    let (_home, store) = open_store();
    let id = thread_id(1);
    let created = meta(&store, &id, CREATED_AT);
    create_thread(&store, &created, &[]);
    let archived = store.archive(&id).expect("archive");

    // A stale copy (still pointing at `sessions/`) updates the name, not the location.
    let renamed = ThreadMeta {
        name: Some("renamed".to_owned()),
        ..created
    };
    store.update_meta(&renamed).expect("update");
    let expected = ThreadMeta {
        name: Some("renamed".to_owned()),
        ..archived
    };
    assert_eq!(store.find(&id).expect("find"), Some(expected));

    // Without a row it inserts.
    let other = meta(&store, &thread_id(2), CREATED_AT);
    store.update_meta(&other).expect("insert");
    assert_eq!(store.find(&thread_id(2)).expect("find"), Some(other));
}

#[test]
fn archive_and_unarchive_move_the_rollout() {
    let (home, store) = open_store();
    let id = thread_id(1);
    let created = meta(&store, &id, CREATED_AT);
    create_thread(&store, &created, &completed_turn("turn-1", "Hi", "Hello"));
    let live = meta(&store, &thread_id(2), CREATED_AT);
    create_thread(&store, &live, &[]);
    let file_name = created.rollout_path.file_name().expect("file name");
    let archived_path = home.path().join("archived_sessions").join(file_name);

    let archived = store.archive(&id).expect("archive");
    assert_eq!(
        archived,
        ThreadMeta {
            archived: true,
            rollout_path: archived_path.clone(),
            ..created.clone()
        }
    );
    assert!(!created.rollout_path.exists());
    assert!(archived_path.is_file());
    assert_eq!(list_ids(&store, &query()), vec![thread_id(2)]);
    let archived_page = store
        .list(&ListQuery {
            archived: true,
            ..query()
        })
        .expect("list archived");
    assert_eq!(archived_page.threads, vec![archived]);
    let loaded = store.load(&id).expect("load archived");
    assert_eq!(
        (loaded.meta.archived, &loaded.meta.rollout_path),
        (true, &archived_path)
    );
    assert_eq!(loaded.turns, vec![expected_turn("turn-1", "Hi", "Hello")]);
    assert!(matches!(store.archive(&id), Err(StoreError::NotFound(_))));
    assert!(matches!(
        store.append_writer(&id),
        Err(StoreError::NotFound(_))
    ));

    let unarchived = store.unarchive(&id).expect("unarchive");
    assert_eq!(unarchived, created);
    assert!(created.rollout_path.is_file());
    assert!(!archived_path.exists());
    assert!(matches!(
        store.unarchive(&id),
        Err(StoreError::NotArchived(_))
    ));
    assert!(matches!(
        store.unarchive(&thread_id(2)),
        Err(StoreError::NotArchived(_))
    ));
    assert_eq!(list_ids(&store, &query()), vec![thread_id(2), id]);
}

/// Every thread as listed, live and archived, by both sort keys.
fn snapshot(store: &Store) -> Vec<Vec<ThreadMeta>> {
    let mut pages = Vec::new();
    for archived in [false, true] {
        for sort_key in [ThreadSortKey::CreatedAt, ThreadSortKey::UpdatedAt] {
            let page = store
                .list(&ListQuery {
                    archived,
                    sort_key,
                    ..query()
                })
                .expect("list");
            pages.push(page.threads);
        }
    }
    pages
}

/// A home with five threads (one archived, one renamed) whose index rows agree with their
/// rollouts, as they do after the engine's `update_meta` at turn end.
fn populated_home() -> (TempDir, Vec<Vec<ThreadMeta>>) {
    let (home, store) = open_store();
    for number in 0..5 {
        let id = thread_id(number);
        let created = ThreadMeta {
            model_provider: ["openai", "mock"][(number % 2) as usize].to_owned(),
            ..meta(&store, &id, CREATED_AT + i64::from(number) * 86_400)
        };
        let mut records = completed_turn("turn-1", &format!("Question {number}"), "Answer");
        if number == 3 {
            records.push(RolloutRecord::ThreadName {
                name: "Named".to_owned(),
            });
        }
        create_thread(&store, &created, &records);
        let loaded = store.load(&id).expect("load");
        store.update_meta(&loaded.meta).expect("update meta");
    }
    store.archive(&thread_id(1)).expect("archive");
    let snapshot = snapshot(&store);
    assert_eq!(snapshot[0].len(), 4);
    assert_eq!(snapshot[2].len(), 1);
    (home, snapshot)
}

#[test]
fn deleted_index_is_rebuilt_from_the_rollouts() {
    let (home, expected) = populated_home();
    fs::remove_file(home.path().join("state.sqlite")).expect("delete index");
    let store = Store::open(home.path()).expect("reopen");
    assert_eq!(snapshot(&store), expected);
}

#[test]
fn garbage_index_is_rebuilt_from_the_rollouts() {
    let (home, expected) = populated_home();
    let database = home.path().join("state.sqlite");
    fs::write(
        &database,
        b"this is not a database, just some bytes".repeat(200),
    )
    .expect("garble");
    let store = Store::open(home.path()).expect("reopen");
    assert_eq!(snapshot(&store), expected);
    assert!(home.path().join("state.sqlite.corrupt").is_file());
}

#[test]
fn index_with_another_schema_version_is_rebuilt() {
    let (home, expected) = populated_home();
    let database = home.path().join("state.sqlite");
    let connection = rusqlite::Connection::open(&database).expect("open");
    connection
        .execute_batch("DELETE FROM threads; PRAGMA user_version = 99;")
        .expect("downgrade");
    drop(connection);
    let store = Store::open(home.path()).expect("reopen");
    assert_eq!(snapshot(&store), expected);
}

#[test]
fn rebuild_skips_unreadable_rollouts() {
    let (home, expected) = populated_home();
    let garbage: PathBuf = home
        .path()
        .join("sessions/2026/11/30/rollout-2026-11-30T00-00-00-garbage.jsonl");
    fs::create_dir_all(garbage.parent().expect("parent")).expect("mkdir");
    fs::write(&garbage, "not json\nat all\n").expect("write garbage");
    fs::remove_file(home.path().join("state.sqlite")).expect("delete index");
    let store = Store::open(home.path()).expect("reopen");
    assert_eq!(snapshot(&store), expected);
}

#[test]
fn rollback_and_compaction_records_rebuild_the_history_they_left() {
    let (_home, store) = open_store();
    let id = thread_id(1);
    let created = meta(&store, &id, CREATED_AT);
    let mut records = vec![RolloutRecord::Instructions {
        sources: vec!["/repo/AGENTS.md".to_owned()],
    }];
    records.extend(completed_turn("turn-1", "one", "first"));
    records.extend(completed_turn("turn-2", "two", "second"));
    records.extend(completed_turn("turn-3", "three", "third"));
    records.push(RolloutRecord::Rollback {
        num_turns: 2,
        history_len: 2,
    });
    records.push(RolloutRecord::Compacted {
        turn_id: "turn-4".to_owned(),
        history: vec![history_message("user", "summary")],
    });
    records.extend(completed_turn("turn-4", "four", "fourth"));
    create_thread(&store, &created, &records);

    let loaded = store.load(&id).expect("load");
    assert_eq!(
        loaded.instruction_sources,
        vec!["/repo/AGENTS.md".to_owned()]
    );
    let turn_ids: Vec<&str> = loaded.turns.iter().map(|turn| turn.id.as_str()).collect();
    assert_eq!(turn_ids, vec!["turn-1", "turn-4"]);
    assert_eq!(
        loaded.history,
        vec![
            history_message("user", "summary"),
            history_message("user", "four"),
            history_message("assistant", "fourth"),
        ]
    );
    assert_eq!(
        loaded.turn_starts,
        vec![("turn-1".to_owned(), 0), ("turn-4".to_owned(), 1)]
    );
}
