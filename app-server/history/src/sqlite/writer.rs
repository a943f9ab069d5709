//! The embedded backend's write side: one batch of events becomes rows, postings, document
//! frequencies, corpus statistics and each owner's count of events in one `IMMEDIATE`
//! transaction.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use super::EVENT_COLUMNS;
use crate::backend::{Batch, HistoryError};
use crate::postings::{self, Posting};
use crate::tokenize::term_frequencies;

/// The write connection, with the term ids it has committed.
pub(super) struct Writer {
    pub(super) connection: Connection,
    /// Term ids known to be committed.
    pub(super) term_ids: HashMap<String, i64>,
}

/// What one batch changes besides the rows it inserts.
#[derive(Default)]
struct Deltas {
    df: HashMap<i64, i64>,
    docs: i64,
    total_len: i64,
    /// Events added (or, negative, removed) per owner.
    owners: HashMap<String, i64>,
    /// Postings to remove: term id → document numbers.
    removed: HashMap<i64, Vec<i64>>,
}

impl Writer {
    /// The id of `term` and whether it was created just now (its list is empty).
    fn term_id(
        &self,
        transaction: &rusqlite::Transaction<'_>,
        term: &str,
        fresh: &mut HashMap<String, i64>,
        create: bool,
    ) -> Result<Option<(i64, bool)>, HistoryError> {
        if let Some(id) = self.term_ids.get(term).or_else(|| fresh.get(term)) {
            return Ok(Some((*id, false)));
        }
        let mut select = transaction.prepare_cached("SELECT id FROM terms WHERE term = ?1")?;
        let (id, created) = match select
            .query_row([term], |row| row.get::<_, i64>(0))
            .optional()?
        {
            Some(id) => (id, false),
            None if create => {
                let mut insert =
                    transaction.prepare_cached("INSERT INTO terms (term, df) VALUES (?1, 0)")?;
                insert.execute([term])?;
                (transaction.last_insert_rowid(), true)
            }
            None => return Ok(None),
        };
        fresh.insert(term.to_string(), id);
        Ok(Some((id, created)))
    }

    /// Notes the removal of document `n` (whose text was `text`, of `owner`).
    fn forget(
        &self,
        transaction: &rusqlite::Transaction<'_>,
        (n, text, owner): (i64, &str, String),
        deltas: &mut Deltas,
        fresh: &mut HashMap<String, i64>,
    ) -> Result<(), HistoryError> {
        let (frequencies, length) = term_frequencies(text);
        for term in frequencies.keys() {
            if let Some((tid, _)) = self.term_id(transaction, term, fresh, false)? {
                deltas.removed.entry(tid).or_default().push(n);
                *deltas.df.entry(tid).or_insert(0) -= 1;
            }
        }
        deltas.docs -= 1;
        deltas.total_len -= length;
        *deltas.owners.entry(owner).or_insert(0) -= 1;
        Ok(())
    }

    pub(super) fn commit(&mut self, batch: &Batch) -> Result<(), HistoryError> {
        let mut fresh = HashMap::new();
        let result = self.commit_inner(batch, &mut fresh);
        if result.is_ok() {
            self.term_ids.extend(fresh);
        }
        result
    }

    fn commit_inner(
        &mut self,
        batch: &Batch,
        fresh: &mut HashMap<String, i64>,
    ) -> Result<(), HistoryError> {
        // IMMEDIATE: the write lock is taken up front, so a concurrent ingest in another
        // process makes this one wait (busy timeout) instead of failing on a stale snapshot.
        let transaction = rusqlite::Transaction::new_unchecked(
            &self.connection,
            rusqlite::TransactionBehavior::Immediate,
        )?;
        let mut deltas = Deltas::default();
        for file in batch.files.iter().filter(|file| file.reset) {
            let old: Vec<(i64, String, String)> = {
                let mut select = transaction
                    .prepare_cached("SELECT n, text, owner FROM events WHERE source_path = ?1")?;
                select
                    .query_map([&file.path], |row| {
                        Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                    })?
                    .collect::<Result<_, _>>()?
            };
            for (n, text, owner) in old {
                self.forget(&transaction, (n, &text, owner), &mut deltas, fresh)?;
            }
            let mut delete =
                transaction.prepare_cached("DELETE FROM events WHERE source_path = ?1")?;
            delete.execute([&file.path])?;
        }
        // New postings by term, in document order.
        let mut added: HashMap<String, Vec<Posting>> = HashMap::new();
        for event in &batch.events {
            let existing: Option<(i64, String, String)> = {
                let mut select = transaction
                    .prepare_cached("SELECT n, text, owner FROM events WHERE doc = ?1")?;
                select
                    .query_row([event.doc], |row| {
                        Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                    })
                    .optional()?
            };
            if let Some((n, text, owner)) = existing {
                self.forget(&transaction, (n, &text, owner), &mut deltas, fresh)?;
                let mut delete = transaction.prepare_cached("DELETE FROM events WHERE n = ?1")?;
                delete.execute([n])?;
            }
            let (frequencies, length) = term_frequencies(&event.text);
            {
                let mut insert = transaction.prepare_cached(&format!(
                    "INSERT INTO events ({EVENT_COLUMNS}, dl) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"
                ))?;
                insert.execute(params![
                    event.doc,
                    event.event_uid,
                    event.session_id,
                    event.event_order,
                    event.turn_seq,
                    event.turn_id,
                    event.timestamp_ms,
                    event.class.as_str(),
                    event.kind(),
                    event.text,
                    event.payload,
                    event.token_usage,
                    event.source_path,
                    event.owner,
                    length,
                ])?;
            }
            let n = transaction.last_insert_rowid();
            for (term, tf) in frequencies {
                added.entry(term).or_default().push(Posting {
                    n,
                    tf,
                    dl: length,
                    kind: event.kind(),
                });
            }
            deltas.docs += 1;
            deltas.total_len += length;
            *deltas.owners.entry(event.owner.clone()).or_insert(0) += 1;
        }
        self.apply(&transaction, deltas, added, fresh)?;
        for file in &batch.files {
            let cursor = serde_json::to_string(&file.state.cursor).unwrap_or_default();
            let mut upsert = transaction.prepare_cached(
                "INSERT INTO files (path, inode, offset, fingerprint, cursor, corrupt_lines)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (path) DO UPDATE SET inode = ?2, offset = ?3, fingerprint = ?4,
                 cursor = ?5, corrupt_lines = ?6",
            )?;
            upsert.execute(params![
                file.path,
                file.state.inode as i64,
                file.state.offset as i64,
                file.state.fingerprint,
                cursor,
                file.state.corrupt_lines
            ])?;
        }
        transaction.commit()?;
        Ok(())
    }

    /// Writes what a change besides its rows amounts to: the removed and `added` postings
    /// (new postings by term, in document order), document frequencies, the corpus row and
    /// each owner's count.
    fn apply(
        &self,
        transaction: &rusqlite::Transaction<'_>,
        mut deltas: Deltas,
        added: HashMap<String, Vec<Posting>>,
        fresh: &mut HashMap<String, i64>,
    ) -> Result<(), HistoryError> {
        postings::remove(transaction, std::mem::take(&mut deltas.removed))?;
        let mut lists = Vec::with_capacity(added.len());
        for (term, list) in added {
            if let Some((tid, created)) = self.term_id(transaction, &term, fresh, true)? {
                lists.push((tid, created, list));
            }
        }
        // In term order: the blocks table is clustered by term.
        lists.sort_unstable_by_key(|(tid, _, _)| *tid);
        for (tid, created, list) in &lists {
            postings::append(transaction, *tid, *created, list)?;
            *deltas.df.entry(*tid).or_insert(0) += list.len() as i64;
        }
        {
            let mut update =
                transaction.prepare_cached("UPDATE terms SET df = df + ?1 WHERE id = ?2")?;
            for (tid, delta) in &deltas.df {
                if *delta != 0 {
                    update.execute(params![delta, tid])?;
                }
            }
        }
        transaction.execute(
            "INSERT INTO corpus (id, docs, total_len) VALUES (0, ?1, ?2)
             ON CONFLICT (id) DO UPDATE SET docs = docs + ?1, total_len = total_len + ?2",
            params![deltas.docs, deltas.total_len],
        )?;
        {
            let mut upsert = transaction.prepare_cached(
                "INSERT INTO owners (owner, docs) VALUES (?1, ?2)
                 ON CONFLICT (owner) DO UPDATE SET docs = docs + ?2",
            )?;
            for (owner, delta) in &deltas.owners {
                if *delta != 0 {
                    upsert.execute(params![owner, delta])?;
                }
            }
        }
        Ok(())
    }

    /// Removes every event of session (thread) `session_id`, with its postings and its share
    /// of the statistics, and forgets the ingestion state of the files they came from, in one
    /// `IMMEDIATE` transaction. Returns how many events went.
    pub(super) fn delete_session(&mut self, session_id: &str) -> Result<u64, HistoryError> {
        let mut fresh = HashMap::new();
        let result = self.delete_session_inner(session_id, &mut fresh);
        if result.is_ok() {
            self.term_ids.extend(fresh);
        }
        result
    }

    fn delete_session_inner(
        &mut self,
        session_id: &str,
        fresh: &mut HashMap<String, i64>,
    ) -> Result<u64, HistoryError> {
        let transaction = rusqlite::Transaction::new_unchecked(
            &self.connection,
            rusqlite::TransactionBehavior::Immediate,
        )?;
        let old: Vec<(i64, String, String, String)> = {
            let mut select = transaction.prepare_cached(
                "SELECT n, text, owner, source_path FROM events WHERE session_id = ?1",
            )?;
            select
                .query_map([session_id], |row| {
                    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
                })?
                .collect::<Result<_, _>>()?
        };
        let mut deltas = Deltas::default();
        let mut paths = std::collections::BTreeSet::new();
        for (n, text, owner, path) in &old {
            self.forget(&transaction, (*n, text, owner.clone()), &mut deltas, fresh)?;
            paths.insert(path.as_str());
        }
        transaction
            .prepare_cached("DELETE FROM events WHERE session_id = ?1")?
            .execute([session_id])?;
        {
            let mut delete = transaction.prepare_cached("DELETE FROM files WHERE path = ?1")?;
            for path in paths {
                delete.execute([path])?;
            }
        }
        self.apply(&transaction, deltas, HashMap::new(), fresh)?;
        transaction.commit()?;
        Ok(old.len() as u64)
    }
}
