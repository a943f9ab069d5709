//! The reader's term cache (see [`TermCache`]).

use std::collections::HashMap;
use std::sync::Arc;

use rusqlite::{Connection, OptionalExtension};

use crate::backend::HistoryError;
use crate::postings::TermBlocks;

/// Heap budget of the reader's [`TermCache`].
const TERM_CACHE_BYTES: usize = 64 << 20;

/// What the reader knows about terms, kept across searches: id, document frequency, block
/// bounds and the blocks' BM25 bounds. Valid for one `PRAGMA data_version` of the reader
/// connection, which changes with every commit by another connection (this process's ingest
/// or another process's): the first statement of a read transaction checks it and empties
/// the cache when it moved, so a search never sees bounds older than its snapshot. Bounded by
/// [`TERM_CACHE_BYTES`] (least recently used terms go first).
#[derive(Default)]
pub(super) struct TermCache {
    version: Option<i64>,
    /// `(docs, total_len)` of the `corpus` row.
    pub(super) corpus: Option<(i64, i64)>,
    terms: HashMap<String, CachedTerm>,
    bytes: usize,
    tick: u64,
}

#[derive(Default)]
pub(super) struct CachedTerm {
    /// `None`: the term is not indexed.
    pub(super) tid: Option<i64>,
    pub(super) df: i64,
    pub(super) blocks: Option<Arc<TermBlocks>>,
    /// Bounds for the BM25 inputs `(idf, k1, b, avg_len)` (as bits).
    pub(super) bounds: Option<([u64; 4], Arc<[f64]>)>,
    /// The encoded postings of the blocks read so far, by block index.
    data: Vec<Option<Arc<[u8]>>>,
    used: u64,
    bytes: usize,
}

impl TermCache {
    /// Empties the cache unless `version` is the one its entries were read at; returns
    /// whether it was emptied.
    pub(super) fn validate(&mut self, version: i64) -> bool {
        if self.version == Some(version) {
            return false;
        }
        let had_entries = self.version.is_some();
        *self = TermCache {
            version: Some(version),
            ..TermCache::default()
        };
        had_entries
    }

    /// The entry of `term`, read (id and document frequency) when missing.
    pub(super) fn entry(
        &mut self,
        connection: &Connection,
        term: &str,
        statements: &mut u64,
        misses: &mut u64,
    ) -> Result<&mut CachedTerm, HistoryError> {
        self.tick += 1;
        let tick = self.tick;
        let mut fresh = None;
        if !self.terms.contains_key(term) {
            *misses += 1;
            *statements += 1;
            let mut select =
                connection.prepare_cached("SELECT id, df FROM terms WHERE term = ?1")?;
            let row: Option<(i64, i64)> = select
                .query_row([term], |row| Ok((row.get(0)?, row.get(1)?)))
                .optional()?;
            let bytes = 96 + term.len();
            self.make_room(bytes);
            self.bytes += bytes;
            fresh = Some(CachedTerm {
                tid: row.map(|(tid, _)| tid),
                df: row.map_or(0, |(_, df)| df),
                blocks: None,
                bounds: None,
                data: Vec::new(),
                used: tick,
                bytes,
            });
        }
        let entry = self
            .terms
            .entry(term.to_string())
            .or_insert_with(|| fresh.unwrap_or_default());
        entry.used = tick;
        Ok(entry)
    }

    /// The encoded postings of block `index` of `term` (of `blocks` blocks), from the cache
    /// or read by `read` (and kept); the flag says whether they were cached.
    pub(super) fn block_data(
        &mut self,
        term: &str,
        index: usize,
        blocks: usize,
        read: impl FnOnce() -> Result<Vec<u8>, HistoryError>,
    ) -> Result<(Arc<[u8]>, bool), HistoryError> {
        if let Some(Some(data)) = self.terms.get(term).and_then(|entry| entry.data.get(index)) {
            return Ok((Arc::clone(data), true));
        }
        let data: Arc<[u8]> = read()?.into();
        if let Some(entry) = self.terms.get_mut(term) {
            let mut grown = data.len() + 16;
            if entry.data.len() < blocks {
                grown += (blocks - entry.data.len()) * std::mem::size_of::<Option<Arc<[u8]>>>();
                entry.data.resize(blocks, None);
            }
            if let Some(slot) = entry.data.get_mut(index) {
                *slot = Some(Arc::clone(&data));
                self.grew(term, grown);
            }
        }
        Ok((data, false))
    }

    /// Records that the entry of `term` grew by `bytes`, evicting other entries if needed.
    pub(super) fn grew(&mut self, term: &str, bytes: usize) {
        if let Some(entry) = self.terms.get_mut(term) {
            entry.bytes += bytes;
        }
        self.bytes += bytes;
        if self.bytes > TERM_CACHE_BYTES {
            self.make_room(0);
        }
    }

    /// Evicts the least recently used entries until `extra` more bytes fit in three quarters
    /// of the budget (the entry used last, the one being filled, stays).
    fn make_room(&mut self, extra: usize) {
        if self.bytes + extra <= TERM_CACHE_BYTES {
            return;
        }
        let mut by_use: Vec<(u64, String, usize)> = self
            .terms
            .iter()
            .filter(|(_, entry)| entry.used != self.tick)
            .map(|(term, entry)| (entry.used, term.clone(), entry.bytes))
            .collect();
        by_use.sort_unstable();
        let target = TERM_CACHE_BYTES / 4 * 3;
        for (_, term, bytes) in by_use {
            if self.bytes + extra <= target {
                break;
            }
            self.terms.remove(&term);
            self.bytes = self.bytes.saturating_sub(bytes);
        }
    }
}

/// The reader's `PRAGMA data_version` (see [`TermCache`]); run inside the read transaction,
/// so it describes the snapshot the transaction reads.
pub(super) fn data_version(connection: &Connection) -> Result<i64, HistoryError> {
    let mut select = connection.prepare_cached("PRAGMA data_version")?;
    Ok(select.query_row([], |row| row.get(0))?)
}
