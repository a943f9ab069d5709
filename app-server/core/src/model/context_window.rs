//! The context window of a model: from the models Tandem knows by slug, or from what the
//! provider's models endpoint reports.
//!
//! The window sets the default automatic compaction limit (see `engine/compaction.rs`).
//! OpenAI-compatible servers that report it do so in different fields of their
//! `GET {base_url}/models` entries: vLLM `max_model_len`, llama.cpp's server `meta.n_ctx_train`,
//! OpenRouter `context_length`, others `context_window`. When no entry reports the window the
//! server runs with, llama.cpp's server says it at `GET /props`
//! (`default_generation_settings.n_ctx`, the window of one request, set by its `--ctx-size`);
//! that comes before `meta.n_ctx_train`, the window the model was trained with, which the
//! server may not run with. llama-cpp-python's server answers neither (404 at `/props`).
//! [`ContextWindows`] fetches these once per client, in a background task, so that no caller
//! waits for them longer than it chooses to; a failed or empty answer is logged once and
//! means "unknown".

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::watch;

use crate::model::sse::HttpProvider;

/// A future returned by [`crate::model::ModelClient::context_window`].
pub type ContextWindowFuture = Pin<Box<dyn Future<Output = Option<u64>> + Send>>;

/// Context windows of the models the built-in providers list, in tokens.
const KNOWN_WINDOWS: &[(&str, u64)] = &[("gpt-5.1-codex", 272_000), ("gpt-5.1", 272_000)];

/// The fields of a models-endpoint entry that carry the window the server runs with, most
/// specific first.
const RUNNING_WINDOW_FIELDS: &[&[&str]] = &[
    &["context_window"],
    &["max_model_len"],
    &["context_length"],
    &["max_context_length"],
    &["meta", "n_ctx"],
];

/// The field of a models-endpoint entry (llama.cpp's server) that carries the window the model
/// was trained with: used when nothing says the window the server runs with.
const TRAINED_WINDOW_FIELDS: &[&[&str]] = &[&["meta", "n_ctx_train"]];

/// The fields of llama.cpp's `GET /props` answer that carry the window of one request: current
/// servers nest it in `default_generation_settings`, older ones put it at the top.
const PROPS_WINDOW_FIELDS: &[&[&str]] = &[&["default_generation_settings", "n_ctx"], &["n_ctx"]];

/// The context window of a model Tandem knows by its slug.
pub fn known_context_window(model: &str) -> Option<u64> {
    KNOWN_WINDOWS
        .iter()
        .find(|(slug, _)| *slug == model)
        .map(|(_, window)| *window)
}

/// The first positive integer at one of `fields` in `value`.
fn window_at(value: &Value, fields: &[&[&str]]) -> Option<u64> {
    fields.iter().find_map(|path| {
        path.iter()
            .try_fold(value, |value, key| value.get(key))
            .and_then(Value::as_u64)
            .filter(|window| *window > 0)
    })
}

/// Model id → the window at one of `fields` of its entry, for the entries that have one.
fn windows_at(entries: &[Value], fields: &[&[&str]]) -> HashMap<String, u64> {
    entries
        .iter()
        .filter_map(|entry| {
            let id = entry.get("id").and_then(Value::as_str)?;
            Some((id.to_string(), window_at(entry, fields)?))
        })
        .collect()
}

/// What a provider reports about its context windows.
#[derive(Debug, Default)]
pub struct ReportedWindows {
    /// Model id → the window the server runs it with, from its models-endpoint entry.
    running: HashMap<String, u64>,
    /// The window of the server's one model, from llama.cpp's `GET /props`.
    server: Option<u64>,
    /// Model id → the window the model was trained with (llama.cpp's `meta.n_ctx_train`).
    trained: HashMap<String, u64>,
}

impl ReportedWindows {
    /// The windows the entries of `GET /models` report.
    pub fn from_entries(entries: &[Value]) -> ReportedWindows {
        ReportedWindows {
            running: windows_at(entries, RUNNING_WINDOW_FIELDS),
            server: None,
            trained: windows_at(entries, TRAINED_WINDOW_FIELDS),
        }
    }

    /// Adds the window llama.cpp's `GET /props` answer reports, if any.
    pub fn with_props(mut self, props: &Value) -> ReportedWindows {
        self.server = window_at(props, PROPS_WINDOW_FIELDS);
        self
    }

    /// The window of `model`: the one its entry says it runs with, else the server's (which
    /// serves that model whatever it is called), else the one it was trained with.
    pub fn window(&self, model: &str) -> Option<u64> {
        self.running
            .get(model)
            .copied()
            .or(self.server)
            .or_else(|| self.trained.get(model).copied())
    }

    fn is_empty(&self) -> bool {
        self.running.is_empty() && self.server.is_none() && self.trained.is_empty()
    }
}

/// The result of the fetch: `None` while it runs.
type FetchReceiver = watch::Receiver<Option<Arc<ReportedWindows>>>;

/// The windows a provider reports, fetched at most once per client.
#[derive(Default)]
pub struct ContextWindows {
    /// `None` until the first lookup starts the fetch; then the fetch's result, `None` while
    /// it runs.
    fetch: Mutex<Option<FetchReceiver>>,
}

impl ContextWindows {
    /// Starts the fetch in the background unless it was started before.
    pub fn prefetch(&self, http: &Arc<HttpProvider>) {
        let _ = self.receiver(http);
    }

    /// The window the provider reports for `model`; resolves once the fetch is done (the
    /// caller bounds the wait), `None` when the fetch failed or the model reports none.
    pub fn lookup(&self, http: &Arc<HttpProvider>, model: &str) -> ContextWindowFuture {
        let receiver = self.receiver(http);
        let model = model.to_string();
        Box::pin(async move {
            let mut receiver = receiver?;
            let windows = receiver.wait_for(Option::is_some).await.ok()?.clone()?;
            windows.window(&model)
        })
    }

    fn receiver(&self, http: &Arc<HttpProvider>) -> Option<FetchReceiver> {
        let mut fetch = crate::sync::lock(&self.fetch);
        if let Some(receiver) = fetch.as_ref() {
            return Some(receiver.clone());
        }
        // Outside a runtime (never in the server) there is nothing to run the fetch on.
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let (sender, receiver) = watch::channel(None);
        let http = http.clone();
        runtime.spawn(async move {
            let windows = fetch_windows(&http).await;
            let _ = sender.send(Some(Arc::new(windows)));
        });
        *fetch = Some(receiver.clone());
        Some(receiver)
    }
}

/// Reads `GET /models`, then llama.cpp's `GET /props` when no entry says the window the server
/// runs with. Failures are logged and leave the windows unknown.
async fn fetch_windows(http: &HttpProvider) -> ReportedWindows {
    let windows = match http.fetch_model_entries().await {
        Ok(entries) => ReportedWindows::from_entries(&entries),
        Err(error) => {
            tracing::debug!(provider = %http.id(), %error, "cannot read the provider's models endpoint");
            ReportedWindows::default()
        }
    };
    let windows = if windows.running.is_empty() {
        match http.fetch_server_props().await {
            Ok(props) => windows.with_props(&props),
            Err(error) => {
                tracing::debug!(provider = %http.id(), %error, "the provider answers no llama.cpp `/props`");
                windows
            }
        }
    } else {
        windows
    };
    if windows.is_empty() {
        tracing::info!(provider = %http.id(), "the provider reports no context window (models endpoint, llama.cpp `/props`); no automatic compaction unless `model_context_window` or `model_auto_compact_token_limit` is set");
    }
    windows
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_the_window_from_each_known_field() {
        let entries = [
            json!({"id": "vllm", "max_model_len": 32768}),
            json!({"id": "llama.cpp", "meta": {"n_ctx_train": 8192, "n_vocab": 49152}}),
            json!({"id": "router", "context_length": 128000}),
            json!({"id": "generic", "context_window": 200000}),
            json!({"id": "both", "meta": {"n_ctx": 2048, "n_ctx_train": 8192}}),
            json!({"id": "none", "object": "model"}),
            json!({"id": "zero", "max_model_len": 0}),
            json!({"object": "model", "max_model_len": 1024}),
        ];
        let windows = ReportedWindows::from_entries(&entries);
        let found: Vec<(&str, Option<u64>)> = [
            "vllm",
            "llama.cpp",
            "router",
            "generic",
            "both",
            "none",
            "zero",
        ]
        .into_iter()
        .map(|model| (model, windows.window(model)))
        .collect();
        assert_eq!(
            found,
            [
                ("vllm", Some(32768)),
                ("llama.cpp", Some(8192)),
                ("router", Some(128000)),
                ("generic", Some(200000)),
                ("both", Some(2048)),
                ("none", None),
                ("zero", None),
            ]
        );
    }

    #[test]
    fn the_props_window_comes_before_the_trained_one_and_after_the_running_one() {
        let entries = [
            json!({"id": "served.gguf", "meta": {"n_ctx_train": 8192}}),
            json!({"id": "vllm", "max_model_len": 32768}),
        ];
        let props = json!({"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1});
        let windows = ReportedWindows::from_entries(&entries).with_props(&props);
        assert_eq!(windows.window("served.gguf"), Some(4096));
        assert_eq!(windows.window("any-alias"), Some(4096));
        assert_eq!(windows.window("vllm"), Some(32768));
        let older = ReportedWindows::default().with_props(&json!({"n_ctx": 2048}));
        assert_eq!(older.window("m"), Some(2048));
        let python = ReportedWindows::default().with_props(&json!({"detail": "Not Found"}));
        assert_eq!(python.window("m"), None);
    }

    #[test]
    fn knows_the_built_in_models() {
        assert_eq!(known_context_window("gpt-5.1-codex"), Some(272_000));
        assert_eq!(known_context_window("qwen2.5-coder:7b"), None);
    }
}
