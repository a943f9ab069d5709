//! The history service as the front ends hold it: connected at startup (`tandem mcp-server`,
//! which must fail fast on an unreachable backend) or on first use (`tandem app-server`, so
//! that opening or creating the history index does not delay the `initialize` answer).

use std::sync::{Arc, OnceLock};

use tandem_history::config::HistoryConfig;
use tandem_history::service::HistoryService;

/// A history service, connected now or on the first [`HistoryHandle::service`] call.
pub struct HistoryHandle {
    config: HistoryConfig,
    service: OnceLock<Result<Arc<HistoryService>, String>>,
}

impl HistoryHandle {
    /// A handle that connects to the backend `config` names on first use.
    pub fn lazy(config: HistoryConfig) -> Self {
        Self {
            config,
            service: OnceLock::new(),
        }
    }

    /// A handle on a service that is already connected.
    pub fn connected(service: Arc<HistoryService>) -> Self {
        Self {
            config: service.config().clone(),
            service: OnceLock::from(Ok(service)),
        }
    }

    /// Whether completed turns are ingested (`[history] auto_ingest`).
    pub fn auto_ingest(&self) -> bool {
        self.config.auto_ingest
    }

    /// The connected service; the first call connects (blocking: call it on a blocking
    /// thread). A failed connection is remembered and reported to every later call.
    pub fn service(&self) -> Result<Arc<HistoryService>, String> {
        self.service
            .get_or_init(|| {
                HistoryService::connect(self.config.clone())
                    .map(Arc::new)
                    .map_err(|error| format!("history backend unavailable: {error}"))
            })
            .clone()
    }
}
