//! Tests of `thread/list`: filters, both sort keys and directions, cursor pagination across
//! equal timestamps, malformed cursors, and the query plan on a larger index.

use app_server_protocol::policy::SortDirection;
use app_server_protocol::thread_requests::ThreadSortKey;
use pretty_assertions::assert_eq;

use super::tests::{CREATED_AT, list_ids, meta, open_store, query, thread_id};
use super::{Store, list_statement};
use crate::store::{ListQuery, StoreError, ThreadMeta};

/// Follows the cursors from the first page to the last, returning the ids in page order.
fn ids_over_pages(store: &Store, query: &ListQuery) -> Vec<String> {
    let mut query = query.clone();
    let mut ids = Vec::new();
    // A cursor that does not advance would loop forever; no fixture has this many pages.
    for _ in 0..1000 {
        let page = store.list(&query).expect("list page");
        assert!(page.threads.len() <= query.limit.unwrap_or(usize::MAX).max(1));
        ids.extend(page.threads.into_iter().map(|meta| meta.id));
        match page.next_cursor {
            Some(cursor) => query.cursor = Some(cursor),
            None => return ids,
        }
    }
    panic!(
        "pagination did not end after 1000 pages ({} ids)",
        ids.len()
    );
}

/// Threads for the list tests: varied providers, sources, originators, cwds, names and
/// previews, with created and updated times that repeat so that ties must be broken by id.
fn list_fixture(store: &Store, count: u32) -> Vec<ThreadMeta> {
    let metas: Vec<ThreadMeta> = (0..count)
        .map(|number| {
            let created_at = CREATED_AT + i64::from(number % 3);
            ThreadMeta {
                updated_at_ms: CREATED_AT * 1000 + i64::from((number * 7) % 4),
                model_provider: ["openai", "ollama"][(number % 2) as usize].to_owned(),
                source: ["vscode", "cli", "exec"][(number % 3) as usize].to_owned(),
                originator: [Some("codex_vscode".to_owned()), None][(number % 2) as usize].clone(),
                cwd: format!("/work/{}", number % 4),
                preview: format!("Preview {number} about Rust"),
                name: (number % 5 == 0).then(|| format!("Named rust {number}")),
                ..meta(store, &thread_id(number), created_at)
            }
        })
        .collect();
    store.insert_rows(&metas).expect("insert rows");
    metas
}

/// The ids of `metas` ordered as `thread/list` orders them.
fn sorted_ids(
    metas: &[ThreadMeta],
    sort_key: ThreadSortKey,
    direction: SortDirection,
) -> Vec<String> {
    let mut keyed: Vec<(i64, String)> = metas
        .iter()
        .map(|meta| {
            let key = match sort_key {
                ThreadSortKey::CreatedAt => meta.created_at,
                ThreadSortKey::UpdatedAt
                | ThreadSortKey::RecencyAt
                | ThreadSortKey::SectionPosition => meta.updated_at_ms,
            };
            (key, meta.id.clone())
        })
        .collect();
    keyed.sort();
    if direction == SortDirection::Desc {
        keyed.reverse();
    }
    keyed.into_iter().map(|(_, id)| id).collect()
}

#[test]
fn list_sorts_and_pages_without_duplicates_or_gaps() {
    let (_home, store) = open_store();
    let metas = list_fixture(&store, 25);
    for sort_key in [
        ThreadSortKey::CreatedAt,
        ThreadSortKey::UpdatedAt,
        ThreadSortKey::RecencyAt,
        ThreadSortKey::SectionPosition,
    ] {
        for direction in [SortDirection::Desc, SortDirection::Asc] {
            let expected = sorted_ids(&metas, sort_key, direction);
            let all = ListQuery {
                sort_key,
                sort_direction: direction,
                ..query()
            };
            assert_eq!(
                list_ids(&store, &all),
                expected,
                "{sort_key:?} {direction:?}"
            );
            for limit in [1, 2, 3, 7, 24, 25, 26] {
                let paged = ListQuery {
                    limit: Some(limit),
                    ..all.clone()
                };
                assert_eq!(
                    ids_over_pages(&store, &paged),
                    expected,
                    "{sort_key:?} {direction:?} limit {limit}"
                );
            }
        }
    }
}

#[test]
fn list_pages_report_the_next_cursor_only_when_more_rows_exist() {
    let (_home, store) = open_store();
    list_fixture(&store, 3);
    let first = store
        .list(&ListQuery {
            limit: Some(2),
            ..query()
        })
        .expect("first page");
    // Thread 2 was created at CREATED_AT + 2, thread 1 at CREATED_AT + 1.
    assert_eq!(
        first.next_cursor.as_deref(),
        Some("2026-11-21T20:45:44Z|01a1ffdb-0000-7000-8000-000000000001")
    );
    let rest = store
        .list(&ListQuery {
            limit: Some(2),
            cursor: first.next_cursor,
            ..query()
        })
        .expect("second page");
    assert_eq!(rest.threads.len(), 1);
    assert_eq!(rest.next_cursor, None);

    let exact = store
        .list(&ListQuery {
            limit: Some(3),
            ..query()
        })
        .expect("exact page");
    assert_eq!((exact.threads.len(), exact.next_cursor), (3, None));

    // A zero limit is clamped to one thread.
    let clamped = store
        .list(&ListQuery {
            limit: Some(0),
            ..query()
        })
        .expect("clamped page");
    assert_eq!(clamped.threads.len(), 1);

    let by_update = store
        .list(&ListQuery {
            limit: Some(1),
            sort_key: ThreadSortKey::UpdatedAt,
            ..query()
        })
        .expect("updated_at page");
    // Thread 1 has the largest update time, CREATED_AT * 1000 + 3.
    assert_eq!(
        by_update.next_cursor.as_deref(),
        Some("2026-11-21T20:45:43.003Z|01a1ffdb-0000-7000-8000-000000000001")
    );
}

#[test]
fn list_rejects_malformed_cursors() {
    let (_home, store) = open_store();
    list_fixture(&store, 3);
    for cursor in [
        "garbage",
        "2026-11-21T20:45:42Z|",
        "|01a1ffdb-0000-7000-8000-000000000001",
        "2026-11-21 20:45:42|01a1ffdb-0000-7000-8000-000000000001",
        "2026-13-21T20:45:42Z|01a1ffdb-0000-7000-8000-000000000001",
    ] {
        let error = store
            .list(&ListQuery {
                cursor: Some(cursor.to_owned()),
                ..query()
            })
            .expect_err(cursor);
        assert!(
            matches!(&error, StoreError::InvalidCursor(text) if text == cursor),
            "{cursor}: {error:?}"
        );
        assert_eq!(error.to_string(), format!("invalid cursor: {cursor}"));
    }
}

#[test]
fn list_filters() {
    let (_home, store) = open_store();
    let metas = list_fixture(&store, 12);
    let expect = |filter: &dyn Fn(&ThreadMeta) -> bool| -> Vec<String> {
        let matching: Vec<ThreadMeta> = metas.iter().filter(|meta| filter(meta)).cloned().collect();
        sorted_ids(&matching, ThreadSortKey::CreatedAt, SortDirection::Desc)
    };
    let cases: Vec<(ListQuery, Vec<String>)> = vec![
        (
            ListQuery {
                model_providers: vec!["ollama".to_owned()],
                ..query()
            },
            expect(&|meta| meta.model_provider == "ollama"),
        ),
        (
            ListQuery {
                sources: vec!["cli".to_owned(), "exec".to_owned()],
                ..query()
            },
            expect(&|meta| meta.source != "vscode"),
        ),
        (
            ListQuery {
                originators: vec!["codex_vscode".to_owned()],
                ..query()
            },
            expect(&|meta| meta.originator.is_some()),
        ),
        (
            ListQuery {
                cwds: vec!["/work/1".to_owned(), "/work/2".to_owned()],
                ..query()
            },
            expect(&|meta| meta.cwd == "/work/1" || meta.cwd == "/work/2"),
        ),
        (
            ListQuery {
                excluded_ids: vec![thread_id(0), thread_id(5)],
                ..query()
            },
            expect(&|meta| meta.id != thread_id(0) && meta.id != thread_id(5)),
        ),
        (
            ListQuery {
                model_providers: vec!["openai".to_owned()],
                cwds: vec!["/work/0".to_owned()],
                ..query()
            },
            expect(&|meta| meta.model_provider == "openai" && meta.cwd == "/work/0"),
        ),
        (
            ListQuery {
                model_providers: vec!["nobody".to_owned()],
                ..query()
            },
            Vec::new(),
        ),
    ];
    for (list_query, expected) in cases {
        assert_eq!(list_ids(&store, &list_query), expected, "{list_query:?}");
    }
}

#[test]
fn list_search_is_a_case_sensitive_substring_of_name_or_preview() {
    let (_home, store) = open_store();
    let metas = list_fixture(&store, 12);
    let search = |term: &str| {
        list_ids(
            &store,
            &ListQuery {
                search_term: Some(term.to_owned()),
                ..query()
            },
        )
    };
    // "rust" only occurs in names (threads 0, 5 and 10); "Rust" only in previews.
    assert_eq!(
        search("rust"),
        vec![thread_id(5), thread_id(10), thread_id(0)]
    );
    assert_eq!(
        search("Rust"),
        sorted_ids(&metas, ThreadSortKey::CreatedAt, SortDirection::Desc)
    );
    assert_eq!(search("RUST"), Vec::<String>::new());
    assert_eq!(search("Preview 11 "), vec![thread_id(11)]);
    // LIKE wildcards are plain characters.
    assert_eq!(search("%"), Vec::<String>::new());
}

#[test]
fn list_of_many_threads_walks_an_index() {
    let (_home, store) = open_store();
    let count = 2_000;
    let metas: Vec<ThreadMeta> = (0..count)
        .map(|number| ThreadMeta {
            updated_at_ms: CREATED_AT * 1000 + i64::from(number * 7919 % count),
            ..meta(
                &store,
                &thread_id(number),
                CREATED_AT + i64::from(number / 3),
            )
        })
        .collect();
    store.insert_rows(&metas).expect("insert rows");
    for sort_key in [
        ThreadSortKey::CreatedAt,
        ThreadSortKey::UpdatedAt,
        ThreadSortKey::RecencyAt,
        ThreadSortKey::SectionPosition,
    ] {
        for direction in [SortDirection::Desc, SortDirection::Asc] {
            let expected = sorted_ids(&metas, sort_key, direction);
            let first = ListQuery {
                limit: Some(50),
                sort_key,
                sort_direction: direction,
                ..query()
            };
            let page = store.list(&first).expect("first page");
            let ids: Vec<String> = page.threads.iter().map(|meta| meta.id.clone()).collect();
            assert_eq!(ids, expected[..50].to_vec());
            let second = ListQuery {
                cursor: page.next_cursor,
                ..first
            };
            let page = store.list(&second).expect("second page");
            let ids: Vec<String> = page.threads.iter().map(|meta| meta.id.clone()).collect();
            assert_eq!(ids, expected[50..100].to_vec());

            // The plan walks the matching index in order and stops after the page: no table
            // scan and no sort.
            let statement = list_statement(&second).expect("statement");
            let connection = store.connection().unwrap();
            let mut explain = connection
                .prepare(&format!("EXPLAIN QUERY PLAN {}", statement.sql))
                .expect("explain");
            let plan: Vec<String> = explain
                .query_map(rusqlite::params_from_iter(statement.values), |row| {
                    row.get(3)
                })
                .expect("plan")
                .collect::<Result<_, _>>()
                .expect("plan rows");
            let index = match sort_key {
                ThreadSortKey::CreatedAt => "threads_owner_archived_created",
                ThreadSortKey::UpdatedAt
                | ThreadSortKey::RecencyAt
                | ThreadSortKey::SectionPosition => "threads_owner_archived_updated",
            };
            assert_eq!(plan.len(), 1, "{plan:?}");
            assert!(
                plan[0].contains(&format!("USING INDEX {index}")),
                "{plan:?}"
            );
            assert!(plan[0].contains("(owner=? AND archived=? AND"), "{plan:?}");
        }
    }
}
