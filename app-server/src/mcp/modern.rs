//! MCP 2026-07-28, the stateless era: requests that carry their protocol version, client
//! capabilities and client info in `params._meta`, answered without `initialize` or a session.
//!
//! A request is in the 2026 form when its `_meta` names the protocol version or the client
//! capabilities (`io.modelcontextprotocol/...` keys, see [`is_modern_request`]); every other
//! request follows the session rules of 2025-11-25 and earlier, unchanged. The transports
//! (`stdio.rs`, `http/modern.rs`) serve each 2026 request in a session of its own, built by
//! [`crate::mcp::session::McpSession::modern`] from the request's `_meta` and closed after its
//! answer; this module holds the wire rules they share: reading and checking `_meta`
//! ([`read_meta`]), `server/discover` ([`discover_result`]), the fields every 2026 result carries
//! ([`complete_result`]) and the spec's error codes.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use app_server_protocol::jsonrpc::JsonRpcErrorBody;
use serde_json::{Map, Value, json};

use crate::mcp::calls::ThreadOwners;
use crate::mcp::output::Outbound;
use crate::mcp::protocol::{self, ClientCapabilities, SERVER_NAME};
use crate::mcp::session::{McpOptions, McpSession, Negotiated};
use tandem_core::config::Config;
use tandem_core::principal::Principal;
use tandem_core::store::Store;

/// The stateless protocol version.
pub const MODERN_VERSION: &str = "2026-07-28";

/// Every version this server speaks, newest first: the stateless one, then the session
/// versions of `initialize`.
pub const ALL_VERSIONS: [&str; 4] = [MODERN_VERSION, "2025-11-25", "2025-06-18", "2025-03-26"];

/// `_meta` key of the request's protocol version (required).
pub const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities for this request (required).
pub const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's name and version (optional).
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the lowest `notifications/message` level the client wants for this request
/// (optional; without it the request gets no log messages).
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta` key naming the server.
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// `HeaderMismatch`: the HTTP headers do not match the body, or a required one is missing.
pub const HEADER_MISMATCH: i64 = -32020;
/// `MissingRequiredClientCapability`: the request needs a capability the client did not declare.
pub const MISSING_CAPABILITY: i64 = -32021;
/// `UnsupportedProtocolVersion`: the request's version is not one this server speaks statelessly.
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// How long a client may cache a list result (`ttlMs`): the lists only change when the
/// server restarts with other options.
pub const LIST_TTL_MS: u64 = 300_000;

/// Methods of the session era that the 2026 protocol removed: a 2026 request for one of them
/// gets `-32601`.
pub const REMOVED_METHODS: [&str; 5] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

/// Whether `request` (a whole JSON-RPC request) is in the 2026 form: its `params._meta`
/// carries the protocol version or the client capabilities.
pub fn is_modern_request(request: &Value) -> bool {
    request
        .pointer("/params/_meta")
        .and_then(Value::as_object)
        .is_some_and(|meta| meta.contains_key(VERSION_KEY) || meta.contains_key(CAPABILITIES_KEY))
}

/// What one 2026 request says about its client.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMeta {
    /// The capabilities declared for this request.
    pub capabilities: ClientCapabilities,
    /// `clientInfo.name`, when given.
    pub client_name: Option<String>,
    /// `clientInfo.version`, when given.
    pub client_version: Option<String>,
    /// The `notifications/message` level asked for, when given and known.
    pub log_level: Option<String>,
}

/// Reads and checks a 2026 request's `params._meta`: `-32602` when it, its protocol version
/// or its client capabilities are missing or of the wrong type, `-32022` (with the supported
/// versions and the requested one) when the version is not [`MODERN_VERSION`], `-32602` when
/// the client info is over the caps of `initialize`'s.
pub fn read_meta(params: &Value) -> Result<RequestMeta, JsonRpcErrorBody> {
    let Some(meta) = params.get("_meta").and_then(Value::as_object) else {
        return Err(invalid_params(
            "a 2026-07-28 request needs `params._meta` with the protocol version and client capabilities",
        ));
    };
    let Some(version) = meta.get(VERSION_KEY).and_then(Value::as_str) else {
        return Err(invalid_params(format!(
            "`_meta` lacks the string `{VERSION_KEY}`"
        )));
    };
    let Some(capabilities) = meta.get(CAPABILITIES_KEY).filter(|value| value.is_object()) else {
        return Err(invalid_params(format!(
            "`_meta` lacks the object `{CAPABILITIES_KEY}`"
        )));
    };
    if version != MODERN_VERSION {
        return Err(unsupported_version(version));
    }
    let client_info = meta.get(CLIENT_INFO_KEY).cloned();
    if let Some(client_info) = &client_info {
        protocol::check_client_info(&json!({"clientInfo": client_info}))?;
    }
    let text = |key: &str| {
        client_info
            .as_ref()
            .and_then(|info| info.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let capabilities =
        ClientCapabilities::from_params(&json!({"capabilities": capabilities.clone()}));
    Ok(RequestMeta {
        capabilities,
        client_name: text("name"),
        client_version: text("version"),
        log_level: meta
            .get(LOG_LEVEL_KEY)
            .and_then(Value::as_str)
            .filter(|level| protocol::log_level_rank(level).is_some())
            .map(str::to_string),
    })
}

/// `-32602` with `message`.
fn invalid_params(message: impl Into<String>) -> JsonRpcErrorBody {
    crate::rpc_error::invalid_params(message)
}

/// The `UnsupportedProtocolVersion` error for `requested`.
pub fn unsupported_version(requested: &str) -> JsonRpcErrorBody {
    let mut requested = requested.to_string();
    // The error echoes the request; a huge version string is not worth echoing whole.
    requested.truncate(64);
    JsonRpcErrorBody {
        code: UNSUPPORTED_VERSION,
        message: "Unsupported protocol version".to_string(),
        data: Some(json!({"supported": ALL_VERSIONS, "requested": requested})),
    }
}

/// A `HeaderMismatch` error saying what did not match.
pub fn header_mismatch(message: impl Into<String>) -> JsonRpcErrorBody {
    JsonRpcErrorBody {
        code: HEADER_MISMATCH,
        message: format!("Header mismatch: {}", message.into()),
        data: None,
    }
}

/// The server's name and version, as the result `_meta` names it.
pub fn server_info() -> Value {
    json!({"name": SERVER_NAME, "title": "Tandem", "version": env!("CARGO_PKG_VERSION")})
}

/// The `server/discover` result, with `capabilities` (those `initialize` would announce,
/// without logging, which 2026 clients ask for per request, and without `subscribe` and
/// `listChanged`, since `subscriptions/listen` honours no list-changed or resource type), and
/// with the Tasks extension under `extensions`.
pub fn discover_result(mut capabilities: Value) -> Value {
    if let Some(capabilities) = capabilities.as_object_mut() {
        capabilities.remove("logging");
        // `resources/subscribe` is gone in 2026-07-28, and `subscriptions/listen` carries no
        // list changes or resource updates here (`crate::mcp::listen`).
        for capability in capabilities.values_mut() {
            if let Some(capability) = capability.as_object_mut() {
                capability.remove("subscribe");
                capability.remove("listChanged");
            }
        }
        // The Tasks extension (`crate::mcp::tasks`) is a 2026-07-28 one.
        capabilities.insert(
            "extensions".to_string(),
            json!({crate::mcp::tasks::EXTENSION: {}}),
        );
    }
    let instructions = "Tandem runs a coding agent. Call `codex` with a prompt to start a conversation and `codex-reply` with its threadId to continue it. Progress streams as `codex/event` and progress notifications on the call's own stream. When a call needs an approval or an answer, a client that declares the elicitation capability gets an `input_required` result and retries the call with `inputResponses` and the `requestState`; for other clients the server's approval fallback decides, and the result says how. A client that declares the io.modelcontextprotocol/tasks extension gets a task for `codex` and `codex-reply` instead: poll it with `tasks/get`, answer its inputRequests with `tasks/update`.";
    json!({
        "resultType": "complete",
        "supportedVersions": ALL_VERSIONS,
        "capabilities": capabilities,
        "instructions": instructions,
        "ttlMs": LIST_TTL_MS,
        "cacheScope": "public",
        "_meta": {SERVER_INFO_KEY: server_info()},
    })
}

/// Whether the result of `method` may be cached (`ttlMs` and `cacheScope`).
fn is_cacheable(method: &str) -> bool {
    matches!(
        method,
        "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    )
}

/// A 2026 result: `resultType` (`complete` unless the handler set another), the server's
/// name in `_meta`, and the caching hints on list results. The lists are the same for every
/// client of a server, hence `public`.
pub fn complete_result(method: &str, result: Value) -> Value {
    let mut result = match result {
        Value::Object(result) => result,
        other => {
            let mut wrapped = Map::new();
            wrapped.insert("value".to_string(), other);
            wrapped
        }
    };
    result
        .entry("resultType")
        .or_insert_with(|| json!("complete"));
    let meta = result.entry("_meta").or_insert_with(|| json!({}));
    if let Value::Object(meta) = meta {
        meta.entry(SERVER_INFO_KEY).or_insert_with(server_info);
    }
    if is_cacheable(method) {
        result.entry("ttlMs").or_insert_with(|| json!(LIST_TTL_MS));
        result
            .entry("cacheScope")
            .or_insert_with(|| json!("public"));
    }
    Value::Object(result)
}

/// Where a 2026 request's session lives.
pub struct ModernSessionParts {
    /// The session's id in logs and thread ownership (unique per request).
    pub session_id: String,
    /// Who sends the request.
    pub principal: Principal,
    /// The server's configuration.
    pub config: Arc<Config>,
    /// The shared store.
    pub store: Arc<Store>,
    /// Where the request's messages go.
    pub outbound: Arc<dyn Outbound>,
    /// The server's options.
    pub options: McpOptions,
    /// The process-wide thread ownership.
    pub owners: Arc<ThreadOwners>,
}

impl McpSession {
    /// The session of one 2026 request, set up from its checked `_meta`: the declared
    /// capabilities, the client's name (thread originator, user agent) and the log level asked
    /// for (none when absent). It serves that request only and is closed after its answer.
    pub fn modern(parts: ModernSessionParts, meta: &RequestMeta) -> Arc<McpSession> {
        let relay = Arc::new(crate::mcp::mrtr::CallOutbound::new(parts.outbound));
        let session = McpSession::new(
            parts.session_id,
            parts.principal,
            parts.config,
            parts.store,
            relay.clone(),
            parts.options,
            parts.owners,
        );
        let _ = session.shared.call_relay.set(relay);
        let _ = session.shared.negotiated.set(Negotiated {
            version: MODERN_VERSION,
            capabilities: meta.capabilities.clone(),
        });
        let rank = meta
            .log_level
            .as_deref()
            .and_then(protocol::log_level_rank)
            .unwrap_or(protocol::LOG_LEVELS.len());
        session.shared.log_level.store(rank, Ordering::Relaxed);
        if let Some(name) = &meta.client_name {
            session.engine.set_originator(name);
            session
                .conversation_api
                .set_user_agent(crate::compat::requests::user_agent(
                    &session.shared.options.os_release,
                    name,
                    meta.client_version.as_deref().unwrap_or(""),
                ));
        }
        session
    }

    /// Whether this session serves one 2026 request.
    pub fn is_modern(&self) -> bool {
        self.protocol_version() == Some(MODERN_VERSION)
    }

    /// The answer of a 2026 request for `server/discover` or a removed method; `None` for
    /// the methods both eras share.
    pub(crate) fn modern_method(&self, method: &str) -> Option<Result<Value, JsonRpcErrorBody>> {
        if method == "server/discover" {
            #[allow(unused_mut, reason = "the conformance fixtures announce more")]
            let mut capabilities =
                protocol::initialize_result(MODERN_VERSION)["capabilities"].clone();
            #[cfg(feature = "conformance-fixtures")]
            if self.shared.options.conformance_fixtures {
                capabilities = crate::mcp::fixtures::capabilities();
            }
            return Some(Ok(discover_result(capabilities)));
        }
        REMOVED_METHODS
            .contains(&method)
            .then(|| Err(crate::rpc_error::method_not_found(method)))
    }
}

#[cfg(test)]
#[path = "modern_tests.rs"]
mod tests;
