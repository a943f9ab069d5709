//! Wiring of the history subsystem (`tandem-history`) into the binary: `[history]` config,
//! the `tandem history` CLI, the calls behind the `search` / `open` MCP tools
//! (`mcp/history_tools.rs`), and the background ingest after completed turns, which a search
//! waits for (`after_turn`).

mod after_turn;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use app_server_protocol::tables::ServerNotification;

use serde_json::Value;
use tandem_history::config::HistoryConfig;
use tandem_history::service::{
    HistoryService, OPEN_TOOL, OpenArgs, SEARCH_TOOL, SearchArgs, Verbosity, envelope,
    error_result, open_prose, search_prose,
};

use crate::cli::HistoryCommand;
use crate::history::after_turn::AfterTurnIngests;
use tandem_core::config::Config;
use tandem_core::engine::EventSink;
use tandem_core::principal::Principal;
use tandem_core::store::Store;

// History entries and threads name the local user alike: the owner of a rollout that records
// none is the local user in both.
const _: () = {
    let history = tandem_history::event::LOCAL_OWNER.as_bytes();
    let threads = tandem_core::principal::LOCAL_USER.as_bytes();
    assert!(history.len() == threads.len());
    let mut index = 0;
    while index < history.len() {
        assert!(history[index] == threads[index]);
        index += 1;
    }
};

/// A server's conversation history: the backend and the after-turn ingests queued on it. The
/// server connects one and shares it with every engine and session it builds; a search waits
/// for the ingests queued on this history only.
pub struct History {
    service: HistoryService,
    ingests: Arc<AfterTurnIngests>,
}

impl std::fmt::Debug for History {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("History")
            .field("service", &self.service)
            .finish_non_exhaustive()
    }
}

impl History {
    fn new(service: HistoryService) -> History {
        History {
            service,
            ingests: Arc::default(),
        }
    }

    /// The search and ingest service.
    pub fn service(&self) -> &HistoryService {
        &self.service
    }

    /// Blocks (on a blocking thread) until the after-turn ingests queued on this history so
    /// far have finished, for at most [`after_turn::SEARCH_WAIT`]: a search sent after
    /// `turn/completed` sees that turn.
    pub fn wait_for_after_turn_ingests(&self) {
        if !self.ingests.wait_for_queued(after_turn::SEARCH_WAIT) {
            tracing::debug!("history search: after-turn ingests still running; searching anyway");
        }
    }
}

/// The `[history]` table of the effective config.
pub fn load_config(config: &Config) -> anyhow::Result<HistoryConfig> {
    HistoryConfig::from_toml(&config.home, config.effective.get("history"))
        .map_err(|message| anyhow::anyhow!("invalid config: {message}"))
}

/// Connects the history backend for `tandem app-server` (fails on a bad `[history]` table or
/// an unreachable ClickHouse; the embedded index is opened by its first use).
pub fn connect(config: &Config) -> anyhow::Result<Arc<History>> {
    let history = load_config(config)?;
    let service = HistoryService::connect(history)
        .map_err(|error| anyhow::anyhow!("history backend unavailable: {error}"))?;
    Ok(Arc::new(History::new(service)))
}

/// Connects the history backend for `tandem mcp-server` unless `--tools` (already checked
/// against the tool registry) leaves both history tools out. Fails on a bad `[history]` table
/// or an unreachable backend.
pub fn connect_for_server(
    config: &Config,
    tools: Option<&[String]>,
) -> anyhow::Result<Option<Arc<History>>> {
    if let Some(tools) = tools
        && !tools
            .iter()
            .any(|tool| tool == SEARCH_TOOL || tool == OPEN_TOOL)
    {
        return Ok(None);
    }
    let history = load_config(config)?;
    let service = HistoryService::connect(history)
        .map_err(|error| anyhow::anyhow!("history backend unavailable: {error}"))?;
    Ok(Some(Arc::new(History::new(service))))
}

/// `search` for `caller`, on a blocking thread after the after-turn ingests queued so far: only
/// the entries of the caller's threads are searched. A failure is an `isError` result.
pub async fn search_tool(history: Arc<History>, args: SearchArgs, caller: &Principal) -> Value {
    let owner = caller.name().to_owned();
    on_blocking_thread(move || {
        history.wait_for_after_turn_ingests();
        match history.service().search(&args, &owner) {
            Ok(payload) => envelope(args.verbosity, &payload, || search_prose(&payload)),
            Err(error) => error_result(&error.to_string()),
        }
    })
    .await
}

/// `open` for `caller`, on a blocking thread: only an entry of the caller's threads is opened.
/// A failure is an `isError` result.
pub async fn open_tool(history: Arc<History>, args: OpenArgs, caller: &Principal) -> Value {
    let owner = caller.name().to_owned();
    on_blocking_thread(move || match history.service().open(&args, &owner) {
        Ok(payload) => envelope(args.verbosity, &payload, || open_prose(&payload)),
        Err(error) => error_result(&error.to_string()),
    })
    .await
}

async fn on_blocking_thread(call: impl FnOnce() -> Value + Send + 'static) -> Value {
    match tokio::task::spawn_blocking(call).await {
        Ok(result) => result,
        Err(error) => error_result(&format!("history call failed: {error}")),
    }
}

/// An [`EventSink`] that forwards every notification and, after each `turn/completed`,
/// ingests that thread's rollout on a blocking thread once the rollout appender has written
/// the turn's last lines (the turn never waits for it). The first ingest opens the index.
struct IngestingSink {
    inner: Arc<dyn EventSink>,
    history: Arc<History>,
    store: Arc<Store>,
}

/// Wraps `inner` so that completed turns are ingested in the background (when
/// `[history] auto_ingest` is on and the history backend is connected).
pub fn ingesting_sink(
    inner: Arc<dyn EventSink>,
    history: Option<&Arc<History>>,
    store: &Arc<Store>,
) -> Arc<dyn EventSink> {
    match history {
        Some(history) if history.service().config().auto_ingest => Arc::new(IngestingSink {
            inner,
            history: Arc::clone(history),
            store: Arc::clone(store),
        }),
        _ => inner,
    }
}

impl EventSink for IngestingSink {
    fn emit(
        &self,
        notification: ServerNotification,
    ) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        if let ServerNotification::TurnCompleted(completed) = &notification {
            let thread_id = completed.thread_id.clone();
            let history = Arc::clone(&self.history);
            let store = Arc::clone(&self.store);
            // Queued before the client hears of the turn's end, so that a search it sends
            // next waits for this ingest.
            let ticket = self.history.ingests.queue();
            tokio::task::spawn_blocking(move || {
                let _ticket = ticket;
                // The turn's last lines are queued on the rollout appender when the
                // notification goes out: read the file once they are written.
                store.wait_for_appends();
                let path = match store.find(&thread_id) {
                    Ok(Some(meta)) => meta.rollout_path,
                    Ok(None) => return,
                    Err(error) => {
                        tracing::warn!(%thread_id, "history ingest: {error}");
                        return;
                    }
                };
                match history.service().ingest_file(&path) {
                    Ok(report) => {
                        tracing::debug!(%thread_id, events = report.events, "history ingested")
                    }
                    Err(error) => tracing::warn!(%thread_id, "history ingest failed: {error}"),
                }
            });
        }
        self.inner.emit(notification)
    }
}

/// `tandem history …`, run by the local user: `search` and `open` see the local user's
/// threads.
#[allow(clippy::print_stdout, reason = "the CLI prints its results")]
pub fn run_cli(command: &HistoryCommand, overrides: &[String]) -> anyhow::Result<()> {
    let owner = Principal::local_user();
    let config = Config::load(None, overrides)?;
    let history = load_config(&config)?;
    let service = HistoryService::connect(history)
        .map_err(|error| anyhow::anyhow!("history backend unavailable: {error}"))?;
    match command {
        HistoryCommand::Ingest => {
            let report = service.ingest()?;
            println!(
                "ingested {} events from {} of {} rollout files ({} re-read, {} corrupt lines skipped) in {:.2} s; {} events indexed",
                report.events,
                report.files_read,
                report.files_seen,
                report.files_reset,
                report.corrupt_lines,
                report.elapsed.as_secs_f64(),
                service.backend()?.event_count()?,
            );
        }
        HistoryCommand::Search(args) => {
            let payload = service
                .search(
                    &SearchArgs {
                        query: args.query.clone(),
                        limit: args.limit,
                        min_score: None,
                        min_should_match: None,
                        session_id: args.session.clone(),
                        include_tool_events: Some(args.tools),
                        exclude_codex_mcp: None,
                        verbosity: Verbosity::Full,
                    },
                    owner.name(),
                )
                .map_err(|error| anyhow::anyhow!("{error}"))?;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&payload)?);
            } else {
                println!("{}", search_prose(&payload));
            }
        }
        HistoryCommand::Open(args) => {
            let payload = service
                .open(
                    &OpenArgs {
                        event_uid: args.event_uid.clone(),
                        before: args.before,
                        after: args.after,
                        verbosity: Verbosity::Full,
                    },
                    owner.name(),
                )
                .map_err(|error| anyhow::anyhow!("{error}"))?;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&payload)?);
            } else {
                println!("{}", open_prose(&payload));
            }
            if !payload.found {
                anyhow::bail!("no event {}", args.event_uid);
            }
        }
    }
    Ok(())
}
