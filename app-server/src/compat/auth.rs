//! The account state the conversation API and the `account/*` methods both report.

use app_server_protocol::account::AuthMode;
use app_server_protocol::utility::{GetAuthStatusParams, GetAuthStatusResponse};
use tandem_core::engine::Engine;

/// The key the default provider would use (environment first, then `auth.json`), and
/// whether that provider takes a key at all.
pub fn default_provider_key(engine: &Engine) -> (Option<String>, bool) {
    let config = engine.config();
    let env_key = config
        .model_providers
        .get(&config.model_provider)
        .and_then(|provider| provider.env_key.clone());
    let account = engine.account();
    let key = match &env_key {
        Some(name) => account.api_key_for(Some(name)),
        None => account.stored_key(),
    };
    (key, env_key.is_some())
}

/// `getAuthStatus` (legacy): the same state as `account/read`.
pub fn auth_status(engine: &Engine, params: &GetAuthStatusParams) -> GetAuthStatusResponse {
    let (key, requires_key) = default_provider_key(engine);
    GetAuthStatusResponse {
        auth_method: key.as_ref().map(|_| AuthMode::ApiKey),
        auth_token: key.filter(|_| params.include_token == Some(true)),
        requires_openai_auth: Some(requires_key),
    }
}
