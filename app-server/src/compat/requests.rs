//! Request handling that both front ends share for the app-server's method table: the typed
//! decoding and experimental gates of one request, and the user agent that `initialize` and
//! the conversation API report.

use app_server_protocol::PROTOCOL_VERSION;
use app_server_protocol::jsonrpc::{JsonRpcErrorBody, RequestId};
use app_server_protocol::tables::{ClientRequest, ClientRequestPayload};
use app_server_protocol::tables_meta::Stability;
use app_server_protocol::thread_requests::ThreadSortKey;
use serde_json::Value;

use crate::compat::experimental;
use crate::rpc_error::invalid_request;

/// Typed decoding and the experimental gates of one request (after `initialize`): the payload
/// to dispatch, or the error that answers the request.
pub fn gate_request(
    id: RequestId,
    mut message: Value,
    experimental: bool,
) -> Result<(RequestId, ClientRequestPayload), (RequestId, JsonRpcErrorBody)> {
    if !experimental && let Some(descriptor) = experimental::ungated_experimental_use(&message) {
        let message = format!("{descriptor} requires experimentalApi capability");
        return Err((id, invalid_request(&message)));
    }
    if let Some(entry) = message
        .get("method")
        .and_then(Value::as_str)
        .and_then(app_server_protocol::unsupported::unsupported_method)
    {
        return Err((id, method_not_supported(entry)));
    }
    // Methods typed `NoParams` take none: an omitted `params` reads as `{}`; legacy methods
    // without params may also send `null`, as Codex's first-generation clients do. Every other
    // method requires `params`, as on the reference.
    if let Some(object) = message.as_object_mut()
        && let Some(method) = object.get("method").and_then(Value::as_str)
        && let Some(spec) = ClientRequest::METHODS
            .iter()
            .find(|spec| spec.method == method)
        && ((spec.params == "NoParams" && !object.contains_key("params"))
            || (spec.params == "LegacyEmptyParams"
                && object.get("params").is_none_or(Value::is_null)))
    {
        object.insert("params".to_string(), Value::Object(serde_json::Map::new()));
    } else if let Some(object) = message.as_object_mut()
        && object.get("params").is_some_and(Value::is_null)
    {
        // `"params": null` reads as absent, so the error is the reference's
        // "missing field `params`".
        object.remove("params");
    }
    let request = match serde_json::from_value::<ClientRequest>(message) {
        Ok(request) => request,
        Err(error) => {
            return Err((id, invalid_request(format!("Invalid request: {error}"))));
        }
    };
    if request.stability() == Stability::Experimental && !experimental {
        let message = format!("{} requires experimentalApi capability", request.method());
        return Err((id, invalid_request(&message)));
    }
    let (id, payload) = request.into_parts();
    if let Some(field) = experimental_field(&payload)
        && !experimental
    {
        let message = format!("{field} requires experimentalApi capability");
        return Err((id, invalid_request(&message)));
    }
    Ok((id, payload))
}

/// `-32601 "method not supported: <method>"`: an experimental method of the reference that
/// Tandem does not implement.
/// `-32601` for a method of the reference that Tandem does not serve, naming why.
fn method_not_supported(
    entry: &app_server_protocol::unsupported::UnsupportedMethod,
) -> JsonRpcErrorBody {
    crate::rpc_error::with_code(
        app_server_protocol::jsonrpc::error_codes::METHOD_NOT_FOUND,
        format!(
            "method not supported by this server: {}: {}",
            entry.method,
            entry.reason.explanation()
        ),
    )
}

/// The first experimental field or enum value a payload uses, with the reference's
/// descriptor (`<method>.<field>`, or `<type>.<value>` for an enum value; the reference names
/// `persistExtendedHistory` `persistFullHistory`). A boolean counts when `true`, an optional
/// field when present (`projectId` even when `null`, which selects threads of no project).
fn experimental_field(payload: &ClientRequestPayload) -> Option<&'static str> {
    match payload {
        ClientRequestPayload::TurnStart(params) if params.collaboration_mode.is_some() => {
            Some("turn/start.collaborationMode")
        }
        ClientRequestPayload::ThreadStart(params)
            if params.persist_extended_history == Some(true) =>
        {
            Some("thread/start.persistFullHistory")
        }
        ClientRequestPayload::ThreadResume(params)
            if params.persist_extended_history == Some(true) =>
        {
            Some("thread/resume.persistFullHistory")
        }
        ClientRequestPayload::ThreadFork(params)
            if params.persist_extended_history == Some(true) =>
        {
            Some("thread/fork.persistFullHistory")
        }
        ClientRequestPayload::ThreadList(params) => {
            if params.project_id.is_some() {
                Some("thread/list.projectId")
            } else if params.parent_thread_id.is_some() {
                Some("thread/list.parentThreadId")
            } else if params.ancestor_thread_id.is_some() {
                Some("thread/list.ancestorThreadId")
            } else if params.sort_key == Some(ThreadSortKey::RecencyAt) {
                Some("threadSortKey.recency_at")
            } else if params.sort_key == Some(ThreadSortKey::SectionPosition) {
                Some("threadSortKey.section_position")
            } else {
                None
            }
        }
        _ => None,
    }
}

/// `<client>/<protocol version> (<os> <os version>; <arch>) tandem/<version> (<client>; <client version>)`.
pub fn user_agent(os: &OsRelease, client_name: &str, client_version: &str) -> String {
    format!(
        "{client_name}/{PROTOCOL_VERSION} ({} {}; {}) tandem/{} ({client_name}; {client_version})",
        os.name,
        os.version,
        std::env::consts::ARCH,
        env!("CARGO_PKG_VERSION"),
    )
}

/// The operating system's name and version for the user agent, from `/etc/os-release`. A
/// server reads it once, before its runtime starts (so that `initialize` does no file I/O on
/// an async worker), and hands it to its connections and sessions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OsRelease {
    /// The first word of `NAME` (`Debian`), or the OS family when the file has none.
    pub name: String,
    /// `VERSION_ID` (`12`), or `unknown`.
    pub version: String,
}

impl OsRelease {
    /// Reads `/etc/os-release`. Blocking.
    pub fn read() -> OsRelease {
        let text = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
        let name = os_release_field(&text, "NAME").unwrap_or(std::env::consts::OS);
        let version = os_release_field(&text, "VERSION_ID").unwrap_or("unknown");
        OsRelease {
            name: name.to_string(),
            version: version.to_string(),
        }
    }
}

fn os_release_field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|line| {
        let value = line.strip_prefix(key)?.strip_prefix('=')?;
        let value = value.trim_matches('"');
        if key == "NAME" {
            value.split(' ').next()
        } else {
            Some(value)
        }
    })
}
