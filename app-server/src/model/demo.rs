//! The offline `demo` provider: a deterministic scripted agent.

use crate::model::{ModelClient, ModelListFuture, ModelRequest, ModelStream};

/// The scripted demo model.
pub struct DemoClient {}

impl DemoClient {
    /// Builds the demo client.
    pub fn new() -> Self {
        Self {}
    }
}

impl ModelClient for DemoClient {
    fn stream(&self, _request: ModelRequest) -> ModelStream {
        Box::pin(futures::stream::empty())
    }

    fn list_models(&self) -> ModelListFuture<'_> {
        Box::pin(async { Ok(vec!["demo".to_string()]) })
    }
}
