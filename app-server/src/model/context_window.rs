//! The context window of a model: from the models Tandem knows by slug, or from what the
//! provider's models endpoint reports.
//!
//! The window sets the default automatic compaction limit (see `engine/compaction.rs`).
//! OpenAI-compatible servers that report it do so in different fields of their
//! `GET {base_url}/models` entries: vLLM `max_model_len`, llama.cpp's server `meta.n_ctx_train`,
//! OpenRouter `context_length`, others `context_window`. [`ContextWindows`] fetches that list
//! once per client, in a background task, so that no caller waits for it longer than it
//! chooses to; a failed or empty answer is logged once and means "unknown".

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

/// The fields of a models-endpoint entry that carry its context window, most specific first:
/// the window the server actually runs with comes before the one the model was trained with.
const WINDOW_FIELDS: &[&[&str]] = &[
    &["context_window"],
    &["max_model_len"],
    &["context_length"],
    &["max_context_length"],
    &["meta", "n_ctx"],
    &["meta", "n_ctx_train"],
];

/// The context window of a model Tandem knows by its slug.
pub fn known_context_window(model: &str) -> Option<u64> {
    KNOWN_WINDOWS
        .iter()
        .find(|(slug, _)| *slug == model)
        .map(|(_, window)| *window)
}

/// The context window a `GET /models` entry reports, if any.
pub(crate) fn reported_window(entry: &Value) -> Option<u64> {
    WINDOW_FIELDS.iter().find_map(|path| {
        path.iter()
            .try_fold(entry, |value, key| value.get(key))
            .and_then(Value::as_u64)
            .filter(|window| *window > 0)
    })
}

/// Model id → reported context window, for the models whose entry reports one.
pub(crate) fn reported_windows(entries: &[Value]) -> HashMap<String, u64> {
    entries
        .iter()
        .filter_map(|entry| {
            let id = entry.get("id").and_then(Value::as_str)?;
            Some((id.to_string(), reported_window(entry)?))
        })
        .collect()
}

/// The result of the fetch: `None` while it runs, then model id → window.
type FetchReceiver = watch::Receiver<Option<Arc<HashMap<String, u64>>>>;

/// The windows a provider reports, fetched at most once per client.
#[derive(Default)]
pub(crate) struct ContextWindows {
    /// `None` until the first lookup starts the fetch; then the fetch's result, `None` while
    /// it runs.
    fetch: Mutex<Option<FetchReceiver>>,
}

impl ContextWindows {
    /// Starts the fetch in the background unless it was started before.
    pub(crate) fn prefetch(&self, http: &Arc<HttpProvider>) {
        let _ = self.receiver(http);
    }

    /// The window the provider reports for `model`; resolves once the fetch is done (the
    /// caller bounds the wait), `None` when the fetch failed or the model reports none.
    pub(crate) fn lookup(&self, http: &Arc<HttpProvider>, model: &str) -> ContextWindowFuture {
        let receiver = self.receiver(http);
        let model = model.to_string();
        Box::pin(async move {
            let mut receiver = receiver?;
            let windows = receiver.wait_for(Option::is_some).await.ok()?.clone()?;
            windows.get(&model).copied()
        })
    }

    fn receiver(&self, http: &Arc<HttpProvider>) -> Option<FetchReceiver> {
        let mut fetch = crate::engine::lock(&self.fetch);
        if let Some(receiver) = fetch.as_ref() {
            return Some(receiver.clone());
        }
        // Outside a runtime (never in the server) there is nothing to run the fetch on.
        let runtime = tokio::runtime::Handle::try_current().ok()?;
        let (sender, receiver) = watch::channel(None);
        let http = http.clone();
        runtime.spawn(async move {
            let windows = match http.fetch_model_entries().await {
                Ok(entries) => {
                    let windows = reported_windows(&entries);
                    if windows.is_empty() {
                        tracing::info!(provider = %http.id(), "the provider's models endpoint reports no context window; no automatic compaction unless `model_context_window` or `model_auto_compact_token_limit` is set");
                    }
                    windows
                }
                Err(error) => {
                    tracing::info!(provider = %http.id(), %error, "cannot read the context window from the provider's models endpoint; no automatic compaction unless `model_context_window` or `model_auto_compact_token_limit` is set");
                    HashMap::new()
                }
            };
            let _ = sender.send(Some(Arc::new(windows)));
        });
        *fetch = Some(receiver.clone());
        Some(receiver)
    }
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
        let windows = reported_windows(&entries);
        let mut sorted: Vec<(&str, u64)> = windows
            .iter()
            .map(|(id, window)| (id.as_str(), *window))
            .collect();
        sorted.sort_unstable();
        assert_eq!(
            sorted,
            [
                ("both", 2048),
                ("generic", 200000),
                ("llama.cpp", 8192),
                ("router", 128000),
                ("vllm", 32768),
            ]
        );
    }

    #[test]
    fn knows_the_built_in_models() {
        assert_eq!(known_context_window("gpt-5.1-codex"), Some(272_000));
        assert_eq!(known_context_window("qwen2.5-coder:7b"), None);
    }
}
