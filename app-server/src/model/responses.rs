//! OpenAI Responses API client (streaming SSE).

use crate::config::ProviderConfig;
use crate::model::{ModelClient, ModelError, ModelListFuture, ModelRequest, ModelStream};

/// Client for `POST {base_url}/responses`.
pub struct ResponsesClient {}

impl ResponsesClient {
    /// Builds a client for `provider`.
    pub fn new(_provider: &ProviderConfig) -> Result<Self, ModelError> {
        Err(ModelError::Other("responses client not built yet".into()))
    }
}

impl ModelClient for ResponsesClient {
    fn stream(&self, _request: ModelRequest) -> ModelStream {
        Box::pin(futures::stream::empty())
    }

    fn list_models(&self) -> ModelListFuture<'_> {
        Box::pin(async { Ok(Vec::new()) })
    }
}
