//! `query_project`: validate, refresh incrementally, then rank chunks by BM25 and cosine
//! similarity (over the chunks embedded so far), combined by reciprocal-rank fusion (the
//! default) or an `alpha`-weighted blend of scores ([`Method`]).
//!
//! Normalisation: a candidate's lexical score is its BM25 score divided by the best BM25 score
//! among the candidates (so the best lexical match is 1.0 and a chunk without a matching term is
//! 0.0); its embedding score is its cosine similarity min-max scaled over the candidates (the
//! best is 1.0, the worst 0.0). The result's `score` is `(1 − alpha) × lexical + alpha ×
//! embedding`; without embeddings it is the lexical score alone. Candidates are the best
//! `max(4 × limit, 50)` chunks of each ranking.
//!
//! Reciprocal-rank fusion (RRF) uses ranks instead of scores: a candidate at 1-based rank `r_l`
//! in the lexical list and `r_e` in the embedding list scores `(1 − alpha) / (60 + r_l) + alpha /
//! (60 + r_e)`, a list it is absent from adding nothing, divided by `1 / 61` so that the best
//! possible score is 1. Both methods break ties by chunk id, so a ranking is deterministic.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use crate::embed::{self, EmbeddingProvider};
use crate::refresh::{CachedVectors, IndexState};
use crate::scan::Globs;
use crate::stop::blocking;
use crate::store::Store;
use crate::vectors::{self, VectorMatrix};
use crate::{EmbeddingStatus, IndexError, IndexSettings, ProgressSink, RefreshStats};

/// How lexical and embedding rankings are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// `(1 − alpha) × lexical + alpha × embedding`, each score normalised over the candidates.
    Blend,
    /// Weighted reciprocal-rank fusion (`k = 60`): the default, since it scored higher over the
    /// bench's 62 questions (`docs/index-evaluation.md`).
    #[default]
    Fusion,
}

/// The `k` of reciprocal-rank fusion.
const RRF_K: f64 = 60.0;

/// How [`rank`] ranks.
#[derive(Debug, Clone, Copy)]
pub struct RankOptions {
    /// Weight of the embedding ranking (0.0..=1.0).
    pub alpha: f64,
    /// Results wanted.
    pub limit: usize,
    /// How the two rankings are combined.
    pub method: Method,
    /// Whether the background job has not embedded every chunk yet: a candidate without a vector
    /// is then scored by its lexical side alone.
    pub partial: bool,
}

/// Most results a query returns.
pub const MAX_LIMIT: usize = 200;
/// Results when the call names no `limit`.
pub const DEFAULT_LIMIT: usize = 8;
/// Longest snippet, in bytes (cut at a line end).
const MAX_SNIPPET_BYTES: usize = 4000;

/// Arguments of `query_project`.
#[derive(Debug, Clone)]
pub struct QueryRequest {
    /// What to find.
    pub query: String,
    /// Results wanted (clamped to 1..=200; `None`: 8).
    pub limit: Option<i64>,
    /// Include globs (`None`: the configured ones).
    pub file_globs: Option<Vec<String>>,
    /// Blend (`None`: the configured default); must be within 0..=1.
    pub alpha: Option<f64>,
    /// Repository root.
    pub repo_root: PathBuf,
    /// Model override.
    pub embedding_model: Option<String>,
}

/// One ranked snippet.
#[derive(Debug, Clone, Serialize)]
pub struct QueryResult {
    /// Path relative to the repository root.
    pub path: String,
    /// Lines of the snippet (1-based, inclusive).
    pub line_range: LineRange,
    /// The chunk's text.
    pub snippet: String,
    /// Blended score (higher is better).
    pub score: f64,
}

/// A 1-based inclusive line range.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LineRange {
    /// First line.
    pub start: usize,
    /// Last line.
    pub end: usize,
}

/// The `query_project` payload.
#[derive(Debug, Clone, Serialize)]
pub struct QueryOutcome {
    /// The canonical repository root.
    pub repo_root: String,
    /// The query.
    pub query: String,
    /// The effective limit.
    pub limit: usize,
    /// The effective alpha.
    pub alpha: f64,
    /// The embedding model.
    pub embedding_model: String,
    /// Whether embeddings were used.
    pub embedding_status: EmbeddingStatus,
    /// The incremental refresh done first.
    pub refresh: RefreshStats,
    /// Best first.
    pub results: Vec<QueryResult>,
}

/// Answers a query, refreshing first and caching the vectors under `state`.
pub async fn query(
    state: &IndexState,
    settings: &IndexSettings,
    request: QueryRequest,
    progress: ProgressSink,
) -> Result<QueryOutcome, IndexError> {
    // Over-long queries are cut and their terms capped, so that a query of any size is
    // planned and parsed in moments (a whole book as one FTS5 expression takes minutes).
    let text = truncate_to_boundary(request.query.trim(), settings.max_query_bytes).to_string();
    if text.is_empty() {
        return Err(IndexError::InvalidInput("query must not be empty".into()));
    }
    let alpha = request.alpha.unwrap_or(settings.default_alpha);
    if !(0.0..=1.0).contains(&alpha) || alpha.is_nan() {
        return Err(IndexError::InvalidInput(format!(
            "alpha must be between 0.0 and 1.0, got {alpha}"
        )));
    }
    let limit = request
        .limit
        .unwrap_or(DEFAULT_LIMIT as i64)
        .clamp(1, MAX_LIMIT as i64) as usize;
    let repo_root = crate::resolve_repo_root(&request.repo_root)?;
    let model = request
        .embedding_model
        .clone()
        .unwrap_or_else(|| settings.embedding_model.clone());
    let globs = request
        .file_globs
        .clone()
        .unwrap_or_else(|| settings.file_globs.clone());
    let compiled_globs = Globs::new(&globs)?;
    let required = settings.require_embeddings;
    let provider = if (alpha == 0.0 || model == embed::NO_MODEL) && !required {
        Ok(None)
    } else {
        embed::resolve(&model, &settings.embedding, state.models()).map(Some)
    };
    if required && let Err(not_ready) = &provider {
        return Err(IndexError::EmbeddingsRequired {
            reason: not_ready.reason,
            detail: not_ready.detail.clone(),
        });
    }
    let usable_provider = provider.as_ref().ok().and_then(Option::clone);
    let (refresh, mut status) = crate::refresh::refresh_resolved(
        state, settings, &repo_root, &globs, false, provider, required, false, progress,
    )
    .await?;
    // While the background job embeds, the chunks it has done already take part.
    let partial = !status.ready;
    let some_vectors = status.ready
        || status
            .progress
            .is_some_and(|progress| progress.embedded_chunks > 0);
    let query_vector = match (&usable_provider, some_vectors) {
        (Some(provider), true) => match embed_query(provider.as_ref(), &text).await {
            Ok(vector) => Some(vector),
            Err(detail) if !required => {
                status = EmbeddingStatus::skipped(Some("embedding_query_failed"), Some(detail));
                None
            }
            Err(detail) => {
                return Err(IndexError::EmbeddingsRequired {
                    reason: "embedding_query_failed",
                    detail,
                });
            }
        },
        _ => None,
    };
    let index_dir = crate::index_dir(settings, &repo_root);
    let expression = crate::tokenize::match_expression(&text, settings.max_query_terms);
    let results = {
        let model = model.clone();
        let state = state.clone();
        let settings = settings.clone();
        blocking(move |_| {
            rank(
                &state,
                &index_dir,
                expression.as_deref(),
                &model,
                query_vector.as_deref(),
                &compiled_globs,
                RankOptions {
                    alpha,
                    limit,
                    method: settings.ranking,
                    partial,
                },
            )
        })
        .await?
    };
    Ok(QueryOutcome {
        repo_root: repo_root.display().to_string(),
        query: text,
        limit,
        alpha,
        embedding_model: model,
        embedding_status: status,
        refresh,
        results,
    })
}

async fn embed_query(provider: &dyn EmbeddingProvider, text: &str) -> Result<Vec<f32>, String> {
    let mut vectors = provider.embed(&[text.to_string()]).await?;
    let mut vector = vectors
        .pop()
        .ok_or_else(|| "the embedding provider returned no vector".to_string())?;
    vectors::normalize(&mut vector);
    Ok(vector)
}

/// Ranks the chunks of the index at `index_dir` (blocking): `expression` is the FTS5 match
/// expression of the query's terms ([`crate::tokenize::match_expression`]), `None` when it has
/// none. The vectors are cached under `state`. With `options.partial` (the background job has
/// not embedded every chunk yet), a candidate without a vector is scored by its lexical side
/// alone instead of counting its missing embedding side as 0.
pub fn rank(
    state: &IndexState,
    index_dir: &std::path::Path,
    expression: Option<&str>,
    model: &str,
    query_vector: Option<&[f32]>,
    globs: &Globs,
    options: RankOptions,
) -> Result<Vec<QueryResult>, IndexError> {
    let RankOptions {
        alpha,
        limit,
        method,
        partial,
    } = options;
    let store = Store::open(index_dir)?;
    let pool = (limit * 4).max(50);
    let lexical_pool = if globs.is_all() { pool } else { pool * 8 };
    let mut lexical = match expression {
        Some(expression) => store.lexical(expression, lexical_pool)?,
        None => Vec::new(),
    };
    // The best `pool` chunks by embedding, best first: chosen by the approximate (int8 query)
    // scan of every vector, then scored exactly, as every other candidate is.
    let mut embedding_top: Vec<(i64, f32)> = Vec::new();
    let mut matrix = None;
    if let Some(query_vector) = query_vector {
        let cached = cached_vectors(state, &store, index_dir, model)?;
        let mut approximate = cached.matrix.approximate_scores(query_vector);
        if !globs.is_all() {
            approximate
                .retain(|(id, _)| cached.paths.get(id).is_some_and(|path| globs.matches(path)));
        }
        if approximate.len() > pool {
            approximate.select_nth_unstable_by(pool, |left, right| right.1.total_cmp(&left.1));
            approximate.truncate(pool);
        }
        embedding_top = approximate
            .into_iter()
            .filter_map(|(id, _)| {
                let row = cached.matrix.row(id)?;
                Some((id, cached.matrix.score(row, query_vector)))
            })
            .collect();
        embedding_top
            .sort_unstable_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
        matrix = Some(cached.matrix);
    }
    let embedding_score = |id: &i64| {
        let (matrix, query_vector) = (matrix.as_ref()?, query_vector?);
        Some(matrix.score(matrix.row(*id)?, query_vector))
    };
    let mut candidate_ids: Vec<i64> = lexical.iter().map(|(id, _)| *id).collect();
    candidate_ids.extend(embedding_top.iter().map(|(id, _)| *id));
    candidate_ids.sort_unstable();
    candidate_ids.dedup();
    let chunks = store.chunks(&candidate_ids)?;
    lexical.retain(|(id, _)| {
        chunks
            .get(id)
            .is_some_and(|chunk| globs.matches(&chunk.path))
    });
    lexical.truncate(pool);
    let lexical_scores: HashMap<i64, f64> = lexical.iter().copied().collect();
    let best_lexical = lexical
        .iter()
        .map(|(_, score)| *score)
        .fold(0.0f64, f64::max);
    let mut candidates: Vec<i64> = lexical.iter().map(|(id, _)| *id).collect();
    candidates.extend(embedding_top.iter().map(|(id, _)| *id));
    candidates.sort_unstable();
    candidates.dedup();
    let (low, high) = candidates
        .iter()
        .filter_map(embedding_score)
        .fold((f32::MAX, f32::MIN), |(low, high), score| {
            (low.min(score), high.max(score))
        });
    let lexical_ranks: HashMap<i64, usize> = lexical
        .iter()
        .enumerate()
        .map(|(rank, (id, _))| (*id, rank + 1))
        .collect();
    let embedding_ranks: HashMap<i64, usize> = embedding_top
        .iter()
        .enumerate()
        .map(|(rank, (id, _))| (*id, rank + 1))
        .collect();
    let reciprocal = |rank: Option<&usize>| rank.map_or(0.0, |rank| 1.0 / (RRF_K + *rank as f64));
    let mut scored: Vec<(i64, f64)> = candidates
        .into_iter()
        .map(|id| {
            if query_vector.is_some() && method == Method::Fusion {
                let lexical_side = reciprocal(lexical_ranks.get(&id));
                let embedding_side = match embedding_ranks.get(&id) {
                    Some(rank) => reciprocal(Some(rank)),
                    None if partial && embedding_score(&id).is_none() => lexical_side,
                    None => 0.0,
                };
                let fused = (1.0 - alpha) * lexical_side + alpha * embedding_side;
                return (id, fused * (RRF_K + 1.0));
            }
            let lexical = lexical_scores.get(&id).map_or(0.0, |score| {
                if best_lexical > 0.0 {
                    score / best_lexical
                } else {
                    0.0
                }
            });
            let score = if query_vector.is_some() {
                let embedding = match embedding_score(&id) {
                    Some(score) if high > low => f64::from((score - low) / (high - low)),
                    Some(_) => 1.0,
                    None if partial => lexical,
                    None => 0.0,
                };
                (1.0 - alpha) * lexical + alpha * embedding
            } else {
                lexical
            };
            (id, score)
        })
        .collect();
    scored.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
    scored.truncate(limit);
    Ok(scored
        .into_iter()
        .filter_map(|(id, score)| {
            let chunk = chunks.get(&id)?;
            Some(QueryResult {
                path: chunk.path.clone(),
                line_range: LineRange {
                    start: chunk.start_line,
                    end: chunk.end_line,
                },
                snippet: snippet(&chunk.text),
                score: (score * 10_000.0).round() / 10_000.0,
            })
        })
        .collect())
}

fn snippet(text: &str) -> String {
    let cut = truncate_to_boundary(text, MAX_SNIPPET_BYTES);
    if cut.len() == text.len() {
        return text.to_string();
    }
    match cut.rfind('\n') {
        Some(line_end) => cut[..line_end].to_string(),
        None => cut.to_string(),
    }
}

/// `text` cut to at most `max` bytes at a character boundary.
fn truncate_to_boundary(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

struct LoadedVectors {
    matrix: Arc<VectorMatrix>,
    paths: Arc<HashMap<i64, String>>,
}

fn cached_vectors(
    state: &IndexState,
    store: &Store,
    index_dir: &std::path::Path,
    model: &str,
) -> Result<LoadedVectors, IndexError> {
    let repo = state.repo(index_dir);
    let generation = store.generation()?;
    let mut cache = match repo.vectors.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some(cached) = cache.as_ref()
        && cached.model == model
        && cached.generation == generation
        && !cached.matrix.ids.is_empty()
    {
        return Ok(LoadedVectors {
            matrix: cached.matrix.clone(),
            paths: cached.paths.clone(),
        });
    }
    let matrix = Arc::new(VectorMatrix::new(store.vectors(model)?));
    let paths = Arc::new(store.chunk_paths()?);
    *cache = Some(CachedVectors {
        model: model.to_string(),
        generation,
        matrix: matrix.clone(),
        paths: paths.clone(),
    });
    Ok(LoadedVectors { matrix, paths })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::Chunk;
    use crate::stop::StopFlag;
    use crate::store::{FileUpdate, ManifestEntry};

    /// An index of three one-chunk files with hand-made vectors: `a.rs` is the best lexical
    /// match and third by vector, `b.rs` second lexically and the nearest vector, `c.rs` has no
    /// query term and is second by vector.
    fn index() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let index_dir = dir.path().join("index");
        crate::disk::prepare_index_dir(dir.path(), &index_dir).unwrap();
        let mut store = Store::open(&index_dir).unwrap();
        let files = [
            ("a.rs", "fn token token token() {}"),
            ("b.rs", "fn token() {} fn other() {}"),
            ("c.rs", "fn unrelated() {}"),
        ];
        let updates: Vec<FileUpdate> = files
            .iter()
            .map(|(path, text)| FileUpdate {
                path: (*path).into(),
                entry: ManifestEntry {
                    size: text.len() as u64,
                    mtime_ns: 0,
                    hash: (*path).into(),
                },
                chunks: vec![Chunk {
                    start_line: 1,
                    end_line: 1,
                    text: (*text).into(),
                    context: String::new(),
                }],
                touch_only: false,
            })
            .collect();
        store.apply(&[], &updates, &StopFlag::never()).unwrap();
        let vector = |values: [f32; 2]| {
            let mut vector = values.to_vec();
            vectors::normalize(&mut vector);
            vectors::quantize(&vector)
        };
        let hash = |text: &str| sha1_smol::Sha1::from(text.as_bytes()).digest().to_string();
        store
            .put_vectors(
                "m",
                &[
                    (hash(files[0].1), vector([0.2, 1.0])),
                    (hash(files[1].1), vector([1.0, 0.0])),
                    (hash(files[2].1), vector([1.0, 0.6])),
                ],
            )
            .unwrap();
        (dir, index_dir)
    }

    fn ranked(index_dir: &std::path::Path, method: Method, alpha: f64) -> Vec<(String, f64)> {
        let state = IndexState::default();
        let expression = crate::tokenize::match_expression("token", 64);
        rank(
            &state,
            index_dir,
            expression.as_deref(),
            "m",
            Some(&[1.0, 0.0]),
            &Globs::new(&[]).unwrap(),
            RankOptions {
                alpha,
                limit: 8,
                method,
                partial: false,
            },
        )
        .unwrap()
        .into_iter()
        .map(|result| (result.path, result.score))
        .collect()
    }

    #[test]
    fn fusion_ranks_by_weighted_reciprocal_ranks_and_both_methods_are_deterministic() {
        let (_dir, index_dir) = index();
        let fusion = ranked(&index_dir, Method::Fusion, 0.5);
        let paths: Vec<&str> = fusion.iter().map(|(path, _)| path.as_str()).collect();
        // b: 0.5/62 + 0.5/61; a: 0.5/61 + 0.5/63; c: 0.5/62 (no query term).
        assert_eq!(paths, vec!["b.rs", "a.rs", "c.rs"]);
        let expected_b = (0.5 / 62.0 + 0.5 / 61.0) * 61.0;
        assert!((fusion[0].1 - expected_b).abs() < 1e-4, "{fusion:?}");
        for method in [Method::Fusion, Method::Blend] {
            let first = ranked(&index_dir, method, 0.6);
            for _ in 0..3 {
                assert_eq!(ranked(&index_dir, method, 0.6), first, "{method:?}");
            }
        }
        // alpha 0 is lexical order whatever the method; alpha 1 is vector order.
        for method in [Method::Fusion, Method::Blend] {
            let lexical: Vec<String> = ranked(&index_dir, method, 0.0)
                .into_iter()
                .map(|(path, _)| path)
                .take(2)
                .collect();
            assert_eq!(lexical, vec!["a.rs", "b.rs"], "{method:?}");
            let vector: Vec<String> = ranked(&index_dir, method, 1.0)
                .into_iter()
                .map(|(path, _)| path)
                .collect();
            assert_eq!(vector, vec!["b.rs", "c.rs", "a.rs"], "{method:?}");
        }
    }
}
