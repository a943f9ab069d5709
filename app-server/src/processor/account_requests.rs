//! The `account/*` methods and the legacy `getAuthStatus`: the API key stored in
//! `$TANDEM_HOME/auth.json` and the provider's rate limits (see [`tandem_core::account`]).

use std::collections::BTreeMap;

use app_server_protocol::account::{
    Account, AccountLoginCompletedNotification, AccountUpdatedNotification, AuthMode,
    AuthStatusChangeNotification, CancelLoginAccountResponse, CancelLoginAccountStatus,
    GetAccountRateLimitsResponse, GetAccountResponse, LoginAccountParams, LoginAccountResponse,
};
use app_server_protocol::jsonrpc::JsonRpcErrorBody;
use app_server_protocol::tables::ServerNotification;

use crate::compat::auth::default_provider_key;
use crate::processor::Processor;
use crate::rpc_error::{internal_error, invalid_request};

impl Processor {
    /// `account/read`.
    pub(super) fn account_read(&self) -> GetAccountResponse {
        let (key, requires_key) = default_provider_key(&self.engine);
        GetAccountResponse {
            account: key.map(|_| Account::ApiKey),
            user_id: None,
            requires_openai_auth: requires_key,
            workspace_routing: None,
        }
    }

    /// `account/login/start`: stores an API key; every other login type is refused.
    pub(super) async fn account_login_start(
        &self,
        params: LoginAccountParams,
    ) -> Result<LoginAccountResponse, JsonRpcErrorBody> {
        let api_key = match params {
            LoginAccountParams::ApiKey { api_key } => api_key.trim().to_string(),
            other => {
                return Err(invalid_request(format!(
                    "login type `{}` is not supported: Tandem has no ChatGPT or cloud login; log in with {{\"type\": \"apiKey\", \"apiKey\": \"...\"}} or set the provider's key variable",
                    other.type_name()
                )));
            }
        };
        if api_key.is_empty() {
            return Err(invalid_request("apiKey must not be empty"));
        }
        if let Err(error) = self.engine.account().store_key(api_key).await {
            tracing::error!(%error, "storing the API key failed");
            return Err(internal_error(error.to_string()));
        }
        Ok(LoginAccountResponse::ApiKey)
    }

    /// The notifications that follow a successful login.
    pub(super) async fn announce_login(&self) {
        self.notify(ServerNotification::AccountLoginCompleted(
            AccountLoginCompletedNotification {
                login_id: None,
                success: true,
                error: None,
                onboarding_entrypoint: None,
            },
        ))
        .await;
        self.announce_auth_mode(Some(AuthMode::ApiKey)).await;
    }

    /// `account/updated` and the legacy `authStatusChange`.
    pub(super) async fn announce_auth_mode(&self, auth_mode: Option<AuthMode>) {
        self.notify(ServerNotification::AccountUpdated(
            AccountUpdatedNotification {
                auth_mode,
                plan_type: None,
            },
        ))
        .await;
        self.notify(ServerNotification::AuthStatusChange(
            AuthStatusChangeNotification {
                auth_method: auth_mode,
            },
        ))
        .await;
    }

    /// `account/login/cancel`: API-key logins complete at once, so there is never one to
    /// cancel.
    pub(super) fn account_login_cancel(&self) -> CancelLoginAccountResponse {
        CancelLoginAccountResponse {
            status: CancelLoginAccountStatus::NotFound,
        }
    }

    /// `account/logout`: removes the stored key. Returns the auth mode that remains (a key
    /// from the environment still counts).
    pub(super) async fn account_logout(&self) -> Result<Option<AuthMode>, JsonRpcErrorBody> {
        if let Err(error) = self.engine.account().remove_key().await {
            tracing::error!(%error, "removing the stored API key failed");
            return Err(internal_error(error.to_string()));
        }
        let (key, _) = default_provider_key(&self.engine);
        Ok(key.map(|_| AuthMode::ApiKey))
    }

    /// `account/rateLimits/read`: the latest snapshot, or an empty one.
    pub(super) fn account_rate_limits(&self) -> GetAccountRateLimitsResponse {
        let snapshot = self.engine.account().rate_limits();
        let by_id = snapshot.as_ref().and_then(|snapshot| {
            let id = snapshot.limit_id.clone()?;
            Some(BTreeMap::from([(id, snapshot.clone())]))
        });
        GetAccountRateLimitsResponse {
            ordinary_usage_allowed: None,
            rate_limits: snapshot.unwrap_or_default(),
            rate_limits_by_limit_id: by_id,
            rate_limit_reset_credits: None,
            account_id: None,
            rate_limit_upsell: None,
        }
    }
}
