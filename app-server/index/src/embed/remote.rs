//! Remote embedding endpoints: `POST {base_url}/embeddings` with `{"model", "input": [...]}`,
//! answered by `{"data": [{"index", "embedding": [...]}]}` (OpenAI, Voyage, Ollama, vLLM,
//! llama.cpp all speak this shape).

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use super::{EmbedFuture, EmbeddingProvider, NotReady};

/// Request details that differ between services.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// OpenAI and compatible servers.
    OpenAi,
    /// Voyage AI (adds `input_type`).
    Voyage,
}

/// A remote provider.
pub struct RemoteProvider {
    flavor: Flavor,
    model: String,
    url: String,
    api_key: Option<String>,
    client: reqwest::Client,
}

/// Builds a provider; a key variable that is named but unset is `missing_api_key`.
pub fn provider(
    flavor: Flavor,
    model: &str,
    base_url: &str,
    api_key_env: Option<&str>,
) -> Result<Arc<dyn EmbeddingProvider>, NotReady> {
    let api_key = match api_key_env {
        Some(variable) => match std::env::var(variable) {
            Ok(value) if !value.trim().is_empty() => Some(value),
            _ => {
                return Err(NotReady {
                    reason: "missing_api_key",
                    detail: format!("set {variable} to use the embedding model `{model}`"),
                });
            }
        },
        None => None,
    };
    // reqwest is built without a default TLS crypto provider; use ring, as the model client does.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .map_err(|error| NotReady {
            reason: "embedding_query_failed",
            detail: format!("cannot build an HTTP client: {error}"),
        })?;
    Ok(Arc::new(RemoteProvider {
        flavor,
        model: model.to_string(),
        url: format!("{}/embeddings", base_url.trim_end_matches('/')),
        api_key,
        client,
    }))
}

#[derive(Deserialize)]
struct EmbeddingsResponse {
    data: Vec<EmbeddingDatum>,
}

#[derive(Deserialize)]
struct EmbeddingDatum {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

impl EmbeddingProvider for RemoteProvider {
    fn model(&self) -> &str {
        &self.model
    }

    fn batch_size(&self) -> usize {
        64
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> EmbedFuture<'a> {
        Box::pin(async move {
            let mut body = json!({"model": self.model, "input": texts});
            if self.flavor == Flavor::Voyage {
                body["input_type"] = json!("document");
            }
            let mut request = self.client.post(&self.url).json(&body);
            if let Some(key) = &self.api_key {
                request = request.bearer_auth(key);
            }
            let response = request
                .send()
                .await
                .map_err(|error| format!("embedding request to {} failed: {error}", self.url))?;
            let status = response.status();
            if !status.is_success() {
                let text = response.text().await.unwrap_or_default();
                let text: String = text.chars().take(300).collect();
                return Err(format!(
                    "embedding endpoint {} answered {status}: {text}",
                    self.url
                ));
            }
            let parsed: EmbeddingsResponse = response.json().await.map_err(|error| {
                format!("embedding endpoint {} sent a bad body: {error}", self.url)
            })?;
            if parsed.data.len() != texts.len() {
                return Err(format!(
                    "embedding endpoint {} returned {} vectors for {} inputs",
                    self.url,
                    parsed.data.len(),
                    texts.len()
                ));
            }
            let mut data = parsed.data;
            data.sort_by_key(|datum| datum.index.unwrap_or(0));
            Ok(data.into_iter().map(|datum| datum.embedding).collect())
        })
    }
}
