//! Top-k BM25 over block postings (MaxScore with block-max bounds).
//!
//! The query terms are ordered by their largest possible score. Terms whose bounds add up to
//! less than the current k-th score are "non-essential": a document found only in them cannot
//! enter the top k, so candidates come from the other lists alone and the non-essential lists
//! are only probed (block bounds first, then a binary search in the decoded block). A block
//! whose bound plus the other terms' bounds stays below the k-th score is skipped without
//! being decoded. Scores are exactly the BM25 sum of `backend::SearchPlan`, added in query
//! order, and ties break by the event's document hash, as in the ClickHouse SQL.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};
use std::sync::Arc;

use crate::backend::{ScoredDoc, SearchPlan};
use crate::postings::{Posting, TermBlocks, decode};

/// One query term's list and its cursor.
pub struct TermList {
    /// Position of the term in the query (scores are summed in this order).
    pub position: usize,
    /// The term's IDF.
    pub idf: f64,
    /// The term's block bounds, in document order; a block's postings are loaded (by the
    /// [`Loader`]) only when it has to be decoded.
    pub blocks: Arc<TermBlocks>,
    /// The best score of each block for this `idf` and the plan's BM25 parameters
    /// ([`block_bounds`]), shared so that a cache can keep them across queries.
    pub bounds: Arc<[f64]>,
}

/// What one [`top_k`] did, for the benchmark's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TopKStats {
    /// Blocks whose postings were decoded.
    pub blocks_decoded: u64,
    /// Blocks passed over without being decoded.
    pub blocks_skipped: u64,
    /// Candidates fully scored (all their terms looked up).
    pub candidates_scored: u64,
}

/// The bound of every block of `blocks` for a term of IDF `idf` (see [`TermList::bounds`]).
pub fn block_bounds(plan: &SearchPlan, idf: f64, blocks: &TermBlocks) -> Vec<f64> {
    let scorer = Scorer {
        k1: plan.k1,
        b: plan.b,
        avg_len: plan.avg_len,
    };
    (0..blocks.len())
        .map(|index| scorer.bound(idf, blocks.frontier(index)))
        .collect()
}

/// Loads the encoded postings of a block: `(position of the term, index of the block in the
/// term's list, block's first document)`.
pub type Loader<'a> = dyn FnMut(usize, usize, i64) -> Arc<[u8]> + 'a;

/// Restrictions applied to every candidate.
pub struct Filter {
    /// Admitted postings kinds, as a bit set.
    pub kinds: u64,
    /// Only these document numbers, when set.
    pub docs: Option<HashSet<i64>>,
}

/// One top-k entry, before the document hash is attached.
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    /// Document number.
    pub n: i64,
    /// BM25 score.
    pub score: f64,
    /// Distinct query terms matched.
    pub matched: i64,
}

/// Bounds and scores share the BM25 term formula.
struct Scorer {
    k1: f64,
    b: f64,
    avg_len: f64,
}

impl Scorer {
    fn term(&self, idf: f64, tf: i64, dl: i64) -> f64 {
        let tf = tf as f64;
        idf * (tf * (self.k1 + 1.0))
            / (tf + self.k1 * (1.0 - self.b + self.b * dl as f64 / self.avg_len))
    }

    /// An upper bound for every posting of a block (with a margin for rounding): the best
    /// score of its frontier.
    fn bound(&self, idf: f64, frontier: &[(i64, i64)]) -> f64 {
        let bound = frontier
            .iter()
            .map(|(tf, dl)| self.term(idf, (*tf).max(0), (*dl).max(0)))
            .fold(0.0, f64::max);
        bound * (1.0 + 1e-9) + 1e-12
    }
}

const END: i64 = i64::MAX;

struct Cursor {
    position: usize,
    idf: f64,
    blocks: Arc<TermBlocks>,
    bounds: Arc<[f64]>,
    max_bound: f64,
    block: usize,
    decoded_block: usize,
    postings: Vec<Posting>,
    at: usize,
    /// Blocks decoded so far.
    decoded: u64,
}

impl Cursor {
    fn new(list: TermList) -> Cursor {
        let max_bound = list.bounds.iter().copied().fold(0.0, f64::max);
        Cursor {
            position: list.position,
            idf: list.idf,
            blocks: list.blocks,
            bounds: list.bounds,
            max_bound,
            block: 0,
            decoded_block: usize::MAX,
            postings: Vec::new(),
            at: 0,
            decoded: 0,
        }
    }

    /// Makes sure the current block is decoded and `at` points into it (moving to later
    /// blocks past an exhausted one).
    fn settle(&mut self, load: &mut Loader<'_>) {
        loop {
            let Some(&first) = self.blocks.first.get(self.block) else {
                return;
            };
            if self.decoded_block != self.block {
                // Cursors only move forward: the bytes are decoded once and dropped.
                let data = load(self.position, self.block, first);
                decode(first, &data, &mut self.postings);
                self.decoded += 1;
                self.decoded_block = self.block;
                self.at = 0;
            }
            if self.at < self.postings.len() {
                return;
            }
            self.block += 1;
        }
    }

    fn current(&mut self, load: &mut Loader<'_>) -> Option<Posting> {
        self.settle(load);
        if self.block < self.blocks.len() {
            self.postings.get(self.at).copied()
        } else {
            None
        }
    }

    fn doc(&mut self, load: &mut Loader<'_>) -> i64 {
        self.current(load).map_or(END, |posting| posting.n)
    }

    fn advance(&mut self, load: &mut Loader<'_>) {
        self.settle(load);
        self.at += 1;
    }

    fn skip_block(&mut self) {
        if self.block < self.blocks.len() {
            self.block += 1;
        }
    }

    /// The bound of the current block (0 when exhausted).
    fn block_bound(&self) -> f64 {
        self.bounds.get(self.block).copied().unwrap_or(0.0)
    }

    /// Moves to the block that could hold `target` (without decoding) and returns its bound,
    /// or 0 when `target` falls between blocks.
    fn bound_at(&mut self, target: i64) -> f64 {
        while let Some(&last) = self.blocks.last.get(self.block) {
            if last >= target {
                return if self.blocks.first[self.block] <= target {
                    self.bounds[self.block]
                } else {
                    0.0
                };
            }
            self.block += 1;
        }
        0.0
    }

    /// Moves to the first posting at or after `target`.
    fn seek(&mut self, target: i64, load: &mut Loader<'_>) -> Option<Posting> {
        self.bound_at(target);
        self.settle(load);
        if self.block >= self.blocks.len() {
            return None;
        }
        let from = self.at.min(self.postings.len());
        self.at = from + self.postings[from..].partition_point(|posting| posting.n < target);
        self.current(load)
    }
}

#[derive(Clone, Copy, Debug)]
struct Ranked(Candidate, i64);

impl Ranked {
    /// Better first: higher score, then lower document hash.
    fn better(&self, other: &Ranked) -> Ordering {
        other
            .0
            .score
            .total_cmp(&self.0.score)
            .then(self.1.cmp(&other.1))
    }
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.better(other) == Ordering::Equal
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    /// The heap's top is the worst entry.
    fn cmp(&self, other: &Self) -> Ordering {
        self.better(other)
    }
}

/// The best `plan.limit` documents of `lists` under `filter`, best first. `hash` gives a
/// document number's document hash (the tie-break); `None` drops the candidate. `load` reads
/// the postings of a block whose `data` is `None`, only when the block has to be decoded.
pub fn top_k(
    plan: &SearchPlan,
    lists: Vec<TermList>,
    filter: &Filter,
    mut hash: impl FnMut(i64) -> Option<i64>,
    load: &mut Loader<'_>,
    stats: &mut TopKStats,
) -> Vec<ScoredDoc> {
    let scorer = Scorer {
        k1: plan.k1,
        b: plan.b,
        avg_len: plan.avg_len,
    };
    let limit = plan.limit.max(1) as usize;
    let term_count = plan.terms.len();
    let mut cursors: Vec<Cursor> = lists.into_iter().map(Cursor::new).collect();
    cursors.sort_by(|a, b| a.max_bound.total_cmp(&b.max_bound));
    // prefix[i]: the sum of the bounds of cursors 0..=i.
    let mut prefix = Vec::with_capacity(cursors.len());
    let mut running = 0.0;
    for cursor in &cursors {
        running += cursor.max_bound;
        prefix.push(running);
    }
    let total = running;
    let floor = plan.min_score.unwrap_or(f64::NEG_INFINITY);
    let mut heap: BinaryHeap<Ranked> = BinaryHeap::with_capacity(limit + 1);
    let mut threshold = floor;
    let mut essential = 0;
    while essential < cursors.len() && prefix[essential] < threshold {
        essential += 1;
    }
    let mut contributions = vec![0.0f64; term_count.max(1)];
    while essential < cursors.len() {
        // Skip the blocks of essential lists that cannot reach the threshold.
        for cursor in &mut cursors[essential..] {
            while cursor.block < cursor.blocks.len()
                && cursor.block_bound() + (total - cursor.max_bound) < threshold
            {
                cursor.skip_block();
            }
        }
        let mut candidate = END;
        for cursor in &mut cursors[essential..] {
            candidate = candidate.min(cursor.doc(load));
        }
        if candidate == END {
            break;
        }
        // Score the candidate from the essential lists.
        contributions.iter_mut().for_each(|value| *value = 0.0);
        let mut score = 0.0;
        let mut matched = 0i64;
        let mut kind = None;
        let mut block_bounds = 0.0;
        for cursor in &mut cursors[essential..] {
            if let Some(posting) = cursor.current(load)
                && posting.n == candidate
            {
                let value = scorer.term(cursor.idf, posting.tf, posting.dl);
                contributions[cursor.position] = value;
                score += value;
                matched += 1;
                kind = Some(posting.kind);
                block_bounds += cursor.block_bound();
                cursor.advance(load);
            }
        }
        let admitted = kind.is_some_and(|kind| filter.kinds & (1u64 << (kind & 63)) != 0)
            && filter
                .docs
                .as_ref()
                .is_none_or(|docs| docs.contains(&candidate));
        if !admitted {
            continue;
        }
        // Block-max check over every list before probing the non-essential ones.
        let mut bound = block_bounds;
        for cursor in &mut cursors[..essential] {
            bound += cursor.bound_at(candidate);
        }
        if bound < threshold {
            continue;
        }
        let mut pruned = false;
        for index in (0..essential).rev() {
            if score + prefix[index] < threshold {
                pruned = true;
                break;
            }
            let cursor = &mut cursors[index];
            if let Some(posting) = cursor.seek(candidate, load)
                && posting.n == candidate
            {
                let value = scorer.term(cursor.idf, posting.tf, posting.dl);
                contributions[cursor.position] = value;
                score += value;
                matched += 1;
            }
        }
        stats.candidates_scored += 1;
        if pruned || matched < plan.min_should_match {
            continue;
        }
        // The exact score, summed in query order.
        let score: f64 = contributions.iter().sum();
        if score < threshold || score < floor {
            continue;
        }
        let Some(doc_hash) = hash(candidate) else {
            continue;
        };
        let entry = Ranked(
            Candidate {
                n: candidate,
                score,
                matched,
            },
            doc_hash,
        );
        if heap.len() < limit {
            heap.push(entry);
        } else if heap
            .peek()
            .is_some_and(|worst| entry.better(worst) == Ordering::Less)
        {
            heap.pop();
            heap.push(entry);
        } else {
            continue;
        }
        if heap.len() == limit
            && let Some(worst) = heap.peek()
        {
            threshold = worst.0.score.max(floor);
            while essential < cursors.len() && prefix[essential] < threshold {
                essential += 1;
            }
        }
    }
    for cursor in &cursors {
        stats.blocks_decoded += cursor.decoded;
        stats.blocks_skipped += (cursor.blocks.len() as u64).saturating_sub(cursor.decoded);
    }
    let mut ranked = heap.into_vec();
    ranked.sort_by(Ranked::better);
    ranked
        .into_iter()
        .map(|Ranked(candidate, doc_hash)| ScoredDoc {
            doc: doc_hash,
            score: candidate.score,
            matched: candidate.matched,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use super::*;
    use crate::postings::{BLOCK_POSTINGS, encode, frontier};

    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// The block bounds of `postings`; their encoded postings go to `stored` for the loader.
    fn blocks_of(
        postings: &[Posting],
        position: usize,
        stored: &mut HashMap<(usize, i64), Vec<u8>>,
    ) -> TermBlocks {
        let mut blocks = TermBlocks::default();
        for chunk in postings.chunks(BLOCK_POSTINGS) {
            let mut data = Vec::new();
            encode(&mut data, chunk[0].n, chunk);
            stored.insert((position, chunk[0].n), data);
            blocks.push(
                chunk[0].n,
                chunk[chunk.len() - 1].n,
                &frontier(chunk.iter().map(|p| (p.tf, p.dl))),
            );
        }
        blocks
    }

    /// MaxScore with block bounds returns exactly what scoring every posting returns.
    #[test]
    fn top_k_equals_exhaustive_scoring() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (mut total_loads, mut skipped_loads) = (0, 0);
        for round in 0..60 {
            let docs = 1 + rng.below(5000) as i64;
            let terms = 1 + rng.below(6) as usize;
            // Per document: length and kind (few lengths, so ties are common).
            let lengths: Vec<i64> = (0..docs).map(|_| 1 + rng.below(6) as i64 * 5).collect();
            let kinds: Vec<i64> = (0..docs).map(|_| rng.below(10) as i64).collect();
            let mut lists = Vec::new();
            let mut idfs = Vec::new();
            for _ in 0..terms {
                let density = 1 + rng.below(100);
                let mut postings = Vec::new();
                for n in 0..docs {
                    if rng.below(100) < density {
                        postings.push(Posting {
                            n,
                            tf: 1 + rng.below(3) as i64,
                            dl: lengths[n as usize],
                            kind: kinds[n as usize],
                        });
                    }
                }
                idfs.push(0.1 + rng.below(1000) as f64 / 100.0);
                lists.push(postings);
            }
            let plan = SearchPlan {
                terms: (0..terms).map(|index| format!("t{index}")).collect(),
                idf: idfs.clone(),
                df: lists.iter().map(|list| list.len() as i64).collect(),
                k1: 1.2,
                b: 0.75,
                avg_len: 14.0,
                min_should_match: 1 + rng.below(2) as i64,
                min_score: (round % 3 == 0).then_some(2.0),
                kinds: vec![0, 1, 2, 3, 4, 7],
                session_id: None,
                owner: crate::event::LOCAL_OWNER.to_string(),
                limit: 1 + rng.below(20) as i64,
            };
            let filter = Filter {
                kinds: plan.kinds.iter().fold(0, |bits, kind| bits | (1 << kind)),
                docs: (round % 4 == 1).then(|| (0..docs).filter(|n| n % 3 != 0).collect()),
            };
            let hash = |n: i64| (n * 7919) % 1009;
            // Exhaustive: score every posting, in query order.
            let scorer = Scorer {
                k1: plan.k1,
                b: plan.b,
                avg_len: plan.avg_len,
            };
            let mut scores: BTreeMap<i64, (Vec<f64>, i64)> = BTreeMap::new();
            for (position, postings) in lists.iter().enumerate() {
                for posting in postings {
                    let entry = scores
                        .entry(posting.n)
                        .or_insert_with(|| (vec![0.0; terms], 0));
                    entry.0[position] = scorer.term(idfs[position], posting.tf, posting.dl);
                    entry.1 += 1;
                }
            }
            let mut expected: Vec<ScoredDoc> = scores
                .into_iter()
                .filter(|(n, _)| filter.kinds & (1 << kinds[*n as usize]) != 0)
                .filter(|(n, _)| filter.docs.as_ref().is_none_or(|docs| docs.contains(n)))
                .map(|(n, (parts, matched))| ScoredDoc {
                    doc: hash(n),
                    score: parts.iter().sum(),
                    matched,
                })
                .filter(|hit| hit.matched >= plan.min_should_match)
                .filter(|hit| plan.min_score.is_none_or(|floor| hit.score >= floor))
                .collect();
            expected.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc)));
            expected.truncate(plan.limit as usize);
            let mut stored = HashMap::new();
            let term_lists = lists
                .iter()
                .enumerate()
                .map(|(position, postings)| {
                    let blocks = blocks_of(postings, position, &mut stored);
                    TermList {
                        position,
                        idf: idfs[position],
                        bounds: block_bounds(&plan, idfs[position], &blocks).into(),
                        blocks: Arc::new(blocks),
                    }
                })
                .collect();
            let mut loads = 0;
            let mut stats = TopKStats::default();
            let found = top_k(
                &plan,
                term_lists,
                &filter,
                |n| Some(hash(n)),
                &mut |position, _index, first| {
                    loads += 1;
                    stored
                        .remove(&(position, first))
                        .expect("loaded once")
                        .into()
                },
                &mut stats,
            );
            assert_eq!(stats.blocks_decoded, loads, "round {round}");
            assert_eq!(found, expected, "round {round}");
            skipped_loads += stored.len();
            total_loads += loads;
        }
        // The bounds let many blocks go unread.
        assert!(
            total_loads > 0 && skipped_loads > 0,
            "{total_loads} {skipped_loads}"
        );
    }
}
