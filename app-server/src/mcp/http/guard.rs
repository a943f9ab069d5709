//! Request checks of the HTTP transport that come before any MCP processing: `Host` and
//! `Origin` (DNS-rebinding protection), the bearer token (which names the request's
//! principal), and content negotiation.

use axum::http::{HeaderMap, header};

use crate::listener_auth::Authentication;
use tandem_core::principal::Principal;

/// Header names of the streamable HTTP transport.
pub const SESSION_HEADER: &str = "mcp-session-id";
/// The protocol version header (2025-06-18+).
pub const VERSION_HEADER: &str = "mcp-protocol-version";
/// Tandem's switch: `1` answers a POST with SSE, `0` with plain JSON.
pub const POST_STREAM_HEADER: &str = "x-mcp-post-stream";

/// Who may call this server.
#[derive(Debug, Clone)]
pub struct AccessPolicy {
    /// Extra `Host` values (host or host:port) accepted besides the loopback names and the
    /// bind address.
    pub allowed_hosts: Vec<String>,
    /// Extra `Origin` values (`scheme://host[:port]`) accepted besides loopback origins.
    pub allowed_origins: Vec<String>,
    /// Who may call, and as which principal.
    pub authentication: Authentication,
}

/// Why a request was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// 403: the Host header names another server.
    Host(String),
    /// 403: the Origin is not allowed.
    Origin(String),
    /// 401: missing or wrong bearer token.
    Unauthorized,
}

fn host_name(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        // [::1]:port
        return rest.split(']').next().unwrap_or(rest);
    }
    authority
        .rsplit_once(':')
        .map_or(authority, |(host, port)| {
            if port.chars().all(|character| character.is_ascii_digit()) {
                host
            } else {
                authority
            }
        })
}

fn is_loopback_name(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host == "::1"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|address| address.is_loopback())
}

impl AccessPolicy {
    /// Checks Host, Origin and the bearer token, in that order; the principal the request
    /// acts for.
    pub fn check(&self, headers: &HeaderMap, bind_host: &str) -> Result<Principal, Refusal> {
        self.check_origin(headers, bind_host)?;
        self.authentication
            .principal(headers)
            .ok_or(Refusal::Unauthorized)
    }

    /// Checks Host and Origin only (a CORS preflight carries no credentials).
    pub fn check_origin(&self, headers: &HeaderMap, bind_host: &str) -> Result<(), Refusal> {
        if let Some(host) = headers.get(header::HOST) {
            let host = host.to_str().unwrap_or_default();
            let name = host_name(host);
            let allowed = is_loopback_name(name)
                || name.eq_ignore_ascii_case(bind_host)
                || self.allowed_hosts.iter().any(|allowed| {
                    allowed.eq_ignore_ascii_case(host) || allowed.eq_ignore_ascii_case(name)
                });
            if !allowed {
                return Err(Refusal::Host(host.to_string()));
            }
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or_default();
            let authority = origin
                .strip_prefix("http://")
                .or_else(|| origin.strip_prefix("https://"));
            let allowed = authority.is_some_and(|authority| is_loopback_name(host_name(authority)))
                || self
                    .allowed_origins
                    .iter()
                    .any(|allowed| allowed.eq_ignore_ascii_case(origin));
            if !allowed {
                return Err(Refusal::Origin(origin.to_string()));
            }
        }
        Ok(())
    }
}

/// What a POST's `Accept` (and `X-MCP-POST-STREAM`) allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostReply {
    /// Answer with an SSE stream.
    Sse,
    /// Answer with one JSON object.
    Json,
}

/// Whether the `Accept` header lists `media_type` (or a wildcard covering it).
pub fn accepts(headers: &HeaderMap, media_type: &str) -> bool {
    let Some((kind, _)) = media_type.split_once('/') else {
        return false;
    };
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(|item| {
            item.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .any(|item| item == media_type || item == "*/*" || item == format!("{kind}/*"))
}

/// Chooses the reply form of a POST request, or `None` (406) when the client accepts neither
/// or forces a form it does not accept.
pub fn post_reply(headers: &HeaderMap) -> Option<PostReply> {
    let json = accepts(headers, "application/json");
    let sse = accepts(headers, "text/event-stream");
    let forced = headers
        .get(POST_STREAM_HEADER)
        .and_then(|value| value.to_str().ok())
        .map(str::trim);
    match forced {
        Some("1") if sse => Some(PostReply::Sse),
        Some("0") if json => Some(PostReply::Json),
        Some("1") | Some("0") => None,
        _ if sse => Some(PostReply::Sse),
        _ if json => Some(PostReply::Json),
        _ => None,
    }
}

/// Whether the body is declared as JSON.
pub fn is_json_content(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|value| value.trim().eq_ignore_ascii_case("application/json"))
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;
    use pretty_assertions::assert_eq;

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, HeaderValue::from_static(value));
        }
        map
    }

    fn policy() -> AccessPolicy {
        AccessPolicy {
            allowed_hosts: vec!["mcp.internal".into()],
            allowed_origins: vec!["https://app.example.com".into()],
            authentication: Authentication::Disabled,
        }
    }

    #[test]
    fn loopback_hosts_and_origins_pass_and_others_are_refused() {
        let policy = policy();
        for host in [
            "localhost:3333",
            "127.0.0.1:80",
            "[::1]:3333",
            "localhost",
            "mcp.internal:9",
        ] {
            assert_eq!(
                policy.check(&headers(&[("host", host)]), "127.0.0.1"),
                Ok(Principal::local_user()),
                "{host}"
            );
        }
        assert_eq!(
            policy.check(&headers(&[("host", "evil.example.com")]), "127.0.0.1"),
            Err(Refusal::Host("evil.example.com".into()))
        );
        for origin in [
            "http://localhost:5173",
            "http://127.0.0.1",
            "https://app.example.com",
        ] {
            let request = headers(&[("host", "localhost"), ("origin", origin)]);
            assert_eq!(
                policy.check(&request, "127.0.0.1"),
                Ok(Principal::local_user()),
                "{origin}"
            );
        }
        for origin in [
            "http://evil.example.com",
            "null",
            "http://localhost.evil.com",
        ] {
            let request = headers(&[("host", "localhost"), ("origin", origin)]);
            assert_eq!(
                policy.check(&request, "127.0.0.1"),
                Err(Refusal::Origin(origin.into())),
                "{origin}"
            );
        }
    }

    #[test]
    fn post_replies_follow_accept_and_the_override_header() {
        let both = [("accept", "application/json, text/event-stream")];
        assert_eq!(post_reply(&headers(&both)), Some(PostReply::Sse));
        assert_eq!(
            post_reply(&headers(&[("accept", "application/json")])),
            Some(PostReply::Json)
        );
        assert_eq!(
            post_reply(&headers(&[("accept", "text/event-stream")])),
            Some(PostReply::Sse)
        );
        assert_eq!(
            post_reply(&headers(&[("accept", "*/*")])),
            Some(PostReply::Sse)
        );
        assert_eq!(post_reply(&headers(&[("accept", "text/html")])), None);
        assert_eq!(
            post_reply(&headers(&[both[0], ("x-mcp-post-stream", "0")])),
            Some(PostReply::Json)
        );
        assert_eq!(
            post_reply(&headers(&[
                ("accept", "application/json"),
                ("x-mcp-post-stream", "1")
            ])),
            None
        );
        assert!(is_json_content(&headers(&[(
            "content-type",
            "application/json; charset=utf-8"
        )])));
        assert!(!is_json_content(&headers(&[(
            "content-type",
            "text/plain"
        )])));
    }
}
