//! Embedding providers behind one trait: the local all-MiniLM-L6-v2 model run in-process
//! (`local.rs`), and remote `/embeddings` endpoints (`remote.rs`): OpenAI, Voyage and any
//! OpenAI-compatible server. [`resolve`] picks one from the configuration, or says why none is
//! ready (`missing_api_key`, `model_not_installed`).

#[cfg(feature = "local-embeddings")]
pub mod bert;
#[cfg(feature = "local-embeddings")]
pub mod int8;
pub mod local;
pub mod remote;
pub mod wordpiece;

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

/// A boxed future returned by providers.
pub type EmbedFuture<'a> = Pin<Box<dyn Future<Output = Result<Vec<Vec<f32>>, String>> + Send + 'a>>;

/// Something that turns texts into vectors (normalisation is done by the caller).
pub trait EmbeddingProvider: Send + Sync {
    /// The model name recorded with every vector.
    fn model(&self) -> &str;
    /// How many texts to send per call.
    fn batch_size(&self) -> usize;
    /// Embeds `texts` (one vector each, same order); the error is a readable message.
    fn embed<'a>(&'a self, texts: &'a [String]) -> EmbedFuture<'a>;
}

/// Which provider serves a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    /// all-MiniLM-L6-v2 in-process.
    Local,
    /// api.openai.com (`OPENAI_API_KEY`).
    OpenAi,
    /// api.voyageai.com (`VOYAGE_API_KEY`).
    Voyage,
    /// Any OpenAI-compatible `/v1/embeddings` endpoint (`base_url` required).
    OpenAiCompatible,
}

impl ProviderKind {
    /// Parses the config value (`auto` is `None`).
    pub fn parse(value: &str) -> Result<Option<Self>, String> {
        match value {
            "auto" => Ok(None),
            "local" => Ok(Some(Self::Local)),
            "openai" => Ok(Some(Self::OpenAi)),
            "voyage" => Ok(Some(Self::Voyage)),
            "openai-compatible" => Ok(Some(Self::OpenAiCompatible)),
            other => Err(format!(
                "unknown embedding provider `{other}` (expected auto, local, openai, voyage or openai-compatible)"
            )),
        }
    }
}

/// The model name that turns embeddings off (lexical only).
pub const NO_MODEL: &str = "none";

/// The name of the local model.
pub const LOCAL_MODEL: &str = "all-MiniLM-L6-v2";

/// Where embeddings come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddingSettings {
    /// Explicit provider, or `None` to infer it from the model name.
    pub provider: Option<ProviderKind>,
    /// Base URL of a remote provider (`…/v1`); `None` for the provider's default.
    pub base_url: Option<String>,
    /// Environment variable holding the API key; `None` for the provider's default.
    pub api_key_env: Option<String>,
    /// Directory of the local model.
    pub local_model_dir: PathBuf,
    /// The local model's forward pass (`local_precision`).
    pub local_implementation: local::Implementation,
}

/// Why embeddings are not available.
#[derive(Debug, Clone, PartialEq)]
pub struct NotReady {
    /// `missing_api_key`, `model_not_installed` or `embedding_query_failed`.
    pub reason: &'static str,
    /// What exactly is missing or failed.
    pub detail: String,
}

/// The provider for `model`, or why there is none; a local model is loaded into `models`.
pub fn resolve(
    model: &str,
    settings: &EmbeddingSettings,
    models: &local::LoadedModels,
) -> Result<Arc<dyn EmbeddingProvider>, NotReady> {
    let kind = settings.provider.unwrap_or_else(|| infer(model, settings));
    match kind {
        ProviderKind::Local => local::provider(
            model,
            &settings.local_model_dir,
            settings.local_implementation,
            models,
        ),
        ProviderKind::OpenAi => remote::provider(
            remote::Flavor::OpenAi,
            model,
            settings.base_url.as_deref().unwrap_or("https://api.openai.com/v1"),
            Some(settings.api_key_env.as_deref().unwrap_or("OPENAI_API_KEY")),
        ),
        ProviderKind::Voyage => remote::provider(
            remote::Flavor::Voyage,
            model,
            settings.base_url.as_deref().unwrap_or("https://api.voyageai.com/v1"),
            Some(settings.api_key_env.as_deref().unwrap_or("VOYAGE_API_KEY")),
        ),
        ProviderKind::OpenAiCompatible => match settings.base_url.as_deref() {
            Some(base_url) => remote::provider(
                remote::Flavor::OpenAi,
                model,
                base_url,
                settings.api_key_env.as_deref(),
            ),
            None => Err(NotReady {
                reason: "embedding_query_failed",
                detail: "the openai-compatible embedding provider needs `base_url` in [query_project_index]"
                    .into(),
            }),
        },
    }
}

fn infer(model: &str, settings: &EmbeddingSettings) -> ProviderKind {
    if model.eq_ignore_ascii_case(LOCAL_MODEL) {
        ProviderKind::Local
    } else if model.starts_with("voyage") {
        ProviderKind::Voyage
    } else if model.starts_with("text-embedding-") && settings.base_url.is_none() {
        ProviderKind::OpenAi
    } else if settings.base_url.is_some() {
        ProviderKind::OpenAiCompatible
    } else {
        ProviderKind::OpenAi
    }
}
