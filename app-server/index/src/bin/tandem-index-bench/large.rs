//! `--dir PATH --changed FILE`: the speed figures of a large repository that has no question set
//! (Django 5.2.19 from its PyPI sdist, for one): cold lexical index, no-change and one-changed-file
//! refresh, lexical `query_project` call p50, then embedding throughput on a sample of
//! `--embed-sample N` chunks (default 128) spread over the index in the background job's length
//! order, extrapolated to the whole index, and the hybrid `query_project` call p50 (query
//! embedding included) over a full set of vectors: the sample's real vectors, repeated over the
//! chunks the sample did not cover (exact search costs the same whatever the values).

use std::path::Path;
use std::time::{Duration, Instant};

use tandem_index::query::Method;
use tandem_index::{IndexSettings, IndexState, RefreshRequest, no_progress};

use super::{append, copy, median, query_request, tempdir};

/// Questions timed on the large corpus (speed only: there are no answers to judge).
const QUERIES: [&str; 12] = [
    "QuerySet filter exclude annotate",
    "how are database migrations squashed into one",
    "CSRF token check in the middleware",
    "template variable lookup with dots",
    "password hashing with PBKDF2 iterations",
    "ModelForm save with commit false",
    "reverse a URL pattern by its name",
    "send an email with attachments",
    "split a long list of objects into pages",
    "cache key versioning",
    "signal receivers held by weak references",
    "convert an aware datetime to the current time zone",
];

pub(crate) fn run(
    source: &Path,
    changed: &str,
    embed_sample: usize,
    chunker: tandem_index::chunk::Chunker,
    skip_embeddings: bool,
) -> Result<(), String> {
    let root = tempdir("large")?;
    copy(source, &root.join("corpus"))?;
    let corpus = root.join("corpus");
    let outcome = measure(&corpus, changed, embed_sample, chunker, skip_embeddings);
    let _ = std::fs::remove_dir_all(&root);
    outcome
}

fn measure(
    corpus: &Path,
    changed: &str,
    embed_sample: usize,
    chunker: tandem_index::chunk::Chunker,
    skip_embeddings: bool,
) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let home = std::env::var_os("TANDEM_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".tandem")
        });
    let mut settings = IndexSettings::with_defaults(&home.join("models"));
    settings.embedding_model = "none".into();
    settings.chunker = chunker;
    let state = IndexState::default();
    let refresh = |force_full: bool| {
        let request = RefreshRequest {
            repo_root: corpus.to_path_buf(),
            file_globs: None,
            require_embeddings: None,
            force_full,
            embedding_model: None,
        };
        let started = Instant::now();
        let cpu_started = process_cpu();
        let outcome = runtime
            .block_on(tandem_index::refresh(
                &state,
                &settings,
                request,
                no_progress(),
            ))
            .map_err(|e| e.to_string())?;
        let cpu = process_cpu().saturating_sub(cpu_started);
        Ok::<_, String>((started.elapsed(), cpu, outcome))
    };
    let (cold, cold_cpu, outcome) = refresh(true)?;
    println!(
        "\n== {} ({chunker:?} chunks)\ncold lexical index: {cold:.2?}, process CPU {cold_cpu:.2?} ({} files, {} chunks)",
        corpus.display(),
        outcome.stats.updated_files,
        outcome.stats.indexed_chunks
    );
    let total_chunks = outcome.stats.indexed_chunks;
    let changed_text = std::fs::read_to_string(corpus.join(changed)).map_err(|e| e.to_string())?;
    for each in [
        tandem_index::chunk::Chunker::Lines,
        tandem_index::chunk::Chunker::Code,
    ] {
        let mut cpu = Vec::new();
        let mut count = 0;
        for _ in 0..5 {
            let started = thread_cpu();
            count = tandem_index::chunk::chunk_file(
                changed,
                &changed_text,
                settings.chunk_limits,
                each,
            )
            .len();
            cpu.push(thread_cpu().saturating_sub(started));
        }
        println!(
            "chunking {changed} ({} lines) with {each:?} chunks: {count} chunks, thread CPU p50 {:.2?}",
            changed_text.lines().count(),
            median(&mut cpu)
        );
    }
    let (mut no_change, mut no_change_cpu) = (Vec::new(), Vec::new());
    for _ in 0..9 {
        let (wall, cpu, _) = refresh(false)?;
        no_change.push(wall);
        no_change_cpu.push(cpu);
    }
    println!(
        "no-change refresh: p50 {:.2?} (process CPU p50 {:.2?})",
        median(&mut no_change),
        median(&mut no_change_cpu)
    );
    let changed = corpus.join(changed);
    let (mut one_change, mut one_change_cpu) = (Vec::new(), Vec::new());
    for round in 0..7 {
        append(&changed, &format!("\n# bench edit {round}\n"))?;
        let (elapsed, cpu, outcome) = refresh(false)?;
        if outcome.stats.updated_files != 1 {
            return Err(format!("expected one updated file: {:?}", outcome.stats));
        }
        one_change.push(elapsed);
        one_change_cpu.push(cpu);
    }
    println!(
        "one changed file refresh (lexical): p50 {:.2?} (process CPU p50 {:.2?})",
        median(&mut one_change),
        median(&mut one_change_cpu)
    );
    let calls = |settings: &IndexSettings, alpha: Option<f64>| {
        let mut times = Vec::new();
        let mut cpu = Vec::new();
        for _ in 0..3 {
            for query in QUERIES {
                let started = Instant::now();
                let cpu_started = process_cpu();
                runtime
                    .block_on(tandem_index::query(
                        &state,
                        settings,
                        query_request(corpus, query, alpha),
                        no_progress(),
                    ))
                    .map_err(|e| e.to_string())?;
                times.push(started.elapsed());
                cpu.push(process_cpu().saturating_sub(cpu_started));
            }
        }
        Ok::<_, String>((median(&mut times), median(&mut cpu)))
    };
    let (wall, cpu) = calls(&settings, Some(0.0))?;
    println!(
        "lexical query_project call (refresh from the watcher's changes + ranking) p50: {wall:.2?} (process CPU p50 {cpu:.2?})"
    );
    if skip_embeddings {
        return Ok(());
    }

    let model = tandem_index::embed::LOCAL_MODEL;
    let index_dir = tandem_index::index_dir(&settings, corpus);
    let provider = tandem_index::embed::resolve(model, &settings.embedding, state.models())
        .map_err(|e| e.detail)?;
    runtime.block_on(provider.embed(&["warm up".to_string()]))?;
    let mut store = tandem_index::store::Store::open(&index_dir).map_err(|e| e.to_string())?;
    let pending = store.pending_embeddings(model).map_err(|e| e.to_string())?;
    let step = (pending.len() / embed_sample.max(1)).max(1);
    let mut sample: Vec<&(String, String)> =
        pending.iter().step_by(step).take(embed_sample).collect();
    // The background job embeds in length order (less padding per batch).
    sample.sort_by_key(|(_, text)| text.len());
    let started = Instant::now();
    let mut vectors = Vec::new();
    for batch in sample.chunks(provider.batch_size()) {
        let texts: Vec<String> = batch.iter().map(|(_, text)| text.clone()).collect();
        for mut vector in runtime.block_on(provider.embed(&texts))? {
            tandem_index::vectors::normalize(&mut vector);
            vectors.push(tandem_index::vectors::quantize(&vector));
        }
    }
    let elapsed = started.elapsed();
    let rate = sample.len() as f64 / elapsed.as_secs_f64();
    println!(
        "local embeddings: {} sampled chunks in {elapsed:.2?} = {rate:.2} chunks/s; the {} distinct chunk texts would take about {:.0} s ({:.1} min) at that rate",
        sample.len(),
        pending.len(),
        pending.len() as f64 / rate,
        pending.len() as f64 / rate / 60.0
    );
    if vectors.is_empty() {
        return Err("no chunk to embed".into());
    }
    let filled: Vec<(String, tandem_index::vectors::QuantizedVector)> = pending
        .iter()
        .enumerate()
        .map(|(index, (hash, _))| (hash.clone(), vectors[index % vectors.len()].clone()))
        .collect();
    store
        .put_vectors(model, &filled)
        .map_err(|e| e.to_string())?;
    drop(store);
    let mut hybrid = settings.clone();
    hybrid.embedding_model = model.into();
    let mut embed_times = Vec::new();
    let mut query_vectors = Vec::new();
    for query in QUERIES {
        let started = Instant::now();
        let mut vector = runtime
            .block_on(provider.embed(&[query.to_string()]))?
            .pop()
            .unwrap_or_default();
        embed_times.push(started.elapsed());
        tandem_index::vectors::normalize(&mut vector);
        query_vectors.push(vector);
    }
    let embed_p50 = median(&mut embed_times);
    let globs = tandem_index::scan::Globs::new(&[]).map_err(|e| e.to_string())?;
    for method in [Method::Fusion, Method::Blend] {
        let mut cpu = Vec::new();
        for _ in 0..3 {
            for (query, vector) in QUERIES.iter().zip(&query_vectors) {
                let started = thread_cpu();
                let expression = tandem_index::tokenize::match_expression(query, 64);
                tandem_index::query::rank(
                    &state,
                    &index_dir,
                    expression.as_deref(),
                    model,
                    Some(vector),
                    &globs,
                    tandem_index::query::RankOptions {
                        alpha: 0.6,
                        limit: 8,
                        method,
                        partial: false,
                    },
                )
                .map_err(|e| e.to_string())?;
                cpu.push(thread_cpu().saturating_sub(started));
            }
        }
        println!(
            "hybrid ranking alone ({method:?}, vectors cached): thread CPU p50 {:.2?}",
            median(&mut cpu)
        );
    }
    for method in [Method::Fusion, Method::Blend] {
        hybrid.ranking = method;
        let (wall, cpu) = calls(&hybrid, None)?;
        println!(
            "hybrid query_project call ({method:?}, {total_chunks} chunks with vectors; refresh + query embedding + ranking) p50: {wall:.2?} (process CPU p50 {cpu:.2?}; query embedding alone p50 {embed_p50:.2?})"
        );
    }
    Ok(())
}

/// CPU time of this process so far (every thread): wall times on a machine shared with other
/// builds include the time the process waited for a core.
fn process_cpu() -> Duration {
    cpu_clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// CPU time of the calling thread so far.
fn thread_cpu() -> Duration {
    cpu_clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

fn cpu_clock(clock: libc::clockid_t) -> Duration {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid, writable timespec for the call's duration.
    let result = unsafe { libc::clock_gettime(clock, &mut time) };
    if result != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        time.tv_sec.max(0) as u64,
        time.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}
