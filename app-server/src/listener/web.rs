//! `--web`: the reference web client, served by a `ws://` listener, and how a page of it
//! authenticates.
//!
//! The page (`GET /`, its scripts and style under `/web/`) is static and built ahead of time
//! from `clients/web` into `listener/web/`, embedded in the binary: it holds no secret and
//! is served without authentication. The capability token reaches the page in the URL's
//! fragment (`#token=…`), which browsers never send to a server.
//!
//! A browser cannot set `Authorization` on a WebSocket, so an upgrade that carries the
//! page's own `Origin` and no `Authorization` header is accepted without one, and its first
//! text frame must then be `{"type":"authenticate","token":"…"}` within
//! [`HANDSHAKE_DEADLINE`]; the token is checked as a bearer token is (in constant time), and
//! anything else closes the connection with code 1008 and a reason saying why. Every other
//! `Origin` stays refused unless allowed with `--allowed-origin`, and then needs the
//! `Authorization` header as before. No cookie is set or read.

use std::net::SocketAddr;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tandem_core::principal::Principal;

use super::auth::WsAuth;

/// How long a page's connection has to send its token.
pub const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(5);

/// Largest first message accepted (a token is at most 1 KiB).
const MAX_HANDSHAKE_BYTES: usize = 4096;

/// How long a refused connection waits for the client's close frame before it is dropped.
const CLOSE_LINGER: Duration = Duration::from_secs(2);

/// WebSocket close code of a refused handshake: policy violation.
const POLICY_VIOLATION: u16 = 1008;

/// The page's files: name under `/web/` (`index.html` is also `/`), media type, contents.
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("web/index.html"),
    ),
    (
        "app.css",
        "text/css; charset=utf-8",
        include_str!("web/app.css"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("web/app.js"),
    ),
    (
        "rpc.js",
        "text/javascript; charset=utf-8",
        include_str!("web/rpc.js"),
    ),
    (
        "render.js",
        "text/javascript; charset=utf-8",
        include_str!("web/render.js"),
    ),
    (
        "dialogs.js",
        "text/javascript; charset=utf-8",
        include_str!("web/dialogs.js"),
    ),
];

/// Only the page's own files, scripts and WebSocket: no inline script, no other origin.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// The web client of one listener: the origins its page is served from.
#[derive(Clone)]
pub struct WebPage {
    /// `http://IP:PORT` of the bound address, and `http://localhost:PORT` on loopback.
    origins: Vec<String>,
    /// The token printed in the page's URL at start: the listener's only token, empty when
    /// none is needed (`--ws-auth none`), `None` when the server does not know it.
    token: Option<String>,
}

impl WebPage {
    /// The page of a listener not bound yet; `token` goes into the URL printed at start.
    pub fn new(token: Option<String>) -> WebPage {
        WebPage {
            origins: Vec::new(),
            token,
        }
    }

    /// The page of the listener bound to `bound`, whose address is the page's origin.
    pub fn bound_to(self, bound: SocketAddr) -> WebPage {
        let mut origins = vec![format!("http://{bound}")];
        if bound.ip().is_loopback() {
            origins.push(format!("http://localhost:{}", bound.port()));
        }
        WebPage { origins, ..self }
    }

    /// Whether `headers` carry the page's own `Origin`.
    pub fn is_own_origin(&self, headers: &HeaderMap) -> bool {
        headers
            .get(header::ORIGIN)
            .and_then(|origin| origin.to_str().ok())
            .is_some_and(|origin| {
                self.origins
                    .iter()
                    .any(|own| own.eq_ignore_ascii_case(origin))
            })
    }

    /// The page's URL, with the token in the fragment when one is known.
    pub fn url(&self) -> String {
        let origin = self.origins.first().map(String::as_str).unwrap_or_default();
        match &self.token {
            Some(token) if token.is_empty() => format!("{origin}/"),
            Some(token) => format!("{origin}/#token={token}"),
            None => format!("{origin}/#token=<token>"),
        }
    }
}

/// `GET /` (without an upgrade) and `GET /web/{name}`: the page's files.
pub fn asset(name: &str) -> Response {
    let Some((_, media_type, body)) = ASSETS.iter().find(|(asset, _, _)| *asset == name) else {
        return (StatusCode::NOT_FOUND, "not found").into_response();
    };
    let mut response = (*body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(media_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// Reads a page's first message and returns the principal its token names; on any failure
/// closes the socket with code 1008 and the reason, and returns `None`.
pub async fn authenticate(socket: &mut WebSocket, auth: &WsAuth) -> Option<Principal> {
    let outcome = match tokio::time::timeout(HANDSHAKE_DEADLINE, first_text(socket)).await {
        Err(_) => Err("no authentication message within 5 s"),
        Ok(None) => return None,
        Ok(Some(text)) => match token_of(&text) {
            // `--ws-auth none` takes any token, the empty one of a URL without a fragment too.
            Some("") if !matches!(auth, WsAuth::Disabled) => Err("missing websocket bearer token"),
            Some(token) => auth
                .principal_of_token(token)
                .map_err(|refusal| refusal.message),
            None => Err("the first message must be {\"type\":\"authenticate\",\"token\":\"...\"}"),
        },
    };
    match outcome {
        Ok(principal) => Some(principal),
        Err(reason) => {
            let close = Message::Close(Some(CloseFrame {
                code: POLICY_VIOLATION,
                reason: reason.into(),
            }));
            let _ = socket.send(close).await;
            // Finish the closing handshake before the socket is dropped: a page sends its
            // first request right behind the token, and a socket closed with that request
            // unread is reset by the kernel, which browsers report as 1006 without the
            // close frame and its reason.
            let drain = async { while let Some(Ok(_)) = socket.recv().await {} };
            let _ = tokio::time::timeout(CLOSE_LINGER, drain).await;
            None
        }
    }
}

/// The first text frame (a binary one counts as a malformed message); `None` when the client
/// left first.
async fn first_text(socket: &mut WebSocket) -> Option<String> {
    loop {
        match socket.recv().await? {
            Ok(Message::Text(text)) => return Some(text.as_str().to_owned()),
            Ok(Message::Binary(_)) => return Some(String::new()),
            Ok(Message::Ping(_) | Message::Pong(_)) => {}
            Ok(Message::Close(_)) | Err(_) => return None,
        }
    }
}

/// The token of `{"type":"authenticate","token":"…"}`, or `None` when the message is not
/// that (too long, not JSON, another shape).
fn token_of(text: &str) -> Option<&str> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Authenticate<'a> {
        r#type: &'a str,
        token: &'a str,
    }
    if text.len() > MAX_HANDSHAKE_BYTES {
        return None;
    }
    let message: Authenticate<'_> = serde_json::from_str(text).ok()?;
    (message.r#type == "authenticate").then_some(message.token.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_message_names_its_token_and_nothing_else_passes() {
        assert_eq!(
            token_of(r#"{"type":"authenticate","token":"abc"}"#),
            Some("abc")
        );
        assert_eq!(token_of(r#"{"type":"hello","token":"abc"}"#), None);
        assert_eq!(token_of(r#"{"method":"initialize","id":1}"#), None);
        assert_eq!(token_of("not json"), None);
        let long = format!(
            r#"{{"type":"authenticate","token":"{}"}}"#,
            "a".repeat(5000)
        );
        assert_eq!(token_of(&long), None);
    }

    #[test]
    fn the_page_origin_is_the_bound_address_and_localhost_on_loopback() {
        let page = WebPage::new(None).bound_to("127.0.0.1:4500".parse().unwrap());
        let mut headers = HeaderMap::new();
        assert!(!page.is_own_origin(&headers));
        for (origin, own) in [
            ("http://127.0.0.1:4500", true),
            ("http://localhost:4500", true),
            ("http://127.0.0.1:4501", false),
            ("http://evil.test", false),
        ] {
            headers.insert(header::ORIGIN, HeaderValue::from_static(origin));
            assert_eq!(page.is_own_origin(&headers), own, "{origin}");
        }
        assert_eq!(page.url(), "http://127.0.0.1:4500/#token=<token>");
    }
}
