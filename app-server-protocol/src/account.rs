//! Accounts: the `account/*` methods and notifications, and the first-generation
//! `loginChatGptComplete` / `authStatusChange` notifications.
//!
//! Tandem supports one kind of account: an API key, stored in `$TANDEM_HOME/auth.json` and used
//! for providers that take a key when their environment variable is unset. The other account
//! types are declared so that clients written for the reference decode, and their logins answer
//! a clear error.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// The logged-in account.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type")]
pub enum Account {
    /// An API key (the only kind Tandem stores).
    #[serde(rename = "apiKey")]
    ApiKey,
    /// A ChatGPT account (never reported by Tandem).
    #[serde(rename = "chatgpt", rename_all = "camelCase")]
    Chatgpt {
        /// The account's e-mail address.
        email: Option<String>,
        /// The subscription plan.
        plan_type: PlanType,
        /// The workspace name.
        workspace_name: Option<String>,
    },
    /// Amazon Bedrock credentials (never reported by Tandem).
    #[serde(rename = "amazonBedrock", rename_all = "camelCase")]
    AmazonBedrock {
        /// Whether the credentials are managed by the server.
        uses_codex_managed_credentials: bool,
    },
    /// Google Cloud credentials (never reported by Tandem).
    #[serde(rename = "gcp")]
    Gcp,
}

/// Parameters of `account/read`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct GetAccountParams {
    /// Refresh the login's token first; accepted and ignored (an API key has no token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub refresh_token: Option<bool>,
}

/// Result of `account/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct GetAccountResponse {
    /// The account: `{"type": "apiKey"}` when a key is stored in `auth.json` or the default
    /// provider's key variable is set; `null` otherwise.
    pub account: Option<Account>,
    /// The user id; always `null` (an API key has none).
    pub user_id: Option<String>,
    /// Whether the default provider needs an API key (it declares `env_key`).
    pub requires_openai_auth: bool,
    /// Workspace routing of a ChatGPT account; always `null`.
    pub workspace_routing: Option<Value>,
}

/// Parameters of `account/login/start`: how to log in. Only `apiKey` is supported; the other
/// types answer an error that says so.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type")]
pub enum LoginAccountParams {
    /// Store this API key in `$TANDEM_HOME/auth.json` (mode 0600).
    #[serde(rename = "apiKey", rename_all = "camelCase")]
    ApiKey {
        /// The key; must not be empty.
        api_key: String,
    },
    /// Browser login to ChatGPT (not supported).
    #[serde(rename = "chatgpt", rename_all = "camelCase")]
    Chatgpt {
        /// Reference client option; ignored.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        codex_streamlined_login: Option<bool>,
        /// Reference client option; ignored.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        use_hosted_login_success_page: Option<bool>,
        /// Reference client option; ignored.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        app_brand: Option<Value>,
    },
    /// Device-code login to ChatGPT (not supported).
    #[serde(rename = "chatgptDeviceCode")]
    ChatgptDeviceCode,
    /// Externally obtained ChatGPT tokens (not supported).
    #[serde(rename = "chatgptAuthTokens", rename_all = "camelCase")]
    ChatgptAuthTokens {
        /// Access token.
        access_token: String,
        /// Account id.
        chatgpt_account_id: String,
        /// Plan type.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        chatgpt_plan_type: Option<String>,
    },
    /// Amazon Bedrock API key (not supported).
    #[serde(rename = "amazonBedrock", rename_all = "camelCase")]
    AmazonBedrock {
        /// The key.
        api_key: String,
        /// AWS region.
        region: String,
    },
    /// Amazon Bedrock access keys (not supported).
    #[serde(rename = "amazonBedrockAccessKeys", rename_all = "camelCase")]
    AmazonBedrockAccessKeys {
        /// Access key id.
        access_key_id: String,
        /// Secret access key.
        secret_access_key: String,
        /// Session token.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        session_token: Option<String>,
        /// AWS region.
        region: String,
    },
}

impl LoginAccountParams {
    /// The wire name of the login type.
    pub fn type_name(&self) -> &'static str {
        match self {
            LoginAccountParams::ApiKey { .. } => "apiKey",
            LoginAccountParams::Chatgpt { .. } => "chatgpt",
            LoginAccountParams::ChatgptDeviceCode => "chatgptDeviceCode",
            LoginAccountParams::ChatgptAuthTokens { .. } => "chatgptAuthTokens",
            LoginAccountParams::AmazonBedrock { .. } => "amazonBedrock",
            LoginAccountParams::AmazonBedrockAccessKeys { .. } => "amazonBedrockAccessKeys",
        }
    }
}

/// Result of `account/login/start`. Tandem only answers `apiKey`: the key is stored when the
/// response is sent, and `account/login/completed` and `account/updated` follow.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type")]
pub enum LoginAccountResponse {
    /// The API key is stored.
    #[serde(rename = "apiKey")]
    ApiKey,
    /// A browser login started (never answered by Tandem).
    #[serde(rename = "chatgpt", rename_all = "camelCase")]
    Chatgpt {
        /// Id for `account/login/cancel` and `account/login/completed`.
        login_id: String,
        /// URL to open in a browser.
        auth_url: String,
    },
    /// A device-code login started (never answered by Tandem).
    #[serde(rename = "chatgptDeviceCode", rename_all = "camelCase")]
    ChatgptDeviceCode {
        /// Id for `account/login/cancel` and `account/login/completed`.
        login_id: String,
        /// Where to enter the code.
        verification_url: String,
        /// The code.
        user_code: String,
    },
    /// External tokens accepted (never answered by Tandem).
    #[serde(rename = "chatgptAuthTokens")]
    ChatgptAuthTokens,
    /// Bedrock credentials accepted (never answered by Tandem).
    #[serde(rename = "amazonBedrock")]
    AmazonBedrock,
}

/// Parameters of `account/login/cancel`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct CancelLoginAccountParams {
    /// The login to cancel.
    pub login_id: String,
}

/// Result of `account/login/cancel`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct CancelLoginAccountResponse {
    /// Whether a login was cancelled. API-key logins complete at once, so Tandem always
    /// answers `notFound`.
    pub status: CancelLoginAccountStatus,
}

/// Outcome of `account/login/cancel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum CancelLoginAccountStatus {
    /// The login was cancelled.
    Canceled,
    /// No login in progress has this id.
    NotFound,
}

/// Result of `account/rateLimits/read`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct GetAccountRateLimitsResponse {
    /// Whether ordinary usage is allowed; always `null` (providers do not say).
    pub ordinary_usage_allowed: Option<bool>,
    /// The latest limits seen in the provider's `x-ratelimit-*` response headers; every field
    /// `null` until a response carried them.
    pub rate_limits: RateLimitSnapshot,
    /// The same snapshot keyed by its `limitId`; `null` until a response carried limits.
    pub rate_limits_by_limit_id: Option<BTreeMap<String, RateLimitSnapshot>>,
    /// Reset credits; always `null`.
    pub rate_limit_reset_credits: Option<Value>,
    /// Account id; always `null`.
    pub account_id: Option<String>,
    /// Upsell offer; always `null`.
    pub rate_limit_upsell: Option<Value>,
}

/// Rate limits of one limit (one provider in Tandem).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitSnapshot {
    /// Which limit: the provider id.
    pub limit_id: Option<String>,
    /// Display name of the limit: the provider's name.
    pub limit_name: Option<String>,
    /// Model slug of the limit; always `null`.
    pub normal_model_slug: Option<String>,
    /// The request limit (`x-ratelimit-limit-requests`, `-remaining-requests`,
    /// `-reset-requests`).
    pub primary: Option<RateLimitWindow>,
    /// The token limit (`x-ratelimit-limit-tokens`, `-remaining-tokens`, `-reset-tokens`).
    pub secondary: Option<RateLimitWindow>,
    /// Credits; always `null`.
    pub credits: Option<CreditsSnapshot>,
    /// Individual spend limit; always `null`.
    pub individual_limit: Option<Value>,
    /// Whether a spend control was reached; always `null`.
    pub spend_control_reached: Option<bool>,
    /// Plan type; always `null`.
    pub plan_type: Option<PlanType>,
    /// Which limit was reached; always `null`.
    pub rate_limit_reached_type: Option<Value>,
}

/// Usage of one rate-limit window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct RateLimitWindow {
    /// Percent of the limit used: `(limit - remaining) / limit * 100`.
    pub used_percent: f64,
    /// Length of the window in minutes; `null` (providers do not say).
    pub window_duration_mins: Option<i64>,
    /// When the window resets (Unix seconds), from the `x-ratelimit-reset-*` duration.
    pub resets_at: Option<i64>,
}

/// Credits of an account.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct CreditsSnapshot {
    /// Whether there are credits left.
    pub has_credits: bool,
    /// Whether credits are unlimited.
    pub unlimited: bool,
    /// The balance, as a decimal string.
    pub balance: Option<String>,
}

/// How the server is authenticated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub enum AuthMode {
    /// An API key (the only mode Tandem reports).
    #[serde(rename = "apikey")]
    ApiKey,
    /// A ChatGPT login.
    #[serde(rename = "chatgpt")]
    Chatgpt,
    /// External ChatGPT tokens.
    #[serde(rename = "chatgptAuthTokens")]
    ChatgptAuthTokens,
    /// Custom headers.
    #[serde(rename = "headers")]
    Headers,
    /// An agent identity.
    #[serde(rename = "agentIdentity")]
    AgentIdentity,
    /// A personal access token.
    #[serde(rename = "personalAccessToken")]
    PersonalAccessToken,
    /// A Bedrock API key.
    #[serde(rename = "bedrockApiKey")]
    BedrockApiKey,
    /// Bedrock access keys.
    #[serde(rename = "bedrockAccessKeys")]
    BedrockAccessKeys,
}

/// A ChatGPT subscription plan (declared for wire compatibility; Tandem never reports one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum PlanType {
    /// The `free` plan.
    Free,
    /// The `go` plan.
    Go,
    /// The `plus` plan.
    Plus,
    /// The `pro` plan.
    Pro,
    /// The `prolite` plan.
    Prolite,
    /// The `promax` plan.
    Promax,
    /// The `team` plan.
    Team,
    /// The `self_serve_business_prolite` plan.
    SelfServeBusinessProlite,
    /// The `self_serve_business_usage_based` plan.
    SelfServeBusinessUsageBased,
    /// The `business` plan.
    Business,
    #[serde(rename = "ent26")]
    /// The `ent26` plan.
    Ent26,
    /// The `enterprise_cbp_automation` plan.
    EnterpriseCbpAutomation,
    /// The `enterprise_cbp_usage_based` plan.
    EnterpriseCbpUsageBased,
    /// The `enterprise` plan.
    Enterprise,
    /// The `edu` plan.
    Edu,
    /// The `edu_plus` plan.
    EduPlus,
    /// The `edu_pro` plan.
    EduPro,
    /// The `sci` plan.
    Sci,
    /// The `sci_plus` plan.
    SciPlus,
    /// The `unknown` plan.
    Unknown,
}

/// Params of `account/login/completed`: a login finished.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct AccountLoginCompletedNotification {
    /// The login's id; `null` for an API-key login (it has none).
    pub login_id: Option<String>,
    /// Whether the login succeeded.
    pub success: bool,
    /// Why it failed.
    pub error: Option<String>,
    /// Onboarding entry point of a desktop client; always `null`.
    pub onboarding_entrypoint: Option<Value>,
}

/// Params of `account/updated`: the login changed (after a login or a logout).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct AccountUpdatedNotification {
    /// The new auth mode; `null` after a logout.
    pub auth_mode: Option<AuthMode>,
    /// The plan; always `null`.
    pub plan_type: Option<PlanType>,
}

/// Params of `account/rateLimits/updated`: a model response carried new rate limits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct AccountRateLimitsUpdatedNotification {
    /// The limits.
    pub rate_limits: RateLimitSnapshot,
}

/// Params of `loginChatGptComplete` (legacy): a ChatGPT login finished. Tandem has no ChatGPT
/// login and never sends it; declared for clients of the first-generation API.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct LoginChatGptCompleteNotification {
    /// The login's id.
    pub login_id: String,
    /// Whether it succeeded.
    pub success: bool,
    /// Why it failed.
    pub error: Option<String>,
}

/// Params of `authStatusChange` (legacy): the auth mode changed (sent with `account/updated`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct AuthStatusChangeNotification {
    /// The new auth mode; `null` after a logout.
    pub auth_method: Option<AuthMode>,
}
