//! Tests of the HTTP and SSE plumbing shared by the model clients.

fn delay(name: &str, value: &str) -> Option<Duration> {
    let mut headers = HeaderMap::new();
    headers.insert(
        HeaderName::from_bytes(name.as_bytes()).unwrap(),
        HeaderValue::from_str(value).unwrap(),
    );
    retry_after(&headers)
}

/// Found by the `sse` fuzz target: `Retry-After: 1e20` panicked in
/// `Duration::from_secs_f64`.
#[test]
fn retry_after_values_out_of_range_are_clamped_or_ignored() {
    assert_eq!(delay("retry-after", "1e20"), Some(MAX_RETRY_AFTER));
    assert_eq!(
        delay("retry-after", "99999999999999999999"),
        Some(MAX_RETRY_AFTER)
    );
    assert_eq!(delay("retry-after-ms", "1e30"), Some(MAX_RETRY_AFTER));
    assert_eq!(delay("retry-after", "-1"), None);
    assert_eq!(delay("retry-after", "NaN"), None);
    assert_eq!(delay("retry-after", "inf"), None);
    assert_eq!(
        delay("retry-after", "1.5"),
        Some(Duration::from_millis(1500))
    );
    assert_eq!(
        delay("retry-after-ms", "250"),
        Some(Duration::from_millis(250))
    );
}
use pretty_assertions::assert_eq;

use super::*;

#[test]
fn hostile_retry_after_headers_are_clamped_or_ignored() {
    let delay = |name: &str, value: &str| {
        let mut headers = HeaderMap::new();
        headers.insert(
            HeaderName::from_bytes(name.as_bytes()).expect("name"),
            HeaderValue::from_str(value).expect("value"),
        );
        retry_after(&headers)
    };
    assert_eq!(delay("retry-after", "1e20"), Some(MAX_RETRY_AFTER));
    assert_eq!(
        delay("retry-after", "99999999999999999999"),
        Some(MAX_RETRY_AFTER)
    );
    assert_eq!(delay("retry-after", "-1"), None);
    assert_eq!(delay("retry-after", "NaN"), None);
    assert_eq!(delay("retry-after", "inf"), None);
    assert_eq!(delay("retry-after-ms", "1e300"), Some(MAX_RETRY_AFTER));
    assert_eq!(delay("retry-after", "2"), Some(Duration::from_secs(2)));
    assert_eq!(
        delay("retry-after-ms", "250"),
        Some(Duration::from_millis(250))
    );
}

#[test]
fn error_bodies() {
    assert_eq!(
        parse_error_body(r#"{"error":{"message":"bad","code":"context_length_exceeded"}}"#),
        (
            Some("bad".to_string()),
            Some("context_length_exceeded".to_string())
        )
    );
    assert_eq!(
        parse_error_body(
            r#"{"error":{"message":"bad","type":"invalid_request_error","code":null}}"#
        ),
        (
            Some("bad".to_string()),
            Some("invalid_request_error".to_string())
        )
    );
    assert_eq!(
        parse_error_body(r#"{"error":"model 'x' not found"}"#),
        (Some("model 'x' not found".to_string()), None)
    );
    assert_eq!(
        parse_error_body("upstream timeout\n"),
        (Some("upstream timeout".to_string()), None)
    );
    assert_eq!(parse_error_body(""), (None, None));
}
