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
///
/// `includeToken` returns the key only where the operator lets this front end reveal stored
/// credentials (`clients.reveal_credentials`); elsewhere the answer is the same without the
/// token, so that clients that only check the login keep working.
pub fn auth_status(engine: &Engine, params: &GetAuthStatusParams) -> GetAuthStatusResponse {
    let (key, requires_key) = default_provider_key(engine);
    let include_token = params.include_token == Some(true);
    let reveal = engine.client_policy().reveal_credentials();
    if include_token && !reveal {
        tracing::info!(
            "getAuthStatus.includeToken answered without the token: clients.reveal_credentials is off for this server"
        );
    }
    GetAuthStatusResponse {
        auth_method: key.as_ref().map(|_| AuthMode::ApiKey),
        auth_token: key.filter(|_| include_token && reveal),
        requires_openai_auth: Some(requires_key),
    }
}
