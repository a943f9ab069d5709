//! The SQLite thread index and the [`Store`] facade.
//!
//! The rollouts are the source of truth. `state.sqlite` holds one row per thread: the columns
//! `thread/list` filters and sorts on, plus the whole [`ThreadMeta`] as JSON so that listed rows
//! convert back without opening their rollouts, and the thread's owner, which every list
//! filters on. How the database is opened, migrated or rebuilt from the rollouts, under the
//! home's lock, is in `schema.rs`.
//!
//! Several processes may share a home and start together. Each one opens the index under an
//! exclusive `flock` on `state.sqlite.lock` (see `schema.rs`). Outside that lock the processes
//! share the database through SQLite's own locking, with a busy timeout on every connection.

#[cfg(test)]
#[path = "concurrency_tests.rs"]
mod concurrency_tests;
#[path = "cursor.rs"]
mod cursor;
#[cfg(test)]
#[path = "list_tests.rs"]
mod list_tests;
#[cfg(test)]
#[path = "owner_tests.rs"]
mod owner_tests;
#[cfg(test)]
#[path = "read_state_tests.rs"]
mod read_state_tests;
#[cfg(test)]
#[path = "sections_tests.rs"]
mod sections_tests;
#[cfg(test)]
#[path = "tests.rs"]
mod tests;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use app_server_protocol::policy::SortDirection;
use app_server_protocol::thread_requests::ThreadSortKey;
use rusqlite::types::{Type, Value};
use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params, params_from_iter};

use crate::principal::Principal;
use crate::redact::Redactor;
use crate::store::appender::Appender;
use crate::store::rollout::{self, RolloutSink, RolloutWriter, io_error};
use crate::store::{ListPage, ListQuery, RolloutMirror, StoreError, StoredThread, ThreadMeta};

/// Thread storage: rollouts plus the index.
///
/// Every method is synchronous and blocking (index lookups, one file read or move): call
/// them through [`Store::blocking`] from async code. The connection sits behind a mutex so
/// that the store can be shared between tasks, and is opened (or rebuilt from the rollouts)
/// by the first method that needs it, so that a server answers `initialize` without it.
///
/// A store owns its rollout appender thread (and mirror): a server opens one and shares it
/// with every engine it builds, so that one thread writes, fsyncs and orders all its rollout
/// lines.
pub struct Store {
    sessions_dir: PathBuf,
    archived_dir: PathBuf,
    database: PathBuf,
    /// The file `flock`ed while the index is opened, checked, migrated or built.
    lock_file: PathBuf,
    connection: OnceLock<Mutex<Connection>>,
    /// Held while the connection is being opened, so that only one caller opens it.
    opening: Mutex<()>,
    /// Masks secrets in every rollout line written through this store.
    redactor: Redactor,
    /// The appender thread (and mirror) every writer of this store queues its lines on.
    sink: RolloutSink,
}

/// Locks the connection. A panic while it was held cannot leave a half-done change behind
/// (every change is one statement or one transaction), so a poisoned lock is still good.
fn lock(connection: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    connection.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Directory of live rollouts, below the home.
const SESSIONS_DIR: &str = "sessions";
/// Directory of archived rollouts (flat), below the home.
const ARCHIVED_DIR: &str = "archived_sessions";
/// The index database, below the home.
const DATABASE_FILE: &str = "state.sqlite";
/// The lock file of the index, below the home. It is never deleted: a process that deleted it
/// could let a newcomer lock a new file while a third still held the old one.
const LOCK_FILE: &str = "state.sqlite.lock";

impl Store {
    /// Opens the store in `home`, creating `sessions/` and `archived_sessions/`, and opens the
    /// index, rebuilding it from the rollouts when it is missing or unusable.
    pub fn open(home: &Path) -> Result<Store, StoreError> {
        let sessions_dir = home.join(SESSIONS_DIR);
        let archived_dir = home.join(ARCHIVED_DIR);
        for directory in [&sessions_dir, &archived_dir] {
            fs::create_dir_all(directory).map_err(|source| io_error(directory, source))?;
        }
        Ok(Store {
            sessions_dir,
            archived_dir,
            database: home.join(DATABASE_FILE),
            lock_file: home.join(LOCK_FILE),
            connection: OnceLock::new(),
            opening: Mutex::new(()),
            redactor: Redactor::new(),
            sink: RolloutSink {
                appender: Appender::start(),
                mirror: None,
            },
        })
    }

    /// This store with every rollout line it writes from now on also given to `mirror`, and
    /// archived threads forgotten by it (distributed MCP: call it before sharing the store).
    pub fn with_rollout_mirror(mut self, mirror: Box<dyn RolloutMirror>) -> Store {
        self.sink.mirror = Some(Arc::from(mirror));
        self
    }

    /// Where a new thread's rollout goes:
    /// `sessions/YYYY/MM/DD/rollout-YYYY-MM-DDTHH-MM-SS-<id>.jsonl` (UTC, from `created_at`).
    pub fn rollout_path_for(&self, id: &str, created_at: i64) -> PathBuf {
        self.sessions_dir
            .join(rollout::rollout_date_dir(created_at))
            .join(rollout::rollout_file_name(id, created_at))
    }

    /// Creates the rollout at `meta.rollout_path` with its header and adds the index row.
    ///
    /// Only a rollout that cannot be created is an error. Once it exists it holds the thread,
    /// so a failed index write is logged and the writer returned all the same: dropping the
    /// writer would leave a header without the turns the caller goes on to record. The row is
    /// written again when the turn ends ([`Store::update_meta`]) and by [`Store::load`].
    pub fn create(&self, meta: &ThreadMeta) -> Result<RolloutWriter, StoreError> {
        // The index is opened (built, on a new home) before the rollout exists, so that a
        // build never meets this rollout while its header is still queued for the appender.
        let opened = self.connection().map(drop);
        let writer = RolloutWriter::create(meta, &self.redactor, &self.sink)?;
        let indexed = opened.and_then(|()| write_row(&*self.connection()?, meta));
        if let Err(error) = indexed {
            tracing::error!(
                thread_id = %meta.id,
                %error,
                "cannot index a new thread; its rollout is kept"
            );
        }
        Ok(writer)
    }

    /// The masking applied to every rollout line this store writes: register the secrets the
    /// server knows (stored API keys, provider keys, listener tokens) with
    /// [`Redactor::add_secret`].
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Opens the existing, non-archived rollout of thread `id` for appending.
    pub fn append_writer(&self, id: &str) -> Result<RolloutWriter, StoreError> {
        let Some(path) = self.locate(id, false)? else {
            return Err(StoreError::NotFound(id.to_owned()));
        };
        RolloutWriter::open_append(&path, &self.redactor, &self.sink)
    }

    /// Reads thread `id` back from its rollout (live or archived).
    pub fn load(&self, id: &str) -> Result<StoredThread, StoreError> {
        if let Some((path, archived)) = self.indexed_location(id)?
            && path.is_file()
        {
            // Lines still queued for this file must be in it before it is read.
            self.sink.appender.barrier();
            return rollout::read_rollout(&path, archived);
        }
        let found = match rollout::find_rollout(&self.sessions_dir, true, id)? {
            Some(path) => Some((path, false)),
            None => rollout::find_rollout(&self.archived_dir, false, id)?.map(|path| (path, true)),
        };
        let Some((path, archived)) = found else {
            return Err(StoreError::NotFound(id.to_owned()));
        };
        self.sink.appender.barrier();
        let thread = rollout::read_rollout(&path, archived)?;
        // The index lost track of this rollout (no row, or a stale path): record where it is.
        write_row(&*self.connection()?, &thread.meta)?;
        Ok(thread)
    }

    /// Waits until every rollout line queued so far is written to its file (not fsynced).
    /// Blocking: call it from a blocking thread.
    pub fn wait_for_appends(&self) {
        self.sink.appender.barrier();
    }

    /// The indexed metadata of thread `id`, if it has a row.
    pub fn find(&self, id: &str) -> Result<Option<ThreadMeta>, StoreError> {
        let connection = self.connection()?;
        let mut statement =
            connection.prepare_cached("SELECT meta_json FROM threads WHERE id = ?1")?;
        let meta = statement
            .query_row([id], |row| meta_from_row(row, 0))
            .optional()?;
        Ok(meta)
    }

    /// The owner of thread `id` (live or archived), if the thread exists: its index row's, or
    /// its rollout's when the index has lost track of it (the row is then written again, as
    /// [`Store::load`] does).
    pub fn owner(&self, id: &str) -> Result<Option<Principal>, StoreError> {
        let indexed: Option<String> = {
            let connection = self.connection()?;
            let mut statement =
                connection.prepare_cached("SELECT owner FROM threads WHERE id = ?1")?;
            statement.query_row([id], |row| row.get(0)).optional()?
        };
        if let Some(owner) = indexed {
            return Ok(Some(Principal::named(&owner)));
        }
        match self.load(id) {
            Ok(thread) => Ok(Some(thread.meta.owner)),
            Err(StoreError::NotFound(_)) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Appends `id`'s new name to the home's `session_index.jsonl`, in Codex's shape, for the
    /// tools that read a Codex home. Blocking.
    pub fn record_thread_name(&self, id: &str, name: &str) -> Result<(), StoreError> {
        let home = self.database.parent().unwrap_or(Path::new("."));
        super::session_index::append(home, id, name, super::rollout::now_ms())
    }

    /// Inserts or updates the index row of `meta.id` (new preview, update time, name or
    /// settings). The rollout's location (`archived`, `rollout_path`) belongs to the store:
    /// an existing row keeps its own, so that a stale copy of the metadata cannot undo an
    /// archive.
    pub fn update_meta(&self, meta: &ThreadMeta) -> Result<(), StoreError> {
        let mut connection = self.connection()?;
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let location = location_of(&transaction, &meta.id)?;
        match location {
            Some((rollout_path, archived))
                if rollout_path != meta.rollout_path || archived != meta.archived =>
            {
                let meta = ThreadMeta {
                    rollout_path,
                    archived,
                    ..meta.clone()
                };
                write_row(&transaction, &meta)?;
            }
            _ => write_row(&transaction, meta)?,
        }
        transaction.commit()?;
        Ok(())
    }

    /// One page of `thread/list`: filtered, sorted by `(sort key, id)`, continuing after the
    /// cursor.
    pub fn list(&self, query: &ListQuery) -> Result<ListPage, StoreError> {
        let ListStatement {
            sql,
            values,
            limit,
            key_format,
        } = list_statement(query)?;
        let connection = self.connection()?;
        let mut statement = connection.prepare_cached(&sql)?;
        let mut rows = statement.query(params_from_iter(values))?;
        let mut threads: Vec<ThreadMeta> = Vec::new();
        let mut last_key = 0;
        let mut next_cursor = None;
        while let Some(row) = rows.next()? {
            if limit.is_some_and(|limit| threads.len() >= limit) {
                // There is a row after the page, so the page's last thread starts the next.
                next_cursor = threads
                    .last()
                    .map(|meta| cursor::encode(key_format, last_key, &meta.id));
                break;
            }
            threads.push(meta_from_row(row, 1)?);
            last_key = row.get(0)?;
        }
        Ok(ListPage {
            threads,
            next_cursor,
        })
    }

    /// Moves the rollout of thread `id` from `sessions/…` to `archived_sessions/` and marks
    /// the row archived. [`StoreError::NotFound`] when the thread has no live rollout.
    pub fn archive(&self, id: &str) -> Result<ThreadMeta, StoreError> {
        let Some(source) = self.locate(id, false)? else {
            return Err(StoreError::NotFound(id.to_owned()));
        };
        let Some(file_name) = source.file_name() else {
            return Err(StoreError::NotFound(id.to_owned()));
        };
        let target = self.archived_dir.join(file_name);
        let meta = self.meta_for_move(id, &source, false)?;
        move_rollout(&source, &target)?;
        let meta = ThreadMeta {
            archived: true,
            rollout_path: target,
            ..meta
        };
        write_row(&*self.connection()?, &meta)?;
        if let Some(mirror) = &self.sink.mirror {
            mirror.forget(id);
        }
        Ok(meta)
    }

    /// Moves the rollout of thread `id` from `archived_sessions/` back to its dated
    /// `sessions/` path and marks the row live. [`StoreError::NotArchived`] when the thread
    /// has no archived rollout.
    pub fn unarchive(&self, id: &str) -> Result<ThreadMeta, StoreError> {
        let Some(source) = self.locate(id, true)? else {
            return Err(StoreError::NotArchived(id.to_owned()));
        };
        let meta = self.meta_for_move(id, &source, true)?;
        let target = self.rollout_path_for(id, meta.created_at);
        move_rollout(&source, &target)?;
        let meta = ThreadMeta {
            archived: false,
            rollout_path: target,
            ..meta
        };
        write_row(&*self.connection()?, &meta)?;
        Ok(meta)
    }

    /// Deletes thread `id` for good: its rollout file (live or archived) and then its index
    /// row, its place in a section and its read state, and tells the rollout mirror
    /// (distributed MCP) that the thread is gone. [`StoreError::NotFound`] when the thread has
    /// neither a rollout nor a row. The file goes first: a failure in between leaves a row without a file, which a second delete
    /// removes, never a file without a row that the next rebuild would bring back. Blocking.
    pub fn delete(&self, id: &str) -> Result<(), StoreError> {
        // Lines still queued for the file go into it before it is removed, not after.
        self.sink.appender.barrier();
        // The indexed file when it is there; otherwise whatever the directory scans find.
        let paths = match self.indexed_location(id)? {
            Some((path, _)) if path.is_file() => vec![path],
            _ => [self.locate(id, false)?, self.locate(id, true)?]
                .into_iter()
                .flatten()
                .collect(),
        };
        let mut found = false;
        for path in paths {
            match fs::remove_file(&path) {
                Ok(()) => found = true,
                Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                Err(error) => return Err(io_error(&path, error)),
            }
        }
        let removed = {
            let connection = self.connection()?;
            super::sections::forget_thread(&connection, id)?;
            super::read_state::forget_thread(&connection, id)?;
            connection
                .prepare_cached("DELETE FROM threads WHERE id = ?1")?
                .execute([id])?
        };
        if !found && removed == 0 {
            return Err(StoreError::NotFound(id.to_owned()));
        }
        if let Some(mirror) = &self.sink.mirror {
            mirror.delete(id);
        }
        Ok(())
    }

    /// The connection. A panic while it was held cannot leave a half-done change behind
    /// (every change is one statement or one transaction), so a poisoned lock is still good.
    pub(super) fn connection(&self) -> Result<MutexGuard<'_, Connection>, StoreError> {
        if let Some(connection) = self.connection.get() {
            return Ok(lock(connection));
        }
        let _opening = self.opening.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(connection) = self.connection.get() {
            return Ok(lock(connection));
        }
        // A rebuild reads every rollout: this store's queued lines are in them first.
        self.sink.appender.barrier();
        let opened = super::schema::open_index(
            &self.database,
            &self.lock_file,
            &self.sessions_dir,
            &self.archived_dir,
        )?;
        Ok(lock(self.connection.get_or_init(|| Mutex::new(opened))))
    }

    /// The rollout path and archived flag recorded for thread `id`.
    fn indexed_location(&self, id: &str) -> Result<Option<(PathBuf, bool)>, StoreError> {
        location_of(&*self.connection()?, id)
    }

    /// The rollout of thread `id` in `archived_sessions/` (`archived`) or `sessions/`: the
    /// indexed path when the file is there, otherwise whatever a directory scan finds.
    fn locate(&self, id: &str, archived: bool) -> Result<Option<PathBuf>, StoreError> {
        if let Some((path, indexed_archived)) = self.indexed_location(id)?
            && indexed_archived == archived
            && path.is_file()
        {
            return Ok(Some(path));
        }
        if archived {
            rollout::find_rollout(&self.archived_dir, false, id)
        } else {
            rollout::find_rollout(&self.sessions_dir, true, id)
        }
    }

    /// The metadata of a thread about to move: its index row, or its rollout when the index
    /// has no row.
    fn meta_for_move(
        &self,
        id: &str,
        path: &Path,
        archived: bool,
    ) -> Result<ThreadMeta, StoreError> {
        match self.find(id)? {
            Some(meta) => Ok(meta),
            None => {
                self.sink.appender.barrier();
                Ok(rollout::read_rollout(path, archived)?.meta)
            }
        }
    }

    /// Adds index rows for many threads in one transaction, as a rebuild does; for tests
    /// that need thousands of threads without thousands of files.
    #[cfg(test)]
    fn insert_rows(&self, metas: &[ThreadMeta]) -> Result<(), StoreError> {
        let mut connection = self.connection()?;
        let transaction = connection.transaction()?;
        for meta in metas {
            write_row(&transaction, meta)?;
        }
        transaction.commit()?;
        Ok(())
    }
}

/// Inserts or replaces the row of `meta.id`.
pub(super) fn write_row(connection: &Connection, meta: &ThreadMeta) -> Result<(), StoreError> {
    let meta_json =
        serde_json::to_string(meta).map_err(|error| io_error(&meta.rollout_path, error.into()))?;
    let mut statement = connection.prepare_cached(
        "INSERT INTO threads (id, rollout_path, created_at, updated_at_ms, cwd, model_provider,
             source, originator, preview, name, archived, meta_json, owner)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
         ON CONFLICT (id) DO UPDATE SET rollout_path = excluded.rollout_path,
             created_at = excluded.created_at, updated_at_ms = excluded.updated_at_ms,
             cwd = excluded.cwd, model_provider = excluded.model_provider,
             source = excluded.source, originator = excluded.originator,
             preview = excluded.preview, name = excluded.name, archived = excluded.archived,
             meta_json = excluded.meta_json, owner = excluded.owner",
    )?;
    statement.execute(params![
        meta.id,
        meta.rollout_path.to_string_lossy(),
        meta.created_at,
        meta.updated_at_ms,
        meta.cwd,
        meta.model_provider,
        meta.source,
        meta.originator,
        meta.preview,
        meta.name,
        meta.archived,
        meta_json,
        meta.owner.name(),
    ])?;
    Ok(())
}

/// The rollout path and archived flag in the row of thread `id`.
fn location_of(connection: &Connection, id: &str) -> Result<Option<(PathBuf, bool)>, StoreError> {
    let mut statement =
        connection.prepare_cached("SELECT rollout_path, archived FROM threads WHERE id = ?1")?;
    let location = statement
        .query_row([id], |row| {
            Ok((PathBuf::from(row.get::<_, String>(0)?), row.get(1)?))
        })
        .optional()?;
    Ok(location)
}

/// Decodes the `meta_json` column at `index`.
fn meta_from_row(row: &Row<'_>, index: usize) -> Result<ThreadMeta, rusqlite::Error> {
    let text = row.get_ref(index)?.as_str()?;
    serde_json::from_str(text).map_err(|error| {
        rusqlite::Error::FromSqlConversionFailure(index, Type::Text, Box::new(error))
    })
}

/// A `thread/list` query as SQL.
struct ListStatement {
    /// `SELECT <sort key>, meta_json …`.
    sql: String,
    /// The values of the `?` placeholders, in order.
    values: Vec<Value>,
    /// Page size (at least 1); the SQL asks for one row more.
    limit: Option<usize>,
    /// How the sort key is written in the cursors.
    key_format: cursor::KeyFormat,
}

/// Builds the SQL of a `thread/list` query: filters, keyset pagination after the cursor on
/// `(sort key, id)`, and the order of the matching index, so that SQLite walks the index and
/// stops after the page.
fn list_statement(query: &ListQuery) -> Result<ListStatement, StoreError> {
    let in_section = match &query.section {
        Some(Some(section)) => Some(section),
        _ => None,
    };
    let (sort_column, key_format) = match (query.sort_key, in_section) {
        (ThreadSortKey::CreatedAt, _) => ("created_at", cursor::KeyFormat::Seconds),
        (ThreadSortKey::SectionPosition, Some(_)) => ("m.position", cursor::KeyFormat::Position),
        // Tandem's recency time is the update time; section positions need a section.
        (
            ThreadSortKey::UpdatedAt | ThreadSortKey::RecencyAt | ThreadSortKey::SectionPosition,
            _,
        ) => ("updated_at_ms", cursor::KeyFormat::Millis),
    };
    // A section lists first to last whichever the direction, as the reference does.
    let direction = if key_format == cursor::KeyFormat::Position {
        SortDirection::Asc
    } else {
        query.sort_direction
    };
    let (order, after) = match direction {
        SortDirection::Desc => ("DESC", "<"),
        SortDirection::Asc => ("ASC", ">"),
    };
    let mut values = Vec::new();
    let mut sql = match in_section {
        Some(section) => {
            values.push(Value::Text(section.clone()));
            format!(
                "SELECT {sort_column}, meta_json FROM threads
                 JOIN thread_sections m ON m.thread_id = threads.id AND m.section_id = ?
                 WHERE owner = ? AND archived = ?"
            )
        }
        None => {
            format!("SELECT {sort_column}, meta_json FROM threads WHERE owner = ? AND archived = ?")
        }
    };
    values.push(Value::Text(query.owner.name().to_owned()));
    values.push(Value::Integer(i64::from(query.archived)));
    if query.section == Some(None) {
        sql.push_str(" AND id NOT IN (SELECT thread_id FROM thread_sections)");
    }
    push_membership(
        &mut sql,
        &mut values,
        "model_provider IN",
        &query.model_providers,
    );
    push_membership(&mut sql, &mut values, "source IN", &query.sources);
    push_membership(&mut sql, &mut values, "originator IN", &query.originators);
    push_membership(&mut sql, &mut values, "cwd IN", &query.cwds);
    push_membership(&mut sql, &mut values, "id NOT IN", &query.excluded_ids);
    if let Some(term) = &query.search_term {
        // `instr` is case-sensitive; `LIKE` would not be.
        sql.push_str(" AND (instr(name, ?) > 0 OR instr(preview, ?) > 0)");
        values.push(Value::Text(term.clone()));
        values.push(Value::Text(term.clone()));
    }
    if let Some(cursor) = &query.cursor {
        let position = cursor::decode(key_format, cursor)?;
        sql.push_str(&format!(" AND ({sort_column}, id) {after} (?, ?)"));
        values.push(Value::Integer(position.key));
        values.push(Value::Text(position.id));
    }
    sql.push_str(&format!(" ORDER BY {sort_column} {order}, id {order}"));
    // The caller clamps the limit to at least 1; do it here too rather than return an empty
    // page with a cursor.
    let limit = query.limit.map(|limit| limit.max(1));
    if let Some(limit) = limit {
        // One row more than the page tells whether there is a next page.
        sql.push_str(" LIMIT ?");
        values.push(Value::Integer(
            i64::try_from(limit.saturating_add(1)).unwrap_or(i64::MAX),
        ));
    }
    Ok(ListStatement {
        sql,
        values,
        limit,
        key_format,
    })
}

/// Appends ` AND <column_and_operator> (?, ?, …)` for a non-empty list.
fn push_membership(
    sql: &mut String,
    values: &mut Vec<Value>,
    column_and_operator: &str,
    members: &[String],
) {
    if members.is_empty() {
        return;
    }
    let placeholders = vec!["?"; members.len()].join(", ");
    sql.push_str(&format!(" AND {column_and_operator} ({placeholders})"));
    values.extend(members.iter().cloned().map(Value::Text));
}

/// Renames a rollout to `target`, creating its directory; refuses to overwrite a file.
fn move_rollout(source: &Path, target: &Path) -> Result<(), StoreError> {
    if target
        .try_exists()
        .map_err(|source| io_error(target, source))?
    {
        return Err(io_error(target, io::ErrorKind::AlreadyExists.into()));
    }
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent).map_err(|source| io_error(parent, source))?;
    }
    fs::rename(source, target).map_err(|source_error| io_error(source, source_error))
}
