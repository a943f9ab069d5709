//! CORS for browser clients of the HTTP transport: the preflight (`OPTIONS`) and the headers
//! that let a page on an allowed origin read responses and the session id.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::mcp::http::HttpState;

/// CORS preflight for browser clients on an allowed origin (no credentials are checked:
/// a preflight carries none).
pub(super) async fn preflight(State(state): State<Arc<HttpState>>, headers: HeaderMap) -> Response {
    if let Err(response) = state.refusal(state.http.access.check_origin(&headers, &state.bind_host))
    {
        return *response;
    }
    let mut response = StatusCode::NO_CONTENT.into_response();
    let response_headers = response.headers_mut();
    response_headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, DELETE"),
    );
    response_headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(
            "authorization, content-type, accept, last-event-id, mcp-session-id, mcp-protocol-version, x-mcp-post-stream",
        ),
    );
    response_headers.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    response
}

/// Lets a browser page on an allowed origin read responses and the session id: every
/// response to a request with an `Origin` that was not refused names that origin.
pub(super) async fn cors_headers(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let origin = request.headers().get(header::ORIGIN).cloned();
    let mut response = next.run(request).await;
    if let Some(origin) = origin
        && response.status() != StatusCode::FORBIDDEN
    {
        let headers = response.headers_mut();
        headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static("mcp-session-id"),
        );
        headers.append(header::VARY, HeaderValue::from_static("origin"));
    }
    response
}
