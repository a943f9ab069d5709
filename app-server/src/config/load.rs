//! Loading and merging config layers.

use app_server_protocol::utility::ConfigReadResponse;

use crate::config::Config;

/// Why the configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// Placeholder until config loading lands.
    #[error("{0}")]
    Other(String),
}

/// Builds the `config/read` result.
pub fn config_read_response(_config: &Config, _include_layers: bool) -> ConfigReadResponse {
    ConfigReadResponse {
        config: serde_json::Value::Null,
        origins: Default::default(),
        layers: None,
    }
}
