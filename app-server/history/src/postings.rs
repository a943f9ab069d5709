//! The embedded backend's postings: per term, blocks of up to [`BLOCK_POSTINGS`] postings
//! stored as one BLOB row each in `blocks (tid, first, last, count, max_tf, min_dl, data)`.
//!
//! Documents are numbered by the event store's `AUTOINCREMENT` row id (`n`), so new postings
//! always go to the end of a term's list: ingesting a batch appends to each term's last block
//! (its bytes are extended, never decoded) and opens new blocks when it is full. A posting is
//! `varint(n - previous n)`, `varint(tf)`, `varint(dl)` and one `kind` byte; the first posting
//! of a block is a delta from the block's `first`, so it is 0.
//!
//! Each block also stores its score frontier: the `(tf, dl)` pairs of its postings that no
//! other posting beats on both counts (a higher `tf` with a shorter `dl`). The BM25 term score
//! grows with `tf` and shrinks with `dl`, so the best score of a block, for any `k1`, `b` and
//! average length, is the best score of a frontier pair; a query skips, without reading its
//! postings, every block whose frontier cannot reach the current top k. (The block's `max_tf`
//! and `min_dl` alone give a much looser bound: the longest `tf` and the shortest `dl` seldom
//! belong to the same posting.) A query reads the block bounds first and each block's postings
//! only when it has to decode them.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Transaction, params};

use crate::backend::HistoryError;

/// The last block of a term's list (what an append extends).
pub const TAIL_BLOCK: &str = "SELECT first, last, count, max_tf, min_dl, data, frontier FROM blocks
     WHERE tid = ?1 ORDER BY first DESC LIMIT 1";

/// Postings per block.
pub const BLOCK_POSTINGS: usize = 128;

/// One posting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Posting {
    /// Document number (the event's row id).
    pub n: i64,
    /// Term frequency in the document.
    pub tf: i64,
    /// Document length in terms.
    pub dl: i64,
    /// The event's postings `kind` (class code plus the history-tool flag).
    pub kind: i64,
}

/// The bounds of a term's blocks, in document order, without their postings: what a query
/// needs to decide which blocks to read. Flat vectors (no allocation per block), so a list of
/// thousands of blocks can be kept across queries and shared (see `sqlite::TermCache`).
#[derive(Clone, Debug, Default)]
pub struct TermBlocks {
    /// Document number of each block's first posting.
    pub first: Vec<i64>,
    /// Document number of each block's last posting.
    pub last: Vec<i64>,
    /// End of each block's frontier in `pairs`.
    ends: Vec<u32>,
    /// The blocks' score frontiers, one after the other: `(tf, dl)` pairs, `tf` ascending.
    pairs: Vec<(i64, i64)>,
}

impl TermBlocks {
    /// Adds the next block.
    pub fn push(&mut self, first: i64, last: i64, frontier: &[(i64, i64)]) {
        self.first.push(first);
        self.last.push(last);
        self.pairs.extend_from_slice(frontier);
        self.ends.push(self.pairs.len() as u32);
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.first.len()
    }

    /// Whether there are no blocks.
    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    /// The score frontier of block `index` (see the module docs).
    pub fn frontier(&self, index: usize) -> &[(i64, i64)] {
        let start = match index {
            0 => 0,
            _ => self.ends.get(index - 1).copied().unwrap_or(0) as usize,
        };
        let end = self.ends.get(index).copied().unwrap_or(0) as usize;
        self.pairs.get(start..end).unwrap_or(&[])
    }

    /// Approximate heap size in bytes (for the cache's budget).
    pub fn bytes(&self) -> usize {
        self.first.capacity() * 8
            + self.last.capacity() * 8
            + self.ends.capacity() * 4
            + self.pairs.capacity() * 16
    }
}

/// The score frontier of `points` (`(tf, dl)` pairs): the pairs no other pair beats with a
/// `tf` at least as high and a `dl` at least as short, `tf` ascending.
pub fn frontier(points: impl IntoIterator<Item = (i64, i64)>) -> Vec<(i64, i64)> {
    let mut points: Vec<(i64, i64)> = points.into_iter().collect();
    // By tf descending, then dl ascending: a pair survives when its dl is shorter than that of
    // every pair with a higher tf.
    points.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut kept: Vec<(i64, i64)> = Vec::new();
    for point in points {
        if kept.last().is_none_or(|best| point.1 < best.1) {
            kept.push(point);
        }
    }
    kept.reverse();
    kept
}

fn encode_frontier(frontier: &[(i64, i64)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(frontier.len() * 3);
    for (tf, dl) in frontier {
        put_varint(&mut out, *tf as u64);
        put_varint(&mut out, *dl as u64);
    }
    out
}

/// The frontier of a stored block: its `frontier` column, or the pair `(max_tf, min_dl)` for
/// a block written before the column existed (a looser bound, still an upper bound).
fn decode_frontier(stored: Option<&[u8]>, max_tf: i64, min_dl: i64) -> Vec<(i64, i64)> {
    let mut points = Vec::new();
    decode_frontier_into(stored, max_tf, min_dl, &mut points);
    points
}

/// [`decode_frontier`] into `points` (cleared first).
fn decode_frontier_into(
    stored: Option<&[u8]>,
    max_tf: i64,
    min_dl: i64,
    points: &mut Vec<(i64, i64)>,
) {
    points.clear();
    let Some(data) = stored else {
        points.push((max_tf, min_dl));
        return;
    };
    let mut at = 0;
    while at < data.len() {
        let (Some(tf), Some(dl)) = (get_varint(data, &mut at), get_varint(data, &mut at)) else {
            points.clear();
            points.push((max_tf, min_dl));
            return;
        };
        points.push((tf as i64, dl as i64));
    }
    if points.is_empty() {
        points.push((max_tf, min_dl));
    }
}

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn get_varint(data: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = *data.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(value);
        }
        shift += 7;
        if shift > 63 {
            return None;
        }
    }
}

/// Appends `postings` (ascending `n`, all after `previous`) to `out`.
pub fn encode(out: &mut Vec<u8>, previous: i64, postings: &[Posting]) {
    let mut previous = previous;
    for posting in postings {
        put_varint(out, (posting.n - previous) as u64);
        put_varint(out, posting.tf as u64);
        put_varint(out, posting.dl as u64);
        out.push(posting.kind as u8);
        previous = posting.n;
    }
}

/// Decodes the postings of a block starting at `first` into `out` (cleared first). A
/// malformed block decodes to the postings before the damage.
pub fn decode(first: i64, data: &[u8], out: &mut Vec<Posting>) {
    out.clear();
    let mut at = 0;
    let mut previous = first;
    while at < data.len() {
        let (Some(delta), Some(tf), Some(dl)) = (
            get_varint(data, &mut at),
            get_varint(data, &mut at),
            get_varint(data, &mut at),
        ) else {
            return;
        };
        let Some(kind) = data.get(at) else {
            return;
        };
        at += 1;
        previous += delta as i64;
        out.push(Posting {
            n: previous,
            tf: tf as i64,
            dl: dl as i64,
            kind: i64::from(*kind),
        });
    }
}

/// Reads the bounds of every block of `tid`, in document order, without their postings
/// (see [`read_data`]).
pub fn read_blocks(
    connection: &rusqlite::Connection,
    tid: i64,
) -> Result<TermBlocks, HistoryError> {
    let mut select = connection.prepare_cached(
        "SELECT first, last, max_tf, min_dl, frontier FROM blocks WHERE tid = ?1 ORDER BY first",
    )?;
    let mut rows = select.query([tid])?;
    let mut blocks = TermBlocks::default();
    let mut points = Vec::new();
    while let Some(row) = rows.next()? {
        let stored = row
            .get_ref(4)?
            .as_blob_or_null()
            .map_err(rusqlite::Error::from)?;
        decode_frontier_into(stored, row.get(2)?, row.get(3)?, &mut points);
        blocks.push(row.get(0)?, row.get(1)?, &points);
    }
    Ok(blocks)
}

/// The encoded postings of the block of `tid` starting at `first` (empty when it is gone).
pub fn read_data(
    connection: &rusqlite::Connection,
    tid: i64,
    first: i64,
) -> Result<Vec<u8>, HistoryError> {
    let mut select =
        connection.prepare_cached("SELECT data FROM blocks WHERE tid = ?1 AND first = ?2")?;
    Ok(select
        .query_row(params![tid, first], |row| row.get(0))
        .optional()?
        .unwrap_or_default())
}

/// Appends `postings` (ascending `n`, larger than every `n` already in the list) to the list
/// of `tid`: first into the last block while it has room, then into new blocks.
pub fn append(
    transaction: &Transaction<'_>,
    tid: i64,
    known_empty: bool,
    postings: &[Posting],
) -> Result<(), HistoryError> {
    let mut rest = postings;
    if !known_empty {
        let mut select = transaction.prepare_cached(TAIL_BLOCK)?;
        let tail = select
            .query_row([tid], |row| {
                let max_tf = row.get::<_, i64>(3)?;
                let min_dl = row.get::<_, i64>(4)?;
                let stored = row.get_ref(6)?.as_blob_or_null()?;
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, i64>(2)?,
                    max_tf,
                    min_dl,
                    row.get::<_, Vec<u8>>(5)?,
                    decode_frontier(stored, max_tf, min_dl),
                ))
            })
            .optional()?;
        if let Some((first, last, count, max_tf, min_dl, mut data, old_frontier)) = tail
            && (count as usize) < BLOCK_POSTINGS
        {
            let room = (BLOCK_POSTINGS - count as usize).min(rest.len());
            let (head, tail_postings) = rest.split_at(room);
            rest = tail_postings;
            if let Some(end) = head.last() {
                encode(&mut data, last, head);
                let max_tf = head.iter().map(|p| p.tf).fold(max_tf, i64::max);
                let min_dl = head.iter().map(|p| p.dl).fold(min_dl, i64::min);
                // The frontier of the union is that of the old frontier plus the new postings.
                let merged = frontier(
                    old_frontier
                        .into_iter()
                        .chain(head.iter().map(|p| (p.tf, p.dl))),
                );
                let mut update = transaction.prepare_cached(
                    "UPDATE blocks SET last = ?3, count = ?4, max_tf = ?5, min_dl = ?6, data = ?7,
                     frontier = ?8 WHERE tid = ?1 AND first = ?2",
                )?;
                update.execute(params![
                    tid,
                    first,
                    end.n,
                    count + head.len() as i64,
                    max_tf,
                    min_dl,
                    data,
                    encode_frontier(&merged)
                ])?;
            }
        }
    }
    for chunk in rest.chunks(BLOCK_POSTINGS) {
        write_block(transaction, tid, chunk)?;
    }
    Ok(())
}

fn write_block(
    transaction: &Transaction<'_>,
    tid: i64,
    postings: &[Posting],
) -> Result<(), HistoryError> {
    let (Some(first), Some(last)) = (postings.first(), postings.last()) else {
        return Ok(());
    };
    let mut data = Vec::with_capacity(postings.len() * 5);
    encode(&mut data, first.n, postings);
    let max_tf = postings.iter().map(|p| p.tf).max().unwrap_or(0);
    let min_dl = postings.iter().map(|p| p.dl).min().unwrap_or(0);
    let bounds = frontier(postings.iter().map(|p| (p.tf, p.dl)));
    let mut insert = transaction.prepare_cached(
        "INSERT INTO blocks (tid, first, last, count, max_tf, min_dl, frontier, data)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    insert.execute(params![
        tid,
        first.n,
        last.n,
        postings.len() as i64,
        max_tf,
        min_dl,
        encode_frontier(&bounds),
        data
    ])?;
    Ok(())
}

/// Removes the postings of documents `removed` from the lists they are in (`tid` → document
/// numbers): each affected block is decoded, filtered and written back (or deleted if empty).
pub fn remove(
    transaction: &Transaction<'_>,
    removed: HashMap<i64, Vec<i64>>,
) -> Result<(), HistoryError> {
    let mut decoded = Vec::new();
    for (tid, mut docs) in removed {
        docs.sort_unstable();
        docs.dedup();
        let mut at = 0;
        while let Some(&doc) = docs.get(at) {
            let block = {
                let mut select = transaction.prepare_cached(
                    "SELECT first, last, data FROM blocks
                     WHERE tid = ?1 AND first <= ?2 ORDER BY first DESC LIMIT 1",
                )?;
                select
                    .query_row(params![tid, doc], |row| {
                        Ok((
                            row.get::<_, i64>(0)?,
                            row.get::<_, i64>(1)?,
                            row.get::<_, Vec<u8>>(2)?,
                        ))
                    })
                    .optional()?
            };
            let Some((first, last, data)) = block else {
                at += 1;
                continue;
            };
            // Every removed document this block covers.
            let end = docs[at..].partition_point(|doc| *doc <= last) + at;
            let gone = &docs[at..end.max(at + 1)];
            at = end.max(at + 1);
            decode(first, &data, &mut decoded);
            let before = decoded.len();
            decoded.retain(|posting| gone.binary_search(&posting.n).is_err());
            if decoded.len() == before {
                continue;
            }
            let mut delete =
                transaction.prepare_cached("DELETE FROM blocks WHERE tid = ?1 AND first = ?2")?;
            delete.execute(params![tid, first])?;
            write_block(transaction, tid, &decoded)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_round_trip_through_a_block() {
        let postings: Vec<Posting> = [3i64, 4, 200, 70_000, 70_001]
            .iter()
            .enumerate()
            .map(|(index, n)| Posting {
                n: *n,
                tf: 1 + index as i64,
                dl: 300 * index as i64,
                kind: 9,
            })
            .collect();
        let mut data = Vec::new();
        encode(&mut data, 3, &postings);
        let mut out = Vec::new();
        decode(3, &data, &mut out);
        assert_eq!(out, postings);
    }

    #[test]
    fn frontier_keeps_the_pairs_nothing_beats() {
        let points = [
            (1, 4),
            (1, 9),
            (2, 30),
            (3, 12),
            (3, 40),
            (5, 60),
            (2, 12),
            (5, 61),
        ];
        assert_eq!(frontier(points), vec![(1, 4), (3, 12), (5, 60)]);
        assert_eq!(frontier([]), Vec::<(i64, i64)>::new());
        let stored = encode_frontier(&[(1, 4), (3, 12), (5, 60)]);
        assert_eq!(
            decode_frontier(Some(&stored), 9, 9),
            vec![(1, 4), (3, 12), (5, 60)]
        );
        // A block from before the frontier column: its (max_tf, min_dl).
        assert_eq!(decode_frontier(None, 5, 4), vec![(5, 4)]);
    }
}
