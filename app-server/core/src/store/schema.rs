//! The thread index's schema and how a database becomes usable: opened and checked, migrated
//! from an older version in place, or moved aside and rebuilt from the rollouts, all under
//! the home's exclusive lock ([`IndexLock`]), so that processes sharing a home never build,
//! migrate or discard a database another one is working on.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, TransactionBehavior};

use crate::store::StoreError;
use crate::store::index::write_row;
use crate::store::read_state::READ_STATES_SCHEMA;
use crate::store::rollout::{self, io_error};

/// Where an unusable database is moved before the rebuild, for post-mortems.
const DISCARDED_DATABASE_FILE: &str = "state.sqlite.corrupt";

/// Version of [`SCHEMA`], kept in `PRAGMA user_version`. Bump it whenever the schema or the
/// serialized form of [`ThreadMeta`] changes: a database with another version is rebuilt,
/// except versions 1 to 3, which [`MIGRATE_1_TO_2`], [`MIGRATE_2_TO_3`] and [`MIGRATE_3_TO_4`]
/// bring up to date in place.
pub(super) const SCHEMA_VERSION: i64 = 4;

/// The thread table (the section tables are [`SECTIONS_SCHEMA`]). The two indexes serve
/// `thread/list`'s filters on `owner` and `archived` and its keyset pagination on
/// `(sort key, id)` in either direction. `IF NOT EXISTS` keeps a build idempotent where the home cannot be locked (see [`IndexLock::acquire`]). `owner` is
/// the last column, where [`MIGRATE_1_TO_2`] adds it, so that both have one layout; its
/// default is the local user's name ([`crate::principal::LOCAL_USER`]).
pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS threads (
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
    meta_json TEXT NOT NULL,
    owner TEXT NOT NULL DEFAULT 'local'
);
CREATE INDEX IF NOT EXISTS threads_owner_archived_created
    ON threads (owner, archived, created_at, id);
CREATE INDEX IF NOT EXISTS threads_owner_archived_updated
    ON threads (owner, archived, updated_at_ms, id);
";

/// The tables of thread sections (`threadSection/*`, `thread/section/move`): the sections a
/// principal created (the built-in "Pinned" one has no row) and the section and position of
/// each thread in one. Unlike the thread rows, these exist nowhere else: a rebuild from the
/// rollouts starts them empty.
const SECTIONS_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS sections (
    id TEXT PRIMARY KEY NOT NULL,
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    appearance_json TEXT
);
CREATE INDEX IF NOT EXISTS sections_owner ON sections (owner, id);
CREATE TABLE IF NOT EXISTS thread_sections (
    thread_id TEXT PRIMARY KEY NOT NULL,
    section_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    entered_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS thread_sections_position
    ON thread_sections (section_id, position, thread_id);
";

/// Version 2 → 3: the section tables ([`SECTIONS_SCHEMA`]), empty.
const MIGRATE_2_TO_3: &str = SECTIONS_SCHEMA;

/// Version 3 → 4: the read-state table ([`READ_STATES_SCHEMA`]), empty: every thread is read.
const MIGRATE_3_TO_4: &str = READ_STATES_SCHEMA;

/// Version 1 → 2: threads gain their owner. Every row of a version-1 index was written before
/// owners were recorded, so each belongs to the local user, the column's default; the list
/// indexes lead with the owner.
const MIGRATE_1_TO_2: &str = "
ALTER TABLE threads ADD COLUMN owner TEXT NOT NULL DEFAULT 'local';
DROP INDEX IF EXISTS threads_archived_created;
DROP INDEX IF EXISTS threads_archived_updated;
CREATE INDEX IF NOT EXISTS threads_owner_archived_created
    ON threads (owner, archived, created_at, id);
CREATE INDEX IF NOT EXISTS threads_owner_archived_updated
    ON threads (owner, archived, updated_at_ms, id);
";

/// Opens the index at `database`, rebuilding it from the rollouts of `sessions_dir` and
/// `archived_dir` when it is missing or unusable, and migrating an older index in place.
/// The whole decision runs under the home's [`IndexLock`] on `lock_file`, so that no other
/// process builds, moves, migrates or deletes the database meanwhile.
pub(super) fn open_index(
    database: &Path,
    lock_file: &Path,
    sessions_dir: &Path,
    archived_dir: &Path,
) -> Result<Connection, StoreError> {
    let _lock = IndexLock::acquire(lock_file)?;
    let connection = match open_existing(database)? {
        Ok(connection) => connection,
        Err(reason) => {
            let (connection, threads) = rebuild(database, sessions_dir, archived_dir)?;
            match reason {
                // Every new home starts this way.
                RebuildReason::Missing if threads == 0 => {
                    tracing::debug!(path = %database.display(), "created thread index");
                }
                // The database was deleted by hand; nothing was wrong with it.
                RebuildReason::Missing => tracing::info!(
                    path = %database.display(),
                    threads,
                    "built thread index from the rollouts: {reason}"
                ),
                RebuildReason::Unusable(_) => tracing::warn!(
                    path = %database.display(),
                    threads,
                    "rebuilt thread index from the rollouts: {reason}"
                ),
            }
            connection
        }
    };
    Ok(connection)
}

/// The home's exclusive advisory lock on [`LOCK_FILE`], held while the index is opened,
/// checked or built; released when dropped (the descriptor is closed). `flock` locks belong
/// to the open file, so two stores of one process exclude each other as two processes do,
/// and the kernel drops the lock of a process that dies.
struct IndexLock {
    _file: File,
}

impl IndexLock {
    /// Waits for the lock. Blocking: the index is only opened on the blocking pool. `None`
    /// when the filesystem cannot lock: the index is then opened unlocked, as before the lock
    /// existed, and schema creation stays idempotent.
    fn acquire(path: &Path) -> Result<Option<IndexLock>, StoreError> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|source| io_error(path, source))?;
        loop {
            // SAFETY: flock only reads the descriptor, which `file` keeps open for the call,
            // and touches no memory.
            let result = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
            if result == 0 {
                return Ok(Some(IndexLock { _file: file }));
            }
            let error = io::Error::last_os_error();
            match error.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::ENOLCK | libc::EOPNOTSUPP | libc::ENOSYS) => {
                    tracing::warn!(
                        path = %path.display(),
                        %error,
                        "cannot lock the thread index; opening it without the lock"
                    );
                    return Ok(None);
                }
                _ => return Err(io_error(path, error)),
            }
        }
    }
}

/// Why the index is being rebuilt.
#[derive(Debug)]
enum RebuildReason {
    /// There was no database file.
    Missing,
    /// The database could not be used; the text says why.
    Unusable(String),
}

impl std::fmt::Display for RebuildReason {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RebuildReason::Missing => formatter.write_str("the index database was missing"),
            RebuildReason::Unusable(reason) => write!(formatter, "{reason}"),
        }
    }
}

/// Opens and checks an existing index. The inner `Err` says why it must be rebuilt; an
/// unusable database has been moved aside by then. Call it under the [`IndexLock`]: the
/// database it finds missing or moves aside is then not one another process is building.
fn open_existing(database: &Path) -> Result<Result<Connection, RebuildReason>, StoreError> {
    let exists = database
        .try_exists()
        .map_err(|source| io_error(database, source))?;
    if !exists {
        // A leftover write-ahead log must not be replayed into the new database.
        remove_sidecars(database)?;
        return Ok(Err(RebuildReason::Missing));
    }
    match open_checked(database) {
        Ok(connection) => Ok(Ok(connection)),
        Err(CheckFailure::Unusable(reason)) => {
            discard(database)?;
            Ok(Err(RebuildReason::Unusable(reason)))
        }
        Err(CheckFailure::Failed(error)) => Err(error.into()),
    }
}

/// Why an existing database was not opened.
enum CheckFailure {
    /// Its content is damaged or has another schema version: it is rebuilt. The text says why.
    Unusable(String),
    /// Opening or reading it failed in a way that says nothing about its content (busy,
    /// locked, an I/O error): it is kept, since it may be fine and in use by another process,
    /// and the caller fails; the next request tries again.
    Failed(rusqlite::Error),
}

/// Sorts an error met while checking a database: only damage makes it unusable.
fn check_failure(error: rusqlite::Error) -> CheckFailure {
    match error.sqlite_error_code() {
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
            CheckFailure::Unusable(error.to_string())
        }
        _ => CheckFailure::Failed(error),
    }
}

/// Opens the database and checks its integrity and schema version.
fn open_checked(database: &Path) -> Result<Connection, CheckFailure> {
    let connection = Connection::open(database).map_err(check_failure)?;
    configure(&connection).map_err(check_failure)?;
    let check: String = connection
        .query_row("PRAGMA quick_check", [], |row| row.get(0))
        .map_err(|error| match check_failure(error) {
            CheckFailure::Unusable(reason) => {
                CheckFailure::Unusable(format!("quick_check failed: {reason}"))
            }
            failed => failed,
        })?;
    if check != "ok" {
        return Err(CheckFailure::Unusable(format!(
            "quick_check failed: {check}"
        )));
    }
    let version: i64 = connection
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(check_failure)?;
    if (1..SCHEMA_VERSION).contains(&version) {
        migrate(&connection).map_err(check_failure)?;
        return Ok(connection);
    }
    if version != SCHEMA_VERSION {
        return Err(CheckFailure::Unusable(format!(
            "schema version {version}, expected {SCHEMA_VERSION}"
        )));
    }
    Ok(connection)
}

/// Brings a version-1, 2 or 3 index up to [`SCHEMA_VERSION`] in place
/// ([`MIGRATE_1_TO_2`], then [`MIGRATE_2_TO_3`], then [`MIGRATE_3_TO_4`]). Called under the [`IndexLock`]; the
/// IMMEDIATE transaction and the second look at the version keep it to one migration where
/// the home cannot be locked.
fn migrate(connection: &Connection) -> Result<(), rusqlite::Error> {
    let transaction =
        rusqlite::Transaction::new_unchecked(connection, TransactionBehavior::Immediate)?;
    let version: i64 = transaction.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if version == 1 {
        transaction.execute_batch(MIGRATE_1_TO_2)?;
        tracing::info!("thread index: threads now record their owner (schema version 2)");
    }
    if version == 1 || version == 2 {
        transaction.execute_batch(MIGRATE_2_TO_3)?;
        tracing::info!("thread index: threads can now be put in sections (schema version 3)");
    }
    if (1..=3).contains(&version) {
        transaction.execute_batch(MIGRATE_3_TO_4)?;
        transaction.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        tracing::info!("thread index: threads now keep their read state (schema version 4)");
    }
    transaction.commit()
}

/// Connection settings: WAL (readers never wait for the writer), `synchronous=NORMAL` (the
/// index can be rebuilt, so it need not survive a power cut), and a busy timeout for a second
/// process on the same home.
fn configure(connection: &Connection) -> Result<(), rusqlite::Error> {
    configure_without_sync(connection)?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(())
}

/// WAL and the busy timeout, leaving `synchronous` as it is.
fn configure_without_sync(connection: &Connection) -> Result<(), rusqlite::Error> {
    connection.busy_timeout(Duration::from_secs(5))?;
    let _mode: String =
        connection.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
    Ok(())
}

/// Creates a new database at `database` and fills it from every rollout, in one transaction.
/// Returns the connection and the number of threads indexed.
fn rebuild(
    database: &Path,
    sessions_dir: &Path,
    archived_dir: &Path,
) -> Result<(Connection, usize), StoreError> {
    let mut connection = Connection::open(database)?;
    configure_without_sync(&connection)?;
    // No fsync while building: an index cut short by a crash fails its check (or still has
    // version 0) at the next start and is built again, and skipping the syncs keeps a first
    // start on a new home fast.
    connection.pragma_update(None, "synchronous", "OFF")?;
    // IMMEDIATE takes the write lock before the version is read, so that the check and the
    // build are one step even where the home could not be locked.
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let version: i64 = transaction.pragma_query_value(None, "user_version", |row| row.get(0))?;
    if version == SCHEMA_VERSION {
        // Another process built it meanwhile (only possible without the lock).
        transaction.commit()?;
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        return Ok((connection, 0));
    }
    transaction.execute_batch(SCHEMA)?;
    transaction.execute_batch(SECTIONS_SCHEMA)?;
    transaction.execute_batch(READ_STATES_SCHEMA)?;
    let mut threads = 0;
    // Live rollouts come last so that they win over an archived copy of the same thread.
    // `sessions/` is dated (YYYY/MM/DD), `archived_sessions/` flat.
    for (directory, recursive, archived) in
        [(archived_dir, false, true), (sessions_dir, true, false)]
    {
        for path in rollout::all_rollouts(directory, recursive)? {
            match rollout::read_rollout(&path, archived) {
                Ok(thread) => {
                    write_row(&transaction, &thread.meta)?;
                    threads += 1;
                }
                Err(error) => {
                    tracing::warn!("leaving an unreadable rollout out of the thread index: {error}")
                }
            }
        }
    }
    // Set last, inside the transaction: an interrupted rebuild leaves version 0 behind and is
    // redone on the next start.
    transaction.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    transaction.commit()?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    Ok((connection, threads))
}

/// Moves an unusable database aside (or deletes it) together with its journal files.
fn discard(database: &Path) -> Result<(), StoreError> {
    let aside = database.with_file_name(DISCARDED_DATABASE_FILE);
    if fs::rename(database, &aside).is_err() {
        fs::remove_file(database).map_err(|source| io_error(database, source))?;
    }
    remove_sidecars(database)
}

/// Deletes the `-wal`, `-shm` and `-journal` files of `database`, if any.
fn remove_sidecars(database: &Path) -> Result<(), StoreError> {
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut name = OsString::from(database.as_os_str());
        name.push(suffix);
        let path = PathBuf::from(name);
        match fs::remove_file(&path) {
            Ok(()) => {}
            Err(error) if error.kind() == io::ErrorKind::NotFound => {}
            Err(source) => return Err(io_error(&path, source)),
        }
    }
    Ok(())
}
