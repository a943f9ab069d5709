//! Tests of read state in the index: the initial revision, edits guarded by the revision the
//! caller saw, a turn's result published once and keeping the earliest unread turn, another
//! owner seeing nothing, a deleted thread leaving no state behind, and a version-3 index
//! gaining the read-state table in place.

use app_server_protocol::thread_read_state::{ThreadReadState, ThreadUnreadPosition};
use pretty_assertions::assert_eq;

use super::Store;
use super::tests::{CREATED_AT, create_thread, meta, open_store, thread_id};
use crate::principal::Principal;
use crate::store::ThreadMeta;
use crate::store::read_state::{ReadStateEdit, ReadStateUpdate};

fn alice() -> Principal {
    Principal::named("alice")
}

fn bob() -> Principal {
    Principal::named("bob")
}

/// Thread `number` of `owner`, with a rollout and an index row.
fn thread_of(store: &Store, number: u32, owner: &Principal) -> String {
    let id = thread_id(number);
    create_thread(
        store,
        &ThreadMeta {
            owner: owner.clone(),
            ..meta(store, &id, CREATED_AT + i64::from(number))
        },
        &[],
    );
    id
}

fn state_of(store: &Store, owner: &Principal, id: &str) -> Option<ThreadReadState> {
    store
        .read_states(owner, &[id])
        .expect("read states")
        .remove(id)
}

fn turn(turn_id: &str) -> Option<ThreadUnreadPosition> {
    Some(ThreadUnreadPosition::Turn {
        turn_id: turn_id.to_owned(),
    })
}

#[test]
fn a_thread_starts_read_at_a_revision_naming_it() {
    let (_home, store) = open_store();
    let id = thread_of(&store, 1, &alice());
    assert_eq!(
        state_of(&store, &alice(), &id),
        Some(ThreadReadState {
            first_unread: None,
            revision: format!("initial:{id}"),
        })
    );
    // Unknown threads have none.
    assert_eq!(state_of(&store, &alice(), &thread_id(9)), None);
}

#[test]
fn a_published_result_keeps_the_earliest_unread_turn_and_is_published_once() {
    let (_home, store) = open_store();
    let id = thread_of(&store, 1, &alice());
    let first = store
        .publish_attention(&alice(), &id, "turn-1")
        .expect("publish")
        .expect("changed");
    assert_eq!(first.first_unread, turn("turn-1"));
    assert_eq!(
        store
            .publish_attention(&alice(), &id, "turn-1")
            .expect("publish again"),
        None
    );
    let second = store
        .publish_attention(&alice(), &id, "turn-2")
        .expect("publish")
        .expect("changed");
    assert_eq!(second.first_unread, turn("turn-1"));
    assert_ne!(second.revision, first.revision);
    assert_eq!(state_of(&store, &alice(), &id), Some(second));
}

#[test]
fn edits_name_the_revision_their_caller_saw() {
    let (_home, store) = open_store();
    let id = thread_of(&store, 1, &alice());
    let unread = store
        .publish_attention(&alice(), &id, "turn-1")
        .expect("publish")
        .expect("changed");
    // The initial revision no longer holds: the caller has not seen the new result.
    let stale = store
        .update_read_state(&alice(), &id, &format!("initial:{id}"), ReadStateEdit::Read)
        .expect("update");
    assert_eq!(stale, ReadStateUpdate::Conflict(unread.clone()));
    let ReadStateUpdate::Applied(read) = store
        .update_read_state(&alice(), &id, &unread.revision, ReadStateEdit::Read)
        .expect("update")
    else {
        panic!("the current revision is accepted");
    };
    assert_eq!(read.first_unread, None);
    assert_eq!(state_of(&store, &alice(), &id), Some(read.clone()));
    let ReadStateUpdate::Applied(marked) = store
        .update_read_state(&alice(), &id, &read.revision, ReadStateEdit::Unread)
        .expect("update")
    else {
        panic!("the current revision is accepted");
    };
    assert_eq!(marked.first_unread, Some(ThreadUnreadPosition::ThreadStart));
    // A turn published later leaves the whole thread unread.
    let later = store
        .publish_attention(&alice(), &id, "turn-2")
        .expect("publish")
        .expect("changed");
    assert_eq!(later.first_unread, Some(ThreadUnreadPosition::ThreadStart));
}

#[test]
fn another_owner_has_no_read_state_of_the_thread() {
    let (_home, store) = open_store();
    let id = thread_of(&store, 1, &alice());
    assert_eq!(state_of(&store, &bob(), &id), None);
    assert_eq!(
        store
            .update_read_state(&bob(), &id, &format!("initial:{id}"), ReadStateEdit::Unread)
            .expect("update"),
        ReadStateUpdate::Unavailable
    );
    assert_eq!(
        store
            .publish_attention(&bob(), &id, "turn-1")
            .expect("publish"),
        None
    );
    assert_eq!(
        state_of(&store, &alice(), &id).map(|state| state.first_unread),
        Some(None)
    );
}

#[test]
fn a_deleted_thread_leaves_no_read_state() {
    let (home, store) = open_store();
    let id = thread_of(&store, 1, &alice());
    store
        .publish_attention(&alice(), &id, "turn-1")
        .expect("publish")
        .expect("changed");
    store.delete(&id).expect("delete");
    drop(store);
    let connection = rusqlite::Connection::open(home.path().join("state.sqlite")).expect("open");
    let rows: i64 = connection
        .query_row("SELECT count(*) FROM read_states", [], |row| row.get(0))
        .expect("count");
    assert_eq!(rows, 0);
}

#[test]
fn a_version_3_index_gains_the_read_state_table_in_place() {
    let (home, store) = open_store();
    let id = thread_of(&store, 1, &alice());
    drop(store);
    let connection = rusqlite::Connection::open(home.path().join("state.sqlite")).expect("open");
    connection
        .execute_batch("DROP TABLE read_states; PRAGMA user_version = 3;")
        .expect("downgrade");
    drop(connection);
    let store = Store::open(home.path()).expect("reopen");
    let published = store
        .publish_attention(&alice(), &id, "turn-1")
        .expect("publish after the migration")
        .expect("changed");
    assert_eq!(published.first_unread, turn("turn-1"));
    drop(store);
    let connection = rusqlite::Connection::open(home.path().join("state.sqlite")).expect("open");
    let version: i64 = connection
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .expect("version");
    assert_eq!(version, 4);
}
