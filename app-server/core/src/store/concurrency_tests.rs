//! Tests of several stores on one home, as processes sharing a home have them: building a new
//! index together, and a new thread whose index cannot be opened.

use std::fs;
use std::sync::Barrier;

use pretty_assertions::assert_eq;

use super::Store;
use super::tests::{
    CREATED_AT, completed_turn, create_thread, expected_turn, list_ids, meta, open_store, query,
    thread_id,
};

/// Stores opened at once on a new home, as processes started together.
const STORES: u32 = 8;

#[test]
fn stores_creating_threads_together_on_a_new_home_index_every_thread_with_its_turn() {
    // Each round is a new home; the race is over the index's creation, which a round has once.
    for round in 0..5 {
        let home = tempfile::tempdir().expect("tempdir");
        let barrier = Barrier::new(STORES as usize);
        std::thread::scope(|scope| {
            for number in 0..STORES {
                let (home, barrier) = (home.path(), &barrier);
                scope.spawn(move || {
                    // A store of its own, with its own connection, as another process has.
                    let store = Store::open(home).expect("open store");
                    let id = thread_id(round * 100 + number);
                    barrier.wait();
                    create_thread(
                        &store,
                        &meta(&store, &id, CREATED_AT),
                        &completed_turn("turn-1", "question", "answer"),
                    );
                });
            }
        });
        let store = Store::open(home.path()).expect("reopen");
        let mut expected: Vec<String> = (0..STORES)
            .map(|number| thread_id(round * 100 + number))
            .collect();
        expected.reverse();
        assert_eq!(list_ids(&store, &query()), expected);
        for id in &expected {
            let thread = store.load(id).expect("load");
            assert_eq!(
                thread.turns,
                vec![expected_turn("turn-1", "question", "answer")]
            );
        }
    }
}

#[test]
fn an_index_that_cannot_be_opened_is_kept_and_a_new_thread_keeps_its_turns() {
    let (home, store) = open_store();
    // SQLite cannot open a directory, and that says nothing about the data: the store must
    // neither move it aside nor drop the thread.
    let database = home.path().join("state.sqlite");
    fs::create_dir(&database).expect("mkdir");
    let id = thread_id(1);
    create_thread(
        &store,
        &meta(&store, &id, CREATED_AT),
        &completed_turn("turn-1", "question", "answer"),
    );
    assert!(store.list(&query()).is_err());
    assert!(database.is_dir());

    fs::remove_dir(&database).expect("rmdir");
    let store = Store::open(home.path()).expect("reopen");
    assert_eq!(list_ids(&store, &query()), vec![id.clone()]);
    assert_eq!(
        store.load(&id).expect("load").turns,
        vec![expected_turn("turn-1", "question", "answer")]
    );
}
