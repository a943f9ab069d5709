//! Chat Completions client (streaming SSE).

use crate::config::ProviderConfig;
use crate::model::{ModelClient, ModelError, ModelListFuture, ModelRequest, ModelStream};

/// Client for `POST {base_url}/chat/completions`.
pub struct ChatClient {}

impl ChatClient {
    /// Builds a client for `provider`.
    pub fn new(_provider: &ProviderConfig) -> Result<Self, ModelError> {
        Err(ModelError::Other("chat client not built yet".into()))
    }
}

impl ModelClient for ChatClient {
    fn stream(&self, _request: ModelRequest) -> ModelStream {
        Box::pin(futures::stream::empty())
    }

    fn list_models(&self) -> ModelListFuture<'_> {
        Box::pin(async { Ok(Vec::new()) })
    }
}
