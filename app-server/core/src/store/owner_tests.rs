//! Tests of threads' owners in the store: recorded in the rollout header and the index row,
//! never changed by a later record, filtered on by every list, found for a rollout the index
//! lost, and added in place to an index written before owners were recorded, by one process
//! while the others wait.

use std::sync::Barrier;

use pretty_assertions::assert_eq;

use super::Store;
use super::tests::{
    CREATED_AT, completed_turn, create_thread, list_ids, meta, open_store, query, thread_id,
};
use crate::principal::Principal;
use crate::store::{ListQuery, RolloutRecord, ThreadMeta};

fn owned_by(store: &Store, id: &str, owner: &str) -> ThreadMeta {
    ThreadMeta {
        owner: Principal::named(owner),
        ..meta(store, id, CREATED_AT)
    }
}

fn listed_for(store: &Store, owner: &str) -> Vec<String> {
    list_ids(
        store,
        &ListQuery {
            owner: Principal::named(owner),
            ..query()
        },
    )
}

#[test]
fn lists_show_only_the_owners_threads() {
    let (_home, store) = open_store();
    for (number, owner) in [(1, "alice"), (2, "bob"), (3, "alice"), (4, "local")] {
        let id = thread_id(number);
        create_thread(
            &store,
            &owned_by(&store, &id, owner),
            &completed_turn("turn-1", "question", "answer"),
        );
    }
    assert_eq!(
        listed_for(&store, "alice"),
        vec![thread_id(3), thread_id(1)]
    );
    assert_eq!(listed_for(&store, "bob"), vec![thread_id(2)]);
    assert_eq!(list_ids(&store, &query()), vec![thread_id(4)]);
    assert_eq!(listed_for(&store, "carol"), Vec::<String>::new());
    assert_eq!(
        store.owner(&thread_id(2)).expect("owner"),
        Some(Principal::named("bob"))
    );
    assert_eq!(store.owner(&thread_id(9)).expect("owner"), None);
}

#[test]
fn a_later_record_does_not_change_the_owner() {
    let (_home, store) = open_store();
    let id = thread_id(1);
    let created = owned_by(&store, &id, "alice");
    let mut records = completed_turn("turn-1", "question", "answer");
    // A settings line (or a second header) naming someone else, as a damaged or forged
    // rollout might: the first header decides.
    records.push(RolloutRecord::Settings {
        meta: ThreadMeta {
            model: "other-model".to_owned(),
            ..owned_by(&store, &id, "bob")
        },
    });
    create_thread(&store, &created, &records);
    let thread = store.load(&id).expect("load");
    assert_eq!(thread.meta.model, "other-model");
    assert_eq!(thread.meta.owner, Principal::named("alice"));
}

#[test]
fn the_owner_of_a_rollout_the_index_lost_is_read_from_the_rollout() {
    let (home, store) = open_store();
    let id = thread_id(1);
    create_thread(
        &store,
        &owned_by(&store, &id, "alice"),
        &completed_turn("turn-1", "question", "answer"),
    );
    drop(store);
    let connection = rusqlite::Connection::open(home.path().join("state.sqlite")).expect("open");
    connection
        .execute("DELETE FROM threads", [])
        .expect("forget the row");
    drop(connection);
    let store = Store::open(home.path()).expect("reopen");
    assert_eq!(
        store.owner(&id).expect("owner"),
        Some(Principal::named("alice"))
    );
    // The row is back, with its owner.
    assert_eq!(listed_for(&store, "alice"), vec![id]);
}

/// Turns the index of `home` into what a version-1 index looked like: no `owner` column, the
/// list indexes without it, no owner in the rows' metadata, no section tables, `user_version`
/// 1.
fn downgrade_to_version_1(home: &std::path::Path) {
    let connection = rusqlite::Connection::open(home.join("state.sqlite")).expect("open");
    connection
        .execute_batch(
            "DROP TABLE thread_sections;
             DROP TABLE sections;
             DROP INDEX threads_owner_archived_created;
             DROP INDEX threads_owner_archived_updated;
             ALTER TABLE threads DROP COLUMN owner;
             UPDATE threads SET meta_json = json_remove(meta_json, '$.owner');
             CREATE INDEX threads_archived_created ON threads (archived, created_at, id);
             CREATE INDEX threads_archived_updated ON threads (archived, updated_at_ms, id);
             PRAGMA user_version = 1;",
        )
        .expect("downgrade");
}

fn schema_of(home: &std::path::Path) -> (i64, Vec<String>) {
    let connection = rusqlite::Connection::open(home.join("state.sqlite")).expect("open");
    let version = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .expect("version");
    let mut statement = connection
        .prepare("SELECT name FROM pragma_table_info('threads')")
        .expect("columns");
    let columns = statement
        .query_map([], |row| row.get(0))
        .expect("columns")
        .collect::<Result<_, _>>()
        .expect("columns");
    (version, columns)
}

#[test]
fn stores_opening_a_version_1_index_together_add_the_owner_in_place_once() {
    for round in 0..5 {
        let (home, store) = open_store();
        for number in 0..3 {
            create_thread(
                &store,
                &meta(&store, &thread_id(number), CREATED_AT),
                &completed_turn("turn-1", "question", "answer"),
            );
        }
        // A row whose rollout is gone: a rebuild from the rollouts would drop it, the
        // migration keeps it.
        store
            .update_meta(&meta(&store, &thread_id(7), CREATED_AT - 1))
            .expect("row without a rollout");
        drop(store);
        downgrade_to_version_1(home.path());
        let barrier = Barrier::new(6);
        let lists: Vec<Vec<String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..6)
                .map(|_| {
                    let (home, barrier) = (home.path(), &barrier);
                    scope.spawn(move || {
                        let store = Store::open(home).expect("open store");
                        barrier.wait();
                        list_ids(&store, &query())
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().expect("store thread"))
                .collect()
        });
        let expected = vec![thread_id(2), thread_id(1), thread_id(0), thread_id(7)];
        for listed in lists {
            assert_eq!(listed, expected, "round {round}");
        }
        let (version, columns) = schema_of(home.path());
        assert_eq!(version, 4);
        assert_eq!(columns.iter().filter(|name| *name == "owner").count(), 1);
        assert!(!home.path().join("state.sqlite.corrupt").exists());
    }
}

#[test]
fn the_local_user_is_the_column_default() {
    assert_eq!(crate::principal::LOCAL_USER, "local");
    let (_home, store) = open_store();
    let connection = store.connection().expect("connection");
    let default: String = connection
        .query_row(
            "SELECT dflt_value FROM pragma_table_info('threads') WHERE name = 'owner'",
            [],
            |row| row.get(0),
        )
        .expect("default");
    assert_eq!(default, "'local'");
}
