//! Thread sections in the index: the sections each principal created, and the section and
//! position of each thread in one (`threadSection/*`, `thread/section/move`).
//!
//! The built-in "Pinned" section ([`PINNED_SECTION_ID`]) has no row: every principal has it.
//! A thread's place is one `thread_sections` row; positions leave gaps of [`POSITION_STEP`],
//! so that a thread moved before another takes the middle of the gap, and a section whose gap
//! is used up is renumbered in the same transaction.

use std::collections::HashMap;

use app_server_protocol::thread_section::{
    PINNED_SECTION_ID, PINNED_SECTION_NAME, ThreadSection, ThreadSectionAppearance,
};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::principal::Principal;
use crate::store::StoreError;
use crate::store::index::Store;

/// The gap between the positions of consecutive threads of a section.
pub(super) const POSITION_STEP: i64 = 1_000_000;

/// The most sections a principal may create.
pub const MAX_SECTIONS: usize = 1_000;

/// The longest section name, in bytes, after trimming.
pub const MAX_SECTION_NAME_BYTES: usize = 256;

/// The longest appearance `color` or `icon`, in bytes.
pub const MAX_APPEARANCE_FIELD_BYTES: usize = 256;

/// Why a section operation was refused. The messages are the ones clients see.
#[derive(Debug, thiserror::Error)]
pub enum SectionError {
    /// The name is empty once trimmed.
    #[error("section name must not be empty")]
    EmptyName,
    /// The name is longer than [`MAX_SECTION_NAME_BYTES`].
    #[error("section name must be at most {MAX_SECTION_NAME_BYTES} bytes")]
    NameTooLong,
    /// An appearance field is longer than [`MAX_APPEARANCE_FIELD_BYTES`].
    #[error("section appearance fields must be at most {MAX_APPEARANCE_FIELD_BYTES} bytes")]
    AppearanceTooLong,
    /// The principal has [`MAX_SECTIONS`] sections already.
    #[error("at most {MAX_SECTIONS} sections may be created")]
    TooMany,
    /// `threadSection/update` or `threadSection/delete` named no section of the caller.
    #[error("thread section not found: {0}")]
    NotFound(String),
    /// `thread/section/move` named no section of the caller.
    #[error("section {0} does not exist")]
    MoveTargetMissing(String),
    /// The built-in section cannot be renamed.
    #[error("the built-in pinned section cannot be renamed")]
    PinnedRename,
    /// The built-in section cannot be deleted.
    #[error("the built-in pinned section cannot be deleted")]
    PinnedDelete,
    /// `beforeThreadId` is the moved thread itself.
    #[error("thread {0} cannot be moved before itself")]
    BeforeItself(String),
    /// `beforeThreadId` is not in the destination section.
    #[error("before thread {thread} is not in section {section}")]
    BeforeElsewhere {
        /// The thread named by `beforeThreadId`.
        thread: String,
        /// The destination section.
        section: String,
    },
    /// The index failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for SectionError {
    fn from(error: rusqlite::Error) -> Self {
        SectionError::Store(StoreError::Index(error))
    }
}

/// A thread's section and when it entered it (Unix seconds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SectionPlace {
    /// The section.
    pub section: ThreadSection,
    /// When the thread entered it.
    pub entered_at: i64,
}

/// The built-in section.
fn pinned() -> ThreadSection {
    ThreadSection {
        id: PINNED_SECTION_ID.to_owned(),
        name: PINNED_SECTION_NAME.to_owned(),
        appearance: None,
    }
}

/// The trimmed name, refused when empty or too long.
fn checked_name(name: &str) -> Result<String, SectionError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(SectionError::EmptyName);
    }
    if name.len() > MAX_SECTION_NAME_BYTES {
        return Err(SectionError::NameTooLong);
    }
    Ok(name.to_owned())
}

/// The appearance as stored, refused when a field is too long.
fn appearance_json(
    appearance: Option<&ThreadSectionAppearance>,
) -> Result<Option<String>, SectionError> {
    let Some(appearance) = appearance else {
        return Ok(None);
    };
    let too_long = |field: &Option<String>| {
        field
            .as_ref()
            .is_some_and(|value| value.len() > MAX_APPEARANCE_FIELD_BYTES)
    };
    if too_long(&appearance.color) || too_long(&appearance.icon) {
        return Err(SectionError::AppearanceTooLong);
    }
    Ok(Some(serde_json::to_string(appearance).map_err(
        |error| StoreError::TaskFailed(format!("section appearance: {error}")),
    )?))
}

/// Decodes a stored appearance; a damaged one reads as none.
fn appearance_from(json: Option<String>) -> Option<ThreadSectionAppearance> {
    json.and_then(|json| serde_json::from_str(&json).ok())
}

/// The caller's section `id`, the built-in one included.
fn section_of_owner(
    connection: &Connection,
    owner: &Principal,
    id: &str,
) -> Result<Option<ThreadSection>, rusqlite::Error> {
    if id == PINNED_SECTION_ID {
        return Ok(Some(pinned()));
    }
    connection
        .prepare_cached("SELECT name, appearance_json FROM sections WHERE id = ?1 AND owner = ?2")?
        .query_row(params![id, owner.name()], |row| {
            Ok(ThreadSection {
                id: id.to_owned(),
                name: row.get(0)?,
                appearance: appearance_from(row.get(1)?),
            })
        })
        .optional()
}

impl Store {
    /// Creates a section of `owner` with a new UUIDv7.
    pub fn create_section(
        &self,
        owner: &Principal,
        name: &str,
        appearance: Option<&ThreadSectionAppearance>,
    ) -> Result<ThreadSection, SectionError> {
        let name = checked_name(name)?;
        let stored_appearance = appearance_json(appearance)?;
        let mut connection = self.connection()?;
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let count: i64 = transaction.query_row(
            "SELECT count(*) FROM sections WHERE owner = ?1",
            [owner.name()],
            |row| row.get(0),
        )?;
        if usize::try_from(count).unwrap_or(usize::MAX) >= MAX_SECTIONS {
            return Err(SectionError::TooMany);
        }
        let id = uuid::Uuid::now_v7().to_string();
        transaction.execute(
            "INSERT INTO sections (id, owner, name, appearance_json) VALUES (?1, ?2, ?3, ?4)",
            params![id, owner.name(), name, stored_appearance],
        )?;
        transaction.commit()?;
        Ok(ThreadSection {
            id,
            name,
            appearance: appearance.cloned(),
        })
    }

    /// One page of `owner`'s sections: the built-in one first, then by id (creation order),
    /// after `cursor` (the last id of the previous page). Returns the page and the next cursor.
    pub fn list_sections(
        &self,
        owner: &Principal,
        cursor: Option<&str>,
        limit: Option<usize>,
    ) -> Result<(Vec<ThreadSection>, Option<String>), SectionError> {
        let mut sections = Vec::new();
        if cursor.is_none() {
            sections.push(pinned());
        }
        let after = cursor.unwrap_or(PINNED_SECTION_ID);
        let connection = self.connection()?;
        let mut statement = connection.prepare_cached(
            "SELECT id, name, appearance_json FROM sections
             WHERE owner = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
        )?;
        let wanted = limit.map_or(i64::MAX, |limit| {
            i64::try_from(limit.saturating_add(1)).unwrap_or(i64::MAX)
        });
        let rows = statement.query_map(params![owner.name(), after, wanted], |row| {
            Ok(ThreadSection {
                id: row.get(0)?,
                name: row.get(1)?,
                appearance: appearance_from(row.get(2)?),
            })
        })?;
        for row in rows {
            sections.push(row?);
        }
        let mut next_cursor = None;
        if let Some(limit) = limit
            && sections.len() > limit
        {
            sections.truncate(limit);
            next_cursor = sections.last().map(|section| section.id.clone());
        }
        Ok((sections, next_cursor))
    }

    /// Renames `owner`'s section `id`; `appearance` `None` keeps it, `Some(None)` removes it.
    pub fn update_section(
        &self,
        owner: &Principal,
        id: &str,
        name: &str,
        appearance: Option<Option<&ThreadSectionAppearance>>,
    ) -> Result<ThreadSection, SectionError> {
        if id == PINNED_SECTION_ID {
            return Err(SectionError::PinnedRename);
        }
        let name = checked_name(name)?;
        let mut connection = self.connection()?;
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some(existing) = section_of_owner(&transaction, owner, id)? else {
            return Err(SectionError::NotFound(id.to_owned()));
        };
        let appearance = match appearance {
            None => existing.appearance,
            Some(replacement) => replacement.cloned(),
        };
        transaction.execute(
            "UPDATE sections SET name = ?1, appearance_json = ?2 WHERE id = ?3 AND owner = ?4",
            params![
                name,
                appearance_json(appearance.as_ref())?,
                id,
                owner.name()
            ],
        )?;
        transaction.commit()?;
        Ok(ThreadSection {
            id: id.to_owned(),
            name,
            appearance,
        })
    }

    /// Deletes `owner`'s section `id`; its threads belong to no section afterwards.
    pub fn delete_section(&self, owner: &Principal, id: &str) -> Result<(), SectionError> {
        if id == PINNED_SECTION_ID {
            return Err(SectionError::PinnedDelete);
        }
        let mut connection = self.connection()?;
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let removed = transaction.execute(
            "DELETE FROM sections WHERE id = ?1 AND owner = ?2",
            params![id, owner.name()],
        )?;
        if removed == 0 {
            return Err(SectionError::NotFound(id.to_owned()));
        }
        transaction.execute("DELETE FROM thread_sections WHERE section_id = ?1", [id])?;
        transaction.commit()?;
        Ok(())
    }

    /// Moves thread `thread_id` (whose owner the caller has checked to be `owner`) into
    /// `owner`'s section `section_id`, last or just before `before`, or out of its section
    /// (`None`). `now` (Unix seconds) becomes its entry time when it changes section.
    pub fn move_to_section(
        &self,
        owner: &Principal,
        thread_id: &str,
        section_id: Option<&str>,
        before: Option<&str>,
        now: i64,
    ) -> Result<(), SectionError> {
        let mut connection = self.connection()?;
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let Some(section_id) = section_id else {
            transaction.execute(
                "DELETE FROM thread_sections WHERE thread_id = ?1",
                [thread_id],
            )?;
            transaction.commit()?;
            return Ok(());
        };
        if section_of_owner(&transaction, owner, section_id)?.is_none() {
            return Err(SectionError::MoveTargetMissing(section_id.to_owned()));
        }
        if before == Some(thread_id) {
            return Err(SectionError::BeforeItself(thread_id.to_owned()));
        }
        let current: Option<(String, i64)> = transaction
            .query_row(
                "SELECT section_id, entered_at FROM thread_sections WHERE thread_id = ?1",
                [thread_id],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        let entered_at = match current {
            Some((current, entered_at)) if current == section_id => entered_at,
            _ => now,
        };
        // The thread leaves its old place first, so that it is never its own neighbour.
        transaction.execute(
            "DELETE FROM thread_sections WHERE thread_id = ?1",
            [thread_id],
        )?;
        let position = match before {
            None => {
                let last: Option<i64> = transaction.query_row(
                    "SELECT max(position) FROM thread_sections WHERE section_id = ?1",
                    [section_id],
                    |row| row.get(0),
                )?;
                last.unwrap_or(0).saturating_add(POSITION_STEP)
            }
            Some(before) => position_before(&transaction, owner, section_id, before)?,
        };
        transaction.execute(
            "INSERT INTO thread_sections (thread_id, section_id, position, entered_at)
             VALUES (?1, ?2, ?3, ?4)",
            params![thread_id, section_id, position, entered_at],
        )?;
        transaction.commit()?;
        Ok(())
    }

    /// The section of each of `thread_ids` that is in one, with its entry time.
    pub fn sections_of(
        &self,
        owner: &Principal,
        thread_ids: &[&str],
    ) -> Result<HashMap<String, SectionPlace>, StoreError> {
        let mut places = HashMap::new();
        if thread_ids.is_empty() {
            return Ok(places);
        }
        let connection = self.connection()?;
        let mut statement = connection.prepare_cached(
            "SELECT m.section_id, m.entered_at, s.name, s.appearance_json
             FROM thread_sections m LEFT JOIN sections s
                 ON s.id = m.section_id AND s.owner = ?2
             WHERE m.thread_id = ?1",
        )?;
        for thread_id in thread_ids {
            let row = statement
                .query_row(params![thread_id, owner.name()], |row| {
                    let id: String = row.get(0)?;
                    let entered_at: i64 = row.get(1)?;
                    let name: Option<String> = row.get(2)?;
                    let appearance: Option<String> = row.get(3)?;
                    Ok((id, entered_at, name, appearance))
                })
                .optional()?;
            let Some((id, entered_at, name, appearance)) = row else {
                continue;
            };
            let section = if id == PINNED_SECTION_ID {
                pinned()
            } else {
                // A row of another principal's section cannot be made; skip it if it were.
                let Some(name) = name else { continue };
                ThreadSection {
                    id,
                    name,
                    appearance: appearance_from(appearance),
                }
            };
            places.insert(
                (*thread_id).to_owned(),
                SectionPlace {
                    section,
                    entered_at,
                },
            );
        }
        Ok(places)
    }
}

/// Removes thread `id`'s place in its section, if it has one (the thread is being deleted).
pub(super) fn forget_thread(connection: &Connection, id: &str) -> Result<(), rusqlite::Error> {
    connection
        .prepare_cached("DELETE FROM thread_sections WHERE thread_id = ?1")?
        .execute([id])?;
    Ok(())
}

/// The position just before `owner`'s thread `before` of section `section_id`, renumbering
/// the section when there is no room left between `before` and the thread ahead of it. The
/// owner matters for the built-in section, whose id every principal shares: another
/// principal's thread there is "not in the section".
fn position_before(
    connection: &Connection,
    owner: &Principal,
    section_id: &str,
    before: &str,
) -> Result<i64, SectionError> {
    let elsewhere = || SectionError::BeforeElsewhere {
        thread: before.to_owned(),
        section: section_id.to_owned(),
    };
    let target = |connection: &Connection| -> Result<Option<i64>, rusqlite::Error> {
        connection
            .query_row(
                "SELECT m.position FROM thread_sections m JOIN threads t ON t.id = m.thread_id
                 WHERE m.thread_id = ?1 AND m.section_id = ?2 AND t.owner = ?3",
                params![before, section_id, owner.name()],
                |row| row.get(0),
            )
            .optional()
    };
    let ahead = |connection: &Connection, position: i64| -> Result<i64, rusqlite::Error> {
        let ahead: Option<i64> = connection.query_row(
            "SELECT max(position) FROM thread_sections WHERE section_id = ?1 AND position < ?2",
            params![section_id, position],
            |row| row.get(0),
        )?;
        Ok(ahead.unwrap_or(0))
    };
    let Some(mut position) = target(connection)? else {
        return Err(elsewhere());
    };
    let mut previous = ahead(connection, position)?;
    if position - previous < 2 {
        renumber(connection, section_id)?;
        position = target(connection)?.ok_or_else(elsewhere)?;
        previous = ahead(connection, position)?;
    }
    Ok(previous + (position - previous) / 2)
}

/// Spreads the positions of section `section_id` out again, [`POSITION_STEP`] apart, in
/// their order.
fn renumber(connection: &Connection, section_id: &str) -> Result<(), rusqlite::Error> {
    let threads: Vec<String> = connection
        .prepare_cached(
            "SELECT thread_id FROM thread_sections WHERE section_id = ?1
             ORDER BY position, thread_id",
        )?
        .query_map([section_id], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    let mut update = connection
        .prepare_cached("UPDATE thread_sections SET position = ?1 WHERE thread_id = ?2")?;
    let mut position = 0_i64;
    for thread_id in threads {
        position = position.saturating_add(POSITION_STEP);
        update.execute(params![position, thread_id])?;
    }
    Ok(())
}
