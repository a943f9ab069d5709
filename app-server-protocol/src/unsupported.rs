//! The reference's client requests that this server does not serve, each with why: the one
//! list behind the "not supported by this server" answer (instead of a decoding failure) and
//! the "not supported" table of `docs/protocol.md`.
//!
//! A method leaves this list when it joins the request table (`tables.rs`); a test walks the
//! reference's methods and checks that each is in exactly one of the two.

use crate::tables_meta::Stability;

/// Why this server does not serve a method of the reference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unsupported {
    /// The method needs a ChatGPT or cloud account (sign-in flows, usage, credits, account
    /// sessions); Tandem authenticates to model providers with API keys only.
    Account,
    /// The method drives a cloud service of the reference (apps, the plugin marketplace and
    /// sharing, remote control, cloud environments, realtime audio, feedback upload, hosted
    /// review models), which Tandem does not connect to.
    Cloud,
    /// The method sets up the Windows sandbox; Tandem's sandbox is Linux's (Landlock and
    /// seccomp).
    Windows,
    /// The method exists only to test the reference's experimental gating.
    ReferenceTest,
    /// Not implemented by this server yet.
    NotImplemented,
}

impl Unsupported {
    /// The reason as the error message gives it.
    pub const fn explanation(self) -> &'static str {
        match self {
            Unsupported::Account => {
                "it needs a ChatGPT or cloud account, and this server uses API keys only"
            }
            Unsupported::Cloud => "it uses a cloud service that this server does not connect to",
            Unsupported::Windows => "it sets up the Windows sandbox, and this server runs on Linux",
            Unsupported::ReferenceTest => "it only tests another server's experimental gating",
            Unsupported::NotImplemented => "it is not implemented by this server yet",
        }
    }
}

/// One method of the reference that this server does not serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedMethod {
    /// Wire name, such as `app/list`.
    pub method: &'static str,
    /// The reference's marking: an experimental method needs `experimentalApi` there too.
    pub stability: Stability,
    /// Why it is not served.
    pub reason: Unsupported,
}

const fn unsupported(
    method: &'static str,
    stability: Stability,
    reason: Unsupported,
) -> UnsupportedMethod {
    UnsupportedMethod {
        method,
        stability,
        reason,
    }
}

/// The reference's client requests that this server does not serve, in the reference's order.
pub const UNSUPPORTED_METHODS: &[UnsupportedMethod] = &[
    unsupported(
        "server/diagnostics",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "userVerification/status",
        Stability::Experimental,
        Unsupported::Account,
    ),
    unsupported(
        "userVerification/enroll",
        Stability::Experimental,
        Unsupported::Account,
    ),
    unsupported(
        "userVerification/delete",
        Stability::Experimental,
        Unsupported::Account,
    ),
    unsupported(
        "userVerification/verify",
        Stability::Experimental,
        Unsupported::Account,
    ),
    unsupported(
        "userVerification/cancel",
        Stability::Experimental,
        Unsupported::Account,
    ),
    unsupported("thread/sample", Stability::Experimental, Unsupported::Cloud),
    unsupported(
        "thread/sample/cancel",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "thread/increment_elicitation",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/decrement_elicitation",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/prediction/request",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "thread/queue/update",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/queue/delete",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/queue/reorder",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/queue/start",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/attachmentOwner/list",
        Stability::Stable,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/memoryMode/set",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/memory/read",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "memory/reset",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "rollout/compress",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/approveGuardianDeniedAction",
        Stability::Stable,
        Unsupported::Cloud,
    ),
    unsupported(
        "thread/backgroundTerminals/clean",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/backgroundTerminals/terminate",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "project/list",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "project/read",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "project/create",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "project/import",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "project/update",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "project/move",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "project/delete",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/searchOccurrences",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/items/read",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/guardianReview",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "thread/prepareApprovedPlan",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported("marketplace/add", Stability::Stable, Unsupported::Cloud),
    unsupported("marketplace/remove", Stability::Stable, Unsupported::Cloud),
    unsupported("marketplace/upgrade", Stability::Stable, Unsupported::Cloud),
    unsupported("plugin/search", Stability::Experimental, Unsupported::Cloud),
    unsupported("plugin/installed", Stability::Stable, Unsupported::Cloud),
    unsupported("plugin/reconcile", Stability::Stable, Unsupported::Cloud),
    unsupported("plugin/read", Stability::Stable, Unsupported::Cloud),
    unsupported("plugin/skill/read", Stability::Stable, Unsupported::Cloud),
    unsupported("plugin/share/save", Stability::Stable, Unsupported::Cloud),
    unsupported(
        "plugin/share/updateTargets",
        Stability::Stable,
        Unsupported::Cloud,
    ),
    unsupported("plugin/share/list", Stability::Stable, Unsupported::Cloud),
    unsupported(
        "plugin/share/checkout",
        Stability::Stable,
        Unsupported::Cloud,
    ),
    unsupported("plugin/share/delete", Stability::Stable, Unsupported::Cloud),
    unsupported("app/read", Stability::Stable, Unsupported::Cloud),
    unsupported("app/list", Stability::Stable, Unsupported::Cloud),
    unsupported("app/installed", Stability::Stable, Unsupported::Cloud),
    unsupported("plugin/install", Stability::Stable, Unsupported::Cloud),
    unsupported("plugin/uninstall", Stability::Stable, Unsupported::Cloud),
    unsupported(
        "turn/settings/update",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/realtime/start",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "thread/realtime/appendAudio",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "thread/realtime/appendText",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "thread/realtime/appendSpeech",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "thread/realtime/stop",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "thread/timeline/list",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "thread/realtime/listVoices",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "account/gatewayOAuth/read",
        Stability::Stable,
        Unsupported::Account,
    ),
    unsupported(
        "account/gatewayOAuth/login",
        Stability::Stable,
        Unsupported::Account,
    ),
    unsupported(
        "account/gatewayOAuth/cancel",
        Stability::Stable,
        Unsupported::Account,
    ),
    unsupported(
        "remoteControl/enable",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "remoteControl/disable",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "remoteControl/status/read",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "remoteControl/pairing/start",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "remoteControl/pairing/status",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "remoteControl/client/list",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "remoteControl/client/revoke",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "mock/experimentalMethod",
        Stability::Experimental,
        Unsupported::ReferenceTest,
    ),
    unsupported(
        "environment/add",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "environment/info",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "environment/status",
        Stability::Experimental,
        Unsupported::Cloud,
    ),
    unsupported(
        "mcpServer/oauth/login",
        Stability::Stable,
        Unsupported::Account,
    ),
    unsupported(
        "mcpServer/event/stream/start",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "mcpServer/event/stream/stop",
        Stability::Experimental,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "windowsSandbox/setupStart",
        Stability::Stable,
        Unsupported::Windows,
    ),
    unsupported(
        "windowsSandbox/readiness",
        Stability::Stable,
        Unsupported::Windows,
    ),
    unsupported(
        "account/bedrock/discover",
        Stability::Experimental,
        Unsupported::Account,
    ),
    unsupported(
        "account/bedrock/setup",
        Stability::Experimental,
        Unsupported::Account,
    ),
    unsupported(
        "account/gcp/setup",
        Stability::Experimental,
        Unsupported::Account,
    ),
    unsupported(
        "account/bedrock/checkGovCloudRequirements",
        Stability::Experimental,
        Unsupported::Account,
    ),
    unsupported(
        "accountSession/list",
        Stability::Experimental,
        Unsupported::Account,
    ),
    unsupported(
        "accountSession/switch",
        Stability::Experimental,
        Unsupported::Account,
    ),
    unsupported(
        "account/securitySetup/read",
        Stability::Stable,
        Unsupported::Account,
    ),
    unsupported(
        "account/rateLimitResetCredit/consume",
        Stability::Stable,
        Unsupported::Account,
    ),
    unsupported(
        "account/usage/read",
        Stability::Stable,
        Unsupported::Account,
    ),
    unsupported(
        "account/workspaceMessages/read",
        Stability::Stable,
        Unsupported::Account,
    ),
    unsupported(
        "account/sendAddCreditsNudgeEmail",
        Stability::Stable,
        Unsupported::Account,
    ),
    unsupported("feedback/upload", Stability::Stable, Unsupported::Cloud),
    unsupported(
        "externalAgentConfig/import/recordHistory",
        Stability::Stable,
        Unsupported::NotImplemented,
    ),
    unsupported(
        "externalAgentConfig/import/readHistories",
        Stability::Stable,
        Unsupported::NotImplemented,
    ),
];

/// The entry of `method`, when this server does not serve it.
pub fn unsupported_method(method: &str) -> Option<&'static UnsupportedMethod> {
    UNSUPPORTED_METHODS
        .iter()
        .find(|entry| entry.method == method)
}
