//! Tests of thread sections in the index: each principal's own sections beside the built-in
//! one, positions that keep the order a client asked for (renumbering when a gap is used up),
//! `thread/list` filtered and sorted by section, a deleted section or thread leaving no place
//! behind, and a version-2 index gaining the section tables in place.

use app_server_protocol::policy::SortDirection;
use app_server_protocol::thread_requests::ThreadSortKey;
use app_server_protocol::thread_section::{
    PINNED_SECTION_ID, ThreadSection, ThreadSectionAppearance,
};
use pretty_assertions::assert_eq;

use super::Store;
use super::tests::{CREATED_AT, create_thread, list_ids, meta, open_store, query, thread_id};
use crate::principal::Principal;
use crate::store::sections::{POSITION_STEP, SectionError};
use crate::store::{ListQuery, ThreadMeta};

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

/// The ids `owner` lists in `section`, by section position (`direction` is ignored there),
/// over pages of `limit`.
fn in_section(
    store: &Store,
    owner: &Principal,
    section: &str,
    direction: SortDirection,
    limit: Option<usize>,
) -> Vec<String> {
    let mut ids = Vec::new();
    let mut cursor = None;
    loop {
        let page = store
            .list(&ListQuery {
                owner: owner.clone(),
                sort_key: ThreadSortKey::SectionPosition,
                sort_direction: direction,
                section: Some(Some(section.to_owned())),
                limit,
                cursor,
                ..query()
            })
            .expect("list");
        ids.extend(page.threads.into_iter().map(|meta| meta.id));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return ids,
        }
    }
}

fn names(sections: &[ThreadSection]) -> Vec<&str> {
    sections
        .iter()
        .map(|section| section.name.as_str())
        .collect()
}

#[test]
fn each_principal_has_pinned_and_only_its_own_sections() {
    let (_home, store) = open_store();
    let work = store
        .create_section(&alice(), "  Work  ", None)
        .expect("create");
    assert_eq!(work.name, "Work");
    let painted = ThreadSectionAppearance {
        color: Some("red".into()),
        icon: None,
    };
    store
        .create_section(&alice(), "Play", Some(&painted))
        .expect("create");
    store.create_section(&bob(), "Bob's", None).expect("create");

    let (all, next) = store.list_sections(&alice(), None, None).expect("list");
    assert_eq!(names(&all), vec!["Pinned", "Work", "Play"]);
    assert_eq!(all[0].id, PINNED_SECTION_ID);
    assert_eq!(all[2].appearance, Some(painted.clone()));
    assert_eq!(next, None);
    let (bobs, _) = store.list_sections(&bob(), None, None).expect("list");
    assert_eq!(names(&bobs), vec!["Pinned", "Bob's"]);

    // Pages of one continue after the last id; an unknown cursor gives an empty page.
    let (first, next) = store.list_sections(&alice(), None, Some(1)).expect("list");
    assert_eq!(names(&first), vec!["Pinned"]);
    let (second, next) = store
        .list_sections(&alice(), next.as_deref(), Some(1))
        .expect("list");
    assert_eq!(names(&second), vec!["Work"]);
    let (third, next) = store
        .list_sections(&alice(), next.as_deref(), Some(1))
        .expect("list");
    assert_eq!((names(&third), next), (vec!["Play"], None));
    let (none, _) = store
        .list_sections(&alice(), Some("zzz"), None)
        .expect("list");
    assert_eq!(none, Vec::new());

    // Bob can neither rename nor delete alice's section, nor move into it.
    assert!(matches!(
        store.update_section(&bob(), &work.id, "Mine", None),
        Err(SectionError::NotFound(_))
    ));
    assert!(matches!(
        store.delete_section(&bob(), &work.id),
        Err(SectionError::NotFound(_))
    ));
    let bobs_thread = thread_of(&store, 1, &bob());
    assert!(matches!(
        store.move_to_section(&bob(), &bobs_thread, Some(&work.id), None, 1),
        Err(SectionError::MoveTargetMissing(_))
    ));

    // Updates keep, replace or clear the appearance; the built-in section stays as it is.
    let kept = store
        .update_section(&alice(), &all[2].id, "Games", None)
        .expect("update");
    assert_eq!(kept.appearance, Some(painted));
    let cleared = store
        .update_section(&alice(), &all[2].id, "Games", Some(None))
        .expect("update");
    assert_eq!(cleared.appearance, None);
    for refused in [
        store.update_section(&alice(), PINNED_SECTION_ID, "Pins", None),
        store.update_section(&alice(), &work.id, "   ", None),
        store.update_section(&alice(), &work.id, &"x".repeat(300), None),
    ] {
        assert!(refused.is_err(), "{refused:?}");
    }
    assert!(matches!(
        store.delete_section(&alice(), PINNED_SECTION_ID),
        Err(SectionError::PinnedDelete)
    ));
    assert!(matches!(
        store.create_section(&alice(), "", None),
        Err(SectionError::EmptyName)
    ));
}

#[test]
fn moves_keep_the_asked_order_and_list_by_position() {
    let (_home, store) = open_store();
    let owner = alice();
    let section = store.create_section(&owner, "Work", None).expect("create");
    let threads: Vec<String> = (0..4)
        .map(|number| thread_of(&store, number, &owner))
        .collect();
    for thread in &threads[..3] {
        store
            .move_to_section(&owner, thread, Some(&section.id), None, 100)
            .expect("move");
    }
    let order = |direction| in_section(&store, &owner, &section.id, direction, None);
    assert_eq!(order(SortDirection::Desc), threads[..3].to_vec());
    assert_eq!(order(SortDirection::Asc), threads[..3].to_vec());

    // Before the first thread, then within the section; the entry time stays on a move
    // within the section.
    store
        .move_to_section(
            &owner,
            &threads[2],
            Some(&section.id),
            Some(&threads[0]),
            200,
        )
        .expect("move before");
    let expected = vec![threads[2].clone(), threads[0].clone(), threads[1].clone()];
    assert_eq!(order(SortDirection::Desc), expected);
    assert_eq!(
        in_section(&store, &owner, &section.id, SortDirection::Desc, Some(1)),
        expected
    );
    let places = store
        .sections_of(&owner, &[threads[2].as_str(), threads[3].as_str()])
        .expect("sections of");
    assert_eq!(places.len(), 1);
    assert_eq!(places[&threads[2]].section, section);
    assert_eq!(places[&threads[2]].entered_at, 100);

    // Refused: before itself, before a thread of another section, into no section of hers.
    assert!(matches!(
        store.move_to_section(&owner, &threads[0], Some(&section.id), Some(&threads[0]), 1),
        Err(SectionError::BeforeItself(_))
    ));
    assert!(matches!(
        store.move_to_section(&owner, &threads[3], Some(&section.id), Some(&threads[3]), 1),
        Err(SectionError::BeforeItself(_))
    ));
    assert!(matches!(
        store.move_to_section(
            &owner,
            &threads[0],
            Some(PINNED_SECTION_ID),
            Some(&threads[1]),
            1
        ),
        Err(SectionError::BeforeElsewhere { .. })
    ));

    // The unsectioned filter, and taking a thread out.
    let unsectioned = |store: &Store| {
        list_ids(
            store,
            &ListQuery {
                owner: owner.clone(),
                section: Some(None),
                ..query()
            },
        )
    };
    assert_eq!(unsectioned(&store), vec![threads[3].clone()]);
    store
        .move_to_section(&owner, &threads[0], None, None, 300)
        .expect("take out");
    assert_eq!(
        unsectioned(&store),
        vec![threads[3].clone(), threads[0].clone()]
    );

    // Deleting the section frees its threads; deleting a thread frees its place.
    store
        .move_to_section(&owner, &threads[3], Some(PINNED_SECTION_ID), None, 400)
        .expect("pin");
    store.delete_section(&owner, &section.id).expect("delete");
    assert_eq!(
        in_section(&store, &owner, &section.id, SortDirection::Asc, None),
        Vec::<String>::new()
    );
    store.delete(&threads[3]).expect("delete thread");
    let connection = store.connection().expect("connection");
    let places: i64 = connection
        .query_row("SELECT count(*) FROM thread_sections", [], |row| row.get(0))
        .expect("count");
    assert_eq!(places, 0);
}

#[test]
fn a_used_up_gap_renumbers_the_section() {
    let (_home, store) = open_store();
    let owner = alice();
    let threads: Vec<String> = (0..30)
        .map(|number| thread_of(&store, number, &owner))
        .collect();
    store
        .move_to_section(&owner, &threads[0], Some(PINNED_SECTION_ID), None, 1)
        .expect("first");
    // Each thread goes before the previous one: the gap in front of the first halves each
    // time and runs out after about 20 moves.
    let mut expected = vec![threads[0].clone()];
    for thread in &threads[1..] {
        let first = expected[0].clone();
        store
            .move_to_section(&owner, thread, Some(PINNED_SECTION_ID), Some(&first), 1)
            .expect("move before");
        expected.insert(0, thread.clone());
    }
    // 29 halvings use up a gap of POSITION_STEP, so the section was renumbered on the way.
    const { assert!(POSITION_STEP < 1 << 29) };
    assert_eq!(
        in_section(
            &store,
            &owner,
            PINNED_SECTION_ID,
            SortDirection::Asc,
            Some(7)
        ),
        expected
    );
    // Another principal's pinned threads are not hers.
    assert_eq!(
        in_section(&store, &bob(), PINNED_SECTION_ID, SortDirection::Asc, None),
        Vec::<String>::new()
    );
}

#[test]
fn a_version_2_index_gains_the_section_tables_in_place() {
    let (home, store) = open_store();
    let id = thread_of(&store, 1, &alice());
    drop(store);
    let connection = rusqlite::Connection::open(home.path().join("state.sqlite")).expect("open");
    connection
        .execute_batch("DROP TABLE thread_sections; DROP TABLE sections; PRAGMA user_version = 2;")
        .expect("downgrade");
    drop(connection);
    let store = Store::open(home.path()).expect("reopen");
    assert_eq!(
        list_ids(
            &store,
            &ListQuery {
                owner: alice(),
                ..query()
            }
        ),
        vec![id.clone()]
    );
    store
        .move_to_section(&alice(), &id, Some(PINNED_SECTION_ID), None, 1)
        .expect("move after the migration");
    assert!(!home.path().join("state.sqlite.corrupt").exists());
}
