//! The embedded backend's postings: per term, blocks of up to [`BLOCK_POSTINGS`] postings
//! stored as one BLOB row each in `blocks (tid, first, last, count, max_tf, min_dl, data)`.
//!
//! Documents are numbered by the event store's `AUTOINCREMENT` row id (`n`), so new postings
//! always go to the end of a term's list: ingesting a batch appends to each term's last block
//! (its bytes are extended, never decoded) and opens new blocks when it is full. A posting is
//! `varint(n - previous n)`, `varint(tf)`, `varint(dl)` and one `kind` byte; the first posting
//! of a block is a delta from the block's `first`, so it is 0. `max_tf` and `min_dl` bound
//! every BM25 term score in the block (the score grows with `tf` and shrinks with `dl`), which
//! lets the query skip blocks that cannot reach the current top k.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Transaction, params};

use crate::backend::HistoryError;

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

/// One block as read back: its bounds and still-encoded postings.
#[derive(Clone, Debug)]
pub struct Block {
    /// Document number of the first posting.
    pub first: i64,
    /// Document number of the last posting.
    pub last: i64,
    /// Largest `tf` in the block.
    pub max_tf: i64,
    /// Smallest `dl` in the block.
    pub min_dl: i64,
    /// The encoded postings.
    pub data: Vec<u8>,
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

/// Decodes a block's postings into `out` (cleared first). A malformed block decodes to the
/// postings before the damage.
pub fn decode(block: &Block, out: &mut Vec<Posting>) {
    out.clear();
    let data = &block.data;
    let mut at = 0;
    let mut previous = block.first;
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

/// Reads every block of `tid`, in document order.
pub fn read_blocks(
    connection: &rusqlite::Connection,
    tid: i64,
) -> Result<Vec<Block>, HistoryError> {
    let mut select = connection.prepare_cached(
        "SELECT first, last, max_tf, min_dl, data FROM blocks WHERE tid = ?1 ORDER BY first",
    )?;
    let rows = select.query_map([tid], |row| {
        Ok(Block {
            first: row.get(0)?,
            last: row.get(1)?,
            max_tf: row.get(2)?,
            min_dl: row.get(3)?,
            data: row.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
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
        let mut select = transaction.prepare_cached(
            "SELECT first, last, count, max_tf, min_dl, data FROM blocks WHERE tid = ?1
             ORDER BY first DESC LIMIT 1",
        )?;
        let tail = select
            .query_row([tid], |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, i64>(1)?,
                    row.get::<_, i64>(2)?,
                    row.get::<_, i64>(3)?,
                    row.get::<_, i64>(4)?,
                    row.get::<_, Vec<u8>>(5)?,
                ))
            })
            .optional()?;
        if let Some((first, last, count, max_tf, min_dl, mut data)) = tail
            && (count as usize) < BLOCK_POSTINGS
        {
            let room = (BLOCK_POSTINGS - count as usize).min(rest.len());
            let (head, tail_postings) = rest.split_at(room);
            rest = tail_postings;
            if let Some(end) = head.last() {
                encode(&mut data, last, head);
                let max_tf = head.iter().map(|p| p.tf).fold(max_tf, i64::max);
                let min_dl = head.iter().map(|p| p.dl).fold(min_dl, i64::min);
                let mut update = transaction.prepare_cached(
                    "UPDATE blocks SET last = ?3, count = ?4, max_tf = ?5, min_dl = ?6, data = ?7
                     WHERE tid = ?1 AND first = ?2",
                )?;
                update.execute(params![
                    tid,
                    first,
                    end.n,
                    count + head.len() as i64,
                    max_tf,
                    min_dl,
                    data
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
    let mut insert = transaction.prepare_cached(
        "INSERT INTO blocks (tid, first, last, count, max_tf, min_dl, data)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    insert.execute(params![
        tid,
        first.n,
        last.n,
        postings.len() as i64,
        max_tf,
        min_dl,
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
                    "SELECT first, last, max_tf, min_dl, data FROM blocks
                     WHERE tid = ?1 AND first <= ?2 ORDER BY first DESC LIMIT 1",
                )?;
                select
                    .query_row(params![tid, doc], |row| {
                        Ok(Block {
                            first: row.get(0)?,
                            last: row.get(1)?,
                            max_tf: row.get(2)?,
                            min_dl: row.get(3)?,
                            data: row.get(4)?,
                        })
                    })
                    .optional()?
            };
            let Some(block) = block else {
                at += 1;
                continue;
            };
            // Every removed document this block covers.
            let end = docs[at..].partition_point(|doc| *doc <= block.last) + at;
            let gone = &docs[at..end.max(at + 1)];
            at = end.max(at + 1);
            decode(&block, &mut decoded);
            let before = decoded.len();
            decoded.retain(|posting| gone.binary_search(&posting.n).is_err());
            if decoded.len() == before {
                continue;
            }
            let mut delete =
                transaction.prepare_cached("DELETE FROM blocks WHERE tid = ?1 AND first = ?2")?;
            delete.execute(params![tid, block.first])?;
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
        let block = Block {
            first: 3,
            last: 70_001,
            max_tf: 5,
            min_dl: 0,
            data,
        };
        let mut out = Vec::new();
        decode(&block, &mut out);
        assert_eq!(out, postings);
    }
}
