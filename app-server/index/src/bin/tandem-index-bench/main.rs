//! `tandem-index-bench`: figures of the project index on two code bases none of us wrote, taken
//! from the package registries:
//!
//! - Rust: the sources of tokio 1.54.1, hyper 1.12.0 and axum 0.8.9 from the cargo registry
//!   (fetched with `cargo fetch` when missing), judged by `bench/eval-tokio-hyper-axum.jsonl`;
//! - Python: requests 2.32.3 and urllib3 2.2.3, the wheels from PyPI (`pip download`, cached
//!   under `$TMPDIR/tandem-index-bench-wheels`), judged by `bench/eval-requests-urllib3.jsonl`;
//! - Django 5.2.19 (Python, 29k chunks), its wheel from PyPI as well, judged by
//!   `bench/eval-django.jsonl`: only with `--corpus django`, embedding it takes half an hour or
//!   more on two cores (`--sample N` for a shorter run).
//!
//! Each corpus is copied into a temporary directory. Printed per corpus: cold lexical index
//! time, no-change and one-changed-file refresh, `query_project` call and ranking p50 (lexical);
//! then, with the local model, the first `query_project` on the cold corpus (which answers
//! before the embeddings are done), embedding throughput, the hybrid query p50, and recall@1,
//! recall@8 and MRR@8 of a grep-like baseline, lexical (BM25), vector, blend (alpha 0.6) and
//! reciprocal-rank fusion (alpha 0.6), per question kind (identifier, paraphrase) and overall.
//!
//! Run: `cargo run --release -p tandem-index --bin tandem-index-bench [-- OPTIONS]` with the
//! local model installed (`tandem index install-model`; `TANDEM_HOME` is honoured). Options:
//! `--skip-embeddings` (lexical figures only), `--corpus rust|python|django` (one corpus only; Django is never run otherwise),
//! `--sample N` (keep every N-th file that answers no question, for a shorter embedding run;
//! the figures are then those of the sample), `--throughput N` (only the embedding throughput
//! figures: N chunks of the corpus embedded by candle's BERT in index order and in length
//! order, then by this crate's forward pass in f32 and with int8 linear layers, each the median
//! of 3 rounds in a row, in chunks per wall-clock second and per CPU-second of the process,
//! with the model's FLOPs per chunk and this machine's measured f32 GEMM and int8 product
//! rates), `--forward int8|f32|candle` (the local model's forward pass for every other figure;
//! int8 is the default),
//! `--chunker code|lines` (code-aware chunks, the default, or line chunks everywhere),
//! `--dir PATH --changed FILE [--embed-sample N]` (speed figures only, of any directory: see
//! `large.rs`).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark prints its figures"
)]

mod large;
mod throughput;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Deserialize;
use tandem_index::embed::local::Implementation;
use tandem_index::query::{Method, RankOptions};
use tandem_index::scan::Globs;
use tandem_index::{IndexSettings, IndexState, QueryRequest, RefreshRequest, no_progress};

const RUST_CRATES: [(&str, &str); 3] =
    [("tokio", "1.54.1"), ("hyper", "1.12.0"), ("axum", "0.8.9")];
const PYTHON_WHEELS: [(&str, &str); 2] = [("requests", "2.32.3"), ("urllib3", "2.2.3")];
const DJANGO_WHEELS: [(&str, &str); 1] = [("django", "5.2.19")];

#[derive(Deserialize)]
struct EvalQuery {
    kind: String,
    query: String,
    answers: Vec<String>,
}

struct Options {
    skip_embeddings: bool,
    sample: usize,
    throughput: Option<usize>,
    chunker: tandem_index::chunk::Chunker,
    forward: Implementation,
}

fn main() {
    if let Err(error) = run() {
        eprintln!("tandem-index-bench: {error}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str| {
        args.iter()
            .position(|arg| arg == name)
            .and_then(|index| args.get(index + 1))
            .cloned()
    };
    let options = Options {
        skip_embeddings: args.iter().any(|arg| arg == "--skip-embeddings"),
        sample: value("--sample")
            .map(|text| text.parse::<usize>().map_err(|e| e.to_string()))
            .transpose()?
            .unwrap_or(1)
            .max(1),
        throughput: value("--throughput")
            .map(|text| text.parse::<usize>().map_err(|e| e.to_string()))
            .transpose()?,
        chunker: match value("--chunker").as_deref() {
            None | Some("code") => tandem_index::chunk::Chunker::Code,
            Some("lines") => tandem_index::chunk::Chunker::Lines,
            Some(other) => return Err(format!("--chunker: `{other}` is neither code nor lines")),
        },
        forward: match value("--forward").as_deref() {
            None | Some("int8") => Implementation::Int8,
            Some("f32") => Implementation::F32,
            Some("candle") => Implementation::Candle,
            Some(other) => {
                return Err(format!(
                    "--forward: `{other}` is none of int8, f32 and candle"
                ));
            }
        },
    };
    if let Some(dir) = value("--dir") {
        let changed = value("--changed").ok_or("--dir needs --changed FILE (relative)")?;
        let embed_sample = value("--embed-sample")
            .map(|text| text.parse::<usize>().map_err(|e| e.to_string()))
            .transpose()?
            .unwrap_or(128);
        return large::run(
            Path::new(&dir),
            &changed,
            embed_sample,
            options.chunker,
            options.skip_embeddings,
        );
    }
    let only = value("--corpus");
    if let Some(name) = only.as_deref()
        && !["rust", "python", "django"].contains(&name)
    {
        return Err(format!(
            "--corpus: `{name}` is none of rust, python and django"
        ));
    }
    if only.as_deref().is_none_or(|name| name == "rust") {
        let eval = load_eval(include_str!("../../../bench/eval-tokio-hyper-axum.jsonl"))?;
        let corpus = tempdir("rust")?;
        prepare_rust(&corpus)?;
        bench(
            "tokio 1.54.1 + hyper 1.12.0 + axum 0.8.9 (Rust)",
            &corpus,
            "tokio/src/sync/notify.rs",
            &eval,
            &options,
        )?;
        let _ = std::fs::remove_dir_all(&corpus);
    }
    if only.as_deref().is_none_or(|name| name == "python") {
        let eval = load_eval(include_str!("../../../bench/eval-requests-urllib3.jsonl"))?;
        let corpus = tempdir("python")?;
        prepare_wheels(&corpus, &PYTHON_WHEELS)?;
        bench(
            "requests 2.32.3 + urllib3 2.2.3 (Python)",
            &corpus,
            "requests/sessions.py",
            &eval,
            &options,
        )?;
        let _ = std::fs::remove_dir_all(&corpus);
    }
    // Django only when asked for: embedding its 29k chunks takes half an hour or more.
    if only.as_deref() == Some("django") {
        let eval = load_eval(include_str!("../../../bench/eval-django.jsonl"))?;
        let corpus = tempdir("django")?;
        prepare_wheels(&corpus, &DJANGO_WHEELS)?;
        bench(
            "Django 5.2.19 (Python)",
            &corpus,
            "django/db/models/query.py",
            &eval,
            &options,
        )?;
        let _ = std::fs::remove_dir_all(&corpus);
    }
    Ok(())
}

fn load_eval(text: &str) -> Result<Vec<EvalQuery>, String> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| serde_json::from_str(line).map_err(|e| e.to_string()))
        .collect()
}

fn bench(
    label: &str,
    corpus: &Path,
    changed: &str,
    eval: &[EvalQuery],
    options: &Options,
) -> Result<(), String> {
    sample(corpus, eval, options.sample)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let all = Globs::new(&[]).map_err(|e| e.to_string())?;
    let (files, _) = tandem_index::scan::scan(
        corpus,
        &corpus.join(".tandem"),
        &all,
        u64::MAX,
        &tandem_index::stop::StopFlag::never(),
    )
    .map_err(|e| e.to_string())?;
    let bytes: u64 = files.iter().map(|file| file.size).sum();
    let sampled = if options.sample > 1 {
        format!(" (every {}th file besides the answers)", options.sample)
    } else {
        String::new()
    };
    println!(
        "\n== {label}{sampled}: {} files, {:.1} MB, {} questions",
        files.len(),
        bytes as f64 / 1e6,
        eval.len()
    );
    let home = std::env::var_os("TANDEM_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".tandem")
        });
    let mut settings = IndexSettings::with_defaults(&home.join("models"));
    settings.embedding_model = "none".into();
    settings.chunker = options.chunker;
    settings.embedding.local_implementation = options.forward;
    // One state for the whole run, as a server has.
    let state = IndexState::default();
    let refresh = |force_full: bool, settings: &IndexSettings| {
        let request = RefreshRequest {
            repo_root: corpus.to_path_buf(),
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
    if let Some(count) = options.throughput {
        let index_dir = tandem_index::index_dir(&settings, corpus);
        return runtime.block_on(throughput::run(&state, &settings, &index_dir, count));
    }
    let mut no_change = Vec::new();
    for _ in 0..7 {
        no_change.push(refresh(false, &settings)?.0);
    }
    println!("no-change refresh: p50 {:.2?}", median(&mut no_change));
    let changed = corpus.join(changed);
    let mut one_change = Vec::new();
    for round in 0..5 {
        append(&changed, &format!("\n# bench edit {round}\n"))?;
        let (elapsed, outcome) = refresh(false, &settings)?;
        if outcome.stats.updated_files != 1 {
            return Err(format!("expected one updated file: {:?}", outcome.stats));
        }
        one_change.push(elapsed);
    }
    println!(
        "one changed file refresh (lexical): p50 {:.2?}",
        median(&mut one_change)
    );
    let index_dir = tandem_index::index_dir(&settings, corpus);
    let lexical_options = RankOptions {
        alpha: 0.0,
        limit: 50,
        method: Method::Blend,
        partial: false,
    };
    let lexical_rankings = rankings(&state, &index_dir, eval, None, "none", lexical_options)?;
    let mut rank_times = time_ranks(&state, &index_dir, eval, None, "none", lexical_options)?;
    println!(
        "lexical query (ranking only) p50: {:.2?}",
        median(&mut rank_times)
    );
    let mut call_times = Vec::new();
    for query in eval {
        let started = Instant::now();
        runtime
            .block_on(tandem_index::query(
                &state,
                &settings,
                query_request(corpus, &query.query, Some(0.0)),
                no_progress(),
            ))
            .map_err(|e| e.to_string())?;
        call_times.push(started.elapsed());
    }
    println!(
        "lexical query_project call (refresh from the watcher's changes + ranking) p50: {:.2?}",
        median(&mut call_times)
    );
    let grep_rankings = grep_rankings(corpus, &files, eval);
    report("grep-like baseline", eval, &grep_rankings);
    report("lexical (BM25)", eval, &lexical_rankings);
    if options.skip_embeddings {
        return Ok(());
    }

    // Embeddings, in an index of their own so that the first query meets a cold corpus.
    let mut hybrid = settings;
    hybrid.embedding_model = tandem_index::embed::LOCAL_MODEL.into();
    hybrid.index_dir = PathBuf::from(".tandem/bench_hybrid");
    let provider = tandem_index::embed::resolve(
        tandem_index::embed::LOCAL_MODEL,
        &hybrid.embedding,
        state.models(),
    )
    .map_err(|e| e.detail)?;
    // Load the model before timing (a server loads it once, on its first embedding).
    runtime.block_on(provider.embed(&["warm up".to_string()]))?;
    let started = Instant::now();
    let first = runtime
        .block_on(tandem_index::query(
            &state,
            &hybrid,
            query_request(corpus, &eval[0].query, None),
            no_progress(),
        ))
        .map_err(|e| e.to_string())?;
    let first_time = started.elapsed();
    println!(
        "first query_project on the cold corpus: {first_time:.2?} ({} results, embedding_status {})",
        first.results.len(),
        serde_json::to_string(&first.embedding_status).unwrap_or_default()
    );
    let (embed_time, outcome) = refresh(false, &hybrid)?;
    let total = outcome.stats.indexed_chunks;
    let elapsed = started.elapsed();
    println!(
        "local embeddings: {total} chunks in {:.2?} after the first query answered = {:.1} chunks/s (the refresh waited {embed_time:.2?}); cold hybrid index {elapsed:.2?}",
        elapsed - first_time,
        total as f64 / (elapsed - first_time).as_secs_f64()
    );
    let hybrid_dir = tandem_index::index_dir(&hybrid, corpus);
    let mut vectors = Vec::new();
    let mut embed_times = Vec::new();
    for query in eval {
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
    let model = tandem_index::embed::LOCAL_MODEL;
    let with = |alpha: f64, method: Method| RankOptions {
        alpha,
        limit: 50,
        method,
        partial: false,
    };
    for method in [Method::Blend, Method::Fusion] {
        let mut times = time_ranks(
            &state,
            &hybrid_dir,
            eval,
            Some(&vectors),
            model,
            with(0.6, method),
        )?;
        let ranking = median(&mut times);
        println!(
            "hybrid query p50 ({method:?}): {:.2?} (query embedding {embed_p50:.2?} + ranking {ranking:.2?})",
            embed_p50 + ranking
        );
    }
    for (label, options) in [
        ("vector (alpha 1.0)", with(1.0, Method::Blend)),
        ("blend (alpha 0.6)", with(0.6, Method::Blend)),
        ("fusion (RRF, alpha 0.6)", with(0.6, Method::Fusion)),
    ] {
        let ranked = rankings(&state, &hybrid_dir, eval, Some(&vectors), model, options)?;
        report(label, eval, &ranked);
    }
    Ok(())
}

fn query_request(corpus: &Path, query: &str, alpha: Option<f64>) -> QueryRequest {
    QueryRequest {
        query: query.to_string(),
        limit: Some(8),
        file_globs: None,
        alpha,
        repo_root: corpus.to_path_buf(),
        embedding_model: None,
    }
}

fn append(path: &Path, text: &str) -> Result<(), String> {
    let mut contents = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    contents.push_str(text);
    std::fs::write(path, contents).map_err(|e| e.to_string())
}

/// Ranked distinct files of every question.
fn rankings(
    state: &IndexState,
    index_dir: &Path,
    eval: &[EvalQuery],
    vectors: Option<&[Vec<f32>]>,
    model: &str,
    options: RankOptions,
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
                &globs,
                options,
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
    state: &IndexState,
    index_dir: &Path,
    eval: &[EvalQuery],
    vectors: Option<&[Vec<f32>]>,
    model: &str,
    options: RankOptions,
) -> Result<Vec<Duration>, String> {
    let globs = Globs::new(&[]).map_err(|e| e.to_string())?;
    let options = RankOptions {
        limit: 8,
        ..options
    };
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
                &globs,
                options,
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

/// Prints recall@1, recall@8 and MRR@8 (a file ranked below 8 counts 0) per question kind.
fn report(label: &str, eval: &[EvalQuery], rankings: &[Vec<String>]) {
    for kind in ["identifier", "paraphrase", "all"] {
        let mut count = 0.0;
        let (mut at1, mut at8, mut mrr) = (0.0, 0.0, 0.0);
        for (query, ranking) in eval.iter().zip(rankings) {
            if kind != "all" && query.kind != kind {
                continue;
            }
            count += 1.0;
            if let Some(position) = ranking.iter().position(|path| query.answers.contains(path))
                && position < 8
            {
                mrr += 1.0 / (position as f64 + 1.0);
                at8 += 1.0;
                if position == 0 {
                    at1 += 1.0;
                }
            }
        }
        println!(
            "| {label:<24} | {kind:<10} | {count:>3} | {:.2} | {:.2} | {:.3} |",
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

fn tempdir(name: &str) -> Result<PathBuf, String> {
    let path =
        std::env::temp_dir().join(format!("tandem-index-bench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).map_err(|e| e.to_string())?;
    Ok(path)
}

/// Keeps every `every`-th file that answers no question (all of them when `every` is 1).
fn sample(corpus: &Path, eval: &[EvalQuery], every: usize) -> Result<(), String> {
    if every <= 1 {
        return Ok(());
    }
    let all = Globs::new(&[]).map_err(|e| e.to_string())?;
    let (files, _) = tandem_index::scan::scan(
        corpus,
        &corpus.join(".tandem"),
        &all,
        u64::MAX,
        &tandem_index::stop::StopFlag::never(),
    )
    .map_err(|e| e.to_string())?;
    let answers: Vec<&String> = eval.iter().flat_map(|query| &query.answers).collect();
    for (index, file) in files
        .iter()
        .filter(|file| !answers.contains(&&file.path))
        .enumerate()
    {
        if index % every != 0 {
            std::fs::remove_file(&file.absolute).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

fn copy(source: &Path, destination: &Path) -> Result<(), String> {
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(source)
        .arg(destination)
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("cannot copy {}", source.display()));
    }
    Ok(())
}

/// Copies the three crates' sources (fetching them into the cargo registry if needed).
fn prepare_rust(corpus: &Path) -> Result<(), String> {
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
    if RUST_CRATES
        .iter()
        .any(|(name, version)| find(name, version).is_none())
    {
        let project = corpus.join("fetch");
        std::fs::create_dir_all(project.join("src")).map_err(|e| e.to_string())?;
        let deps: String = RUST_CRATES
            .iter()
            .map(|(name, version)| format!("{name} = \"={version}\"\n"))
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
    for (name, version) in RUST_CRATES {
        let source = find(name, version)
            .ok_or_else(|| format!("{name}-{version} is not in {}", registry.display()))?;
        copy(&source, &corpus.join(name))?;
    }
    Ok(())
}

/// Unpacks the two wheels' packages (downloading them with `pip download` if needed).
/// Unpacks the packages of `list` (name, version) from their PyPI wheels into `corpus`.
fn prepare_wheels(corpus: &Path, list: &[(&str, &str)]) -> Result<(), String> {
    let wheels = std::env::temp_dir().join("tandem-index-bench-wheels");
    std::fs::create_dir_all(&wheels).map_err(|e| e.to_string())?;
    for (name, version) in list {
        let wheel = wheels.join(format!("{name}-{version}-py3-none-any.whl"));
        if !wheel.is_file() {
            let status = std::process::Command::new("pip")
                .args(["download", "--no-deps", "--only-binary", ":all:", "-d"])
                .arg(&wheels)
                .arg(format!("{name}=={version}"))
                .status()
                .map_err(|e| format!("pip: {e}"))?;
            if !status.success() || !wheel.is_file() {
                return Err(format!("pip download of {name} {version} failed"));
            }
        }
        let file = std::fs::File::open(&wheel).map_err(|e| e.to_string())?;
        let mut archive = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
        for index in 0..archive.len() {
            let mut entry = archive.by_index(index).map_err(|e| e.to_string())?;
            let Some(relative) = entry.enclosed_name() else {
                continue;
            };
            if !relative.starts_with(name) || entry.is_dir() {
                continue;
            }
            let destination = corpus.join(relative);
            if let Some(parent) = destination.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            let mut out = std::fs::File::create(&destination).map_err(|e| e.to_string())?;
            std::io::copy(&mut entry, &mut out).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
