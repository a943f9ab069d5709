//! `tandem-index-bench`: figures of the project index on a real repository none of us wrote,
//! the sources of tokio 1.54.1, hyper 1.12.0 and axum 0.8.9 from the cargo registry (fetched
//! with `cargo fetch` into `~/.cargo/registry` when missing), copied side by side into a
//! temporary directory. Prints cold lexical index time, no-change and one-changed-file refresh,
//! query latency p50 (lexical and hybrid), local embedding throughput, cold hybrid time, the
//! one-changed-file refresh with its chunks re-embedded, and
//! recall@1 / recall@8 / MRR of lexical, hybrid and a grep-like baseline over
//! `bench/eval-tokio-hyper-axum.jsonl`.
//!
//! Run: `cargo run --release -p tandem-index --bin tandem-index-bench [-- --skip-embeddings]`
//! with the local model installed (`tandem index install-model`; `TANDEM_HOME` is honoured).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark prints its figures"
)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Deserialize;
use tandem_index::scan::Globs;
use tandem_index::{IndexSettings, QueryRequest, RefreshRequest, no_progress};

const CRATES: [(&str, &str, &str); 3] = [
    ("tokio", "1.54.1", "tokio"),
    ("hyper", "1.12.0", "hyper"),
    ("axum", "0.8.9", "axum"),
];

#[derive(Deserialize)]
struct EvalQuery {
    kind: String,
    query: String,
    answers: Vec<String>,
}

fn main() {
    if let Err(error) = run() {
        eprintln!("tandem-index-bench: {error}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let skip_embeddings = std::env::args().any(|arg| arg == "--skip-embeddings");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let corpus = tempdir()?;
    prepare_corpus(&corpus)?;
    let (files, _) = tandem_index::scan::scan(
        &corpus,
        &corpus.join(".tandem"),
        &Globs::new(&[]).map_err(|e| e.to_string())?,
        u64::MAX,
        &tandem_index::stop::StopFlag::never(),
    )
    .map_err(|e| e.to_string())?;
    let bytes: u64 = files.iter().map(|file| file.size).sum();
    println!(
        "corpus: tokio 1.54.1 + hyper 1.12.0 + axum 0.8.9 from the cargo registry: {} files, {:.1} MB",
        files.len(),
        bytes as f64 / 1e6
    );
    let home = std::env::var_os("TANDEM_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".tandem")
        });
    let mut settings = IndexSettings::with_defaults(&home.join("models"));
    settings.embedding_model = "none".into();
    // One state for the whole run, as a server has: refreshes take turns, vectors and the
    // model are loaded once.
    let state = tandem_index::IndexState::default();
    let refresh = |force_full: bool, settings: &IndexSettings| {
        let request = RefreshRequest {
            repo_root: corpus.clone(),
            file_globs: None,
            require_embeddings: None,
            force_full,
            embedding_model: None,
        };
        let started = Instant::now();
        let outcome = runtime
            .block_on(tandem_index::refresh(
                &state,
                settings,
                request,
                no_progress(),
            ))
            .map_err(|e| e.to_string())?;
        Ok::<_, String>((started.elapsed(), outcome))
    };
    let (cold, outcome) = refresh(true, &settings)?;
    println!(
        "cold lexical index: {cold:.2?} ({} files, {} chunks)",
        outcome.stats.updated_files, outcome.stats.indexed_chunks
    );
    let mut no_change = Vec::new();
    for _ in 0..7 {
        no_change.push(refresh(false, &settings)?.0);
    }
    println!("no-change refresh: p50 {:.2?}", median(&mut no_change));
    let changed = corpus.join("tokio/src/sync/notify.rs");
    let mut one_change = Vec::new();
    for round in 0..5 {
        let mut text = std::fs::read_to_string(&changed).map_err(|e| e.to_string())?;
        text.push_str(&format!("\n// bench edit {round}\n"));
        std::fs::write(&changed, text).map_err(|e| e.to_string())?;
        let (elapsed, outcome) = refresh(false, &settings)?;
        assert_eq!(outcome.stats.updated_files, 1);
        one_change.push(elapsed);
    }
    println!(
        "one changed file refresh (lexical): p50 {:.2?}",
        median(&mut one_change)
    );

    let eval: Vec<EvalQuery> = include_str!("../../bench/eval-tokio-hyper-axum.jsonl")
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let index_dir = corpus.join(".tandem/repo_hybrid_index");
    let lexical_rankings = rankings(
        &state,
        &index_dir,
        &eval,
        None,
        &settings.embedding_model,
        0.0,
    )?;
    let mut rank_times = time_ranks(&state, &index_dir, &eval, None, "none", 0.0)?;
    println!(
        "lexical query (ranking only) p50: {:.2?}",
        median(&mut rank_times)
    );
    let mut call_times = Vec::new();
    for query in &eval {
        let request = QueryRequest {
            query: query.query.clone(),
            limit: Some(8),
            file_globs: None,
            alpha: Some(0.0),
            repo_root: corpus.clone(),
            embedding_model: None,
        };
        let started = Instant::now();
        runtime
            .block_on(tandem_index::query(
                &state,
                &settings,
                request,
                no_progress(),
            ))
            .map_err(|e| e.to_string())?;
        call_times.push(started.elapsed());
    }
    println!(
        "lexical query_project call (incremental refresh + ranking) p50: {:.2?}",
        median(&mut call_times)
    );
    let grep_rankings = grep_rankings(&corpus, &files, &eval);
    report("grep-like baseline", &eval, &grep_rankings);
    report("lexical (BM25)", &eval, &lexical_rankings);
    if skip_embeddings {
        return Ok(());
    }
    settings.embedding_model = tandem_index::embed::LOCAL_MODEL.into();
    let (embed_time, outcome) = refresh(false, &settings)?;
    if !outcome.embedding_status.ready {
        return Err(format!(
            "embeddings not ready: {:?}",
            outcome.embedding_status
        ));
    }
    println!(
        "local embeddings: {} chunks in {embed_time:.2?} = {:.1} chunks/s; cold hybrid index ≈ {:.2?}",
        outcome.stats.embedded_chunks,
        outcome.stats.embedded_chunks as f64 / embed_time.as_secs_f64(),
        cold + embed_time
    );
    let mut hybrid_change = Vec::new();
    let mut reembedded = 0;
    for round in 0..3 {
        let mut text = std::fs::read_to_string(&changed).map_err(|e| e.to_string())?;
        text.push_str(&format!("\n// bench edit with embeddings {round}\n"));
        std::fs::write(&changed, text).map_err(|e| e.to_string())?;
        let (elapsed, outcome) = refresh(false, &settings)?;
        assert_eq!(outcome.stats.updated_files, 1);
        reembedded = outcome.stats.embedded_chunks;
        hybrid_change.push(elapsed);
    }
    println!(
        "one changed file refresh (hybrid, its changed chunks re-embedded): p50 {:.2?} ({reembedded} chunks embedded per refresh)",
        median(&mut hybrid_change)
    );
    let provider = tandem_index::embed::resolve(
        tandem_index::embed::LOCAL_MODEL,
        &settings.embedding,
        state.models(),
    )
    .map_err(|e| e.detail)?;
    let mut vectors = Vec::new();
    let mut embed_times = Vec::new();
    for query in &eval {
        let started = Instant::now();
        let mut vector = runtime
            .block_on(provider.embed(std::slice::from_ref(&query.query)))?
            .pop()
            .unwrap_or_default();
        tandem_index::vectors::normalize(&mut vector);
        embed_times.push(started.elapsed());
        vectors.push(vector);
    }
    let embed_p50 = median(&mut embed_times);
    let mut hybrid_times = time_ranks(
        &state,
        &index_dir,
        &eval,
        Some(&vectors),
        tandem_index::embed::LOCAL_MODEL,
        0.6,
    )?;
    let hybrid_p50 = median(&mut hybrid_times);
    println!(
        "hybrid query p50: {:.2?} (query embedding {embed_p50:.2?} + ranking {hybrid_p50:.2?})",
        embed_p50 + hybrid_p50
    );
    let hybrid_rankings = rankings(
        &state,
        &index_dir,
        &eval,
        Some(&vectors),
        tandem_index::embed::LOCAL_MODEL,
        0.6,
    )?;
    report("hybrid (alpha 0.6)", &eval, &hybrid_rankings);
    let embedding_rankings = rankings(
        &state,
        &index_dir,
        &eval,
        Some(&vectors),
        tandem_index::embed::LOCAL_MODEL,
        1.0,
    )?;
    report("embedding only (alpha 1.0)", &eval, &embedding_rankings);
    let _ = std::fs::remove_dir_all(&corpus);
    Ok(())
}

fn rankings(
    state: &tandem_index::IndexState,
    index_dir: &Path,
    eval: &[EvalQuery],
    vectors: Option<&[Vec<f32>]>,
    model: &str,
    alpha: f64,
) -> Result<Vec<Vec<String>>, String> {
    let globs = Globs::new(&[]).map_err(|e| e.to_string())?;
    eval.iter()
        .enumerate()
        .map(|(index, query)| {
            let vector = vectors.map(|vectors| vectors[index].as_slice());
            let expression = tandem_index::tokenize::match_expression(&query.query, 64);
            let results = tandem_index::query::rank(
                state,
                index_dir,
                expression.as_deref(),
                model,
                vector,
                alpha,
                50,
                &globs,
                false,
            )
            .map_err(|e| e.to_string())?;
            let mut files: Vec<String> = Vec::new();
            for result in results {
                if !files.contains(&result.path) {
                    files.push(result.path);
                }
            }
            Ok(files)
        })
        .collect()
}

fn time_ranks(
    state: &tandem_index::IndexState,
    index_dir: &Path,
    eval: &[EvalQuery],
    vectors: Option<&[Vec<f32>]>,
    model: &str,
    alpha: f64,
) -> Result<Vec<Duration>, String> {
    let globs = Globs::new(&[]).map_err(|e| e.to_string())?;
    let mut times = Vec::new();
    for _ in 0..3 {
        for (index, query) in eval.iter().enumerate() {
            let vector = vectors.map(|vectors| vectors[index].as_slice());
            let started = Instant::now();
            let expression = tandem_index::tokenize::match_expression(&query.query, 64);
            tandem_index::query::rank(
                state,
                index_dir,
                expression.as_deref(),
                model,
                vector,
                alpha,
                8,
                &globs,
                false,
            )
            .map_err(|e| e.to_string())?;
            times.push(started.elapsed());
        }
    }
    Ok(times)
}

/// Ranks files by how often the query's terms occur in them (case-insensitive substring
/// counts), like `grep -c` per term summed.
fn grep_rankings(
    corpus: &Path,
    files: &[tandem_index::scan::ScannedFile],
    eval: &[EvalQuery],
) -> Vec<Vec<String>> {
    let texts: Vec<(String, String)> = files
        .iter()
        .filter_map(|file| {
            std::fs::read_to_string(corpus.join(&file.path))
                .ok()
                .map(|text| (file.path.clone(), text.to_lowercase()))
        })
        .collect();
    eval.iter()
        .map(|query| {
            let terms: Vec<String> = query
                .query
                .split(|c: char| !c.is_alphanumeric() && c != '_')
                .filter(|term| term.len() > 2)
                .map(str::to_lowercase)
                .collect();
            let mut scored: Vec<(usize, &String)> = texts
                .iter()
                .map(|(path, text)| {
                    (
                        terms
                            .iter()
                            .map(|term| text.matches(term.as_str()).count())
                            .sum(),
                        path,
                    )
                })
                .filter(|(count, _)| *count > 0)
                .collect();
            scored.sort_by(|left, right| right.0.cmp(&left.0).then(left.1.cmp(right.1)));
            scored
                .into_iter()
                .take(50)
                .map(|(_, path)| path.clone())
                .collect()
        })
        .collect()
}

fn report(label: &str, eval: &[EvalQuery], rankings: &[Vec<String>]) {
    for kind in ["identifier", "paraphrase", "all"] {
        let mut count = 0.0;
        let (mut at1, mut at8, mut mrr) = (0.0, 0.0, 0.0);
        for (query, ranking) in eval.iter().zip(rankings) {
            if kind != "all" && query.kind != kind {
                continue;
            }
            count += 1.0;
            if let Some(position) = ranking.iter().position(|path| query.answers.contains(path)) {
                mrr += 1.0 / (position as f64 + 1.0);
                if position == 0 {
                    at1 += 1.0;
                }
                if position < 8 {
                    at8 += 1.0;
                }
            }
        }
        println!(
            "{label:<28} {kind:<10} n={count:<3} recall@1 {:.2}  recall@8 {:.2}  MRR {:.3}",
            at1 / count,
            at8 / count,
            mrr / count
        );
    }
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

fn tempdir() -> Result<PathBuf, String> {
    let path = std::env::temp_dir().join(format!("tandem-index-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).map_err(|e| e.to_string())?;
    Ok(path)
}

/// Copies the three crates' sources (fetching them into the cargo registry if needed).
fn prepare_corpus(corpus: &Path) -> Result<(), String> {
    let registry = PathBuf::from(std::env::var_os("CARGO_HOME").unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
            .join(".cargo")
            .into_os_string()
    }))
    .join("registry/src");
    let find = |name: &str, version: &str| -> Option<PathBuf> {
        std::fs::read_dir(&registry)
            .ok()?
            .flatten()
            .map(|entry| entry.path().join(format!("{name}-{version}")))
            .find(|path| path.is_dir())
    };
    if CRATES
        .iter()
        .any(|(name, version, _)| find(name, version).is_none())
    {
        let project = corpus.join("fetch");
        std::fs::create_dir_all(project.join("src")).map_err(|e| e.to_string())?;
        let deps: String = CRATES
            .iter()
            .map(|(name, version, _)| format!("{name} = \"={version}\"\n"))
            .collect();
        std::fs::write(project.join("Cargo.toml"), format!("[package]\nname = \"fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n[dependencies]\n{deps}")).map_err(|e| e.to_string())?;
        std::fs::write(project.join("src/lib.rs"), "").map_err(|e| e.to_string())?;
        let status = std::process::Command::new("cargo")
            .arg("fetch")
            .current_dir(&project)
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err("cargo fetch of the benchmark corpus failed".into());
        }
        let _ = std::fs::remove_dir_all(&project);
    }
    let mut copied: HashMap<&str, PathBuf> = HashMap::new();
    for (name, version, directory) in CRATES {
        let source = find(name, version)
            .ok_or_else(|| format!("{name}-{version} is not in {}", registry.display()))?;
        let status = std::process::Command::new("cp")
            .arg("-r")
            .arg(&source)
            .arg(corpus.join(directory))
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("cannot copy {}", source.display()));
        }
        copied.insert(name, corpus.join(directory));
    }
    Ok(())
}
