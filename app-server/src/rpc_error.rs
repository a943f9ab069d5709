//! The one set of JSON-RPC error constructors, for the app-server connection and the MCP
//! adapter alike.
//!
//! The app-server answers every request-level error with `-32600`, as the reference server
//! does, `-32603` for internal failures and `-32001` for overload; the MCP adapter also uses
//! the standard `-32700`, `-32601` and `-32602` that the MCP specification expects.

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, error_codes};

/// An error with `code` and `message`.
pub fn with_code(code: i64, message: impl Into<String>) -> JsonRpcErrorBody {
    JsonRpcErrorBody {
        code,
        message: message.into(),
        data: None,
    }
}

/// `-32700` with `message`.
pub fn parse_error(message: impl Into<String>) -> JsonRpcErrorBody {
    with_code(error_codes::PARSE_ERROR, message)
}

/// `-32600` with `message`.
pub fn invalid_request(message: impl Into<String>) -> JsonRpcErrorBody {
    with_code(error_codes::INVALID_REQUEST, message)
}

/// `-32601` for `method`.
pub fn method_not_found(method: &str) -> JsonRpcErrorBody {
    with_code(
        error_codes::METHOD_NOT_FOUND,
        format!("method not found: {method}"),
    )
}

/// `-32602` with `message`.
pub fn invalid_params(message: impl Into<String>) -> JsonRpcErrorBody {
    with_code(error_codes::INVALID_PARAMS, message)
}

/// `-32603` with `message`.
pub fn internal_error(message: impl Into<String>) -> JsonRpcErrorBody {
    with_code(error_codes::INTERNAL_ERROR, message)
}

/// `-32001 "Server overloaded; retry later."`.
pub fn overloaded() -> JsonRpcErrorBody {
    with_code(error_codes::OVERLOADED, "Server overloaded; retry later.")
}

/// `-32600` for an input line longer than `max_line_bytes` (`app_server.max_line_bytes`),
/// which was discarded unread.
pub fn line_too_long(max_line_bytes: usize) -> JsonRpcErrorBody {
    invalid_request(format!(
        "invalid request: the line exceeds the limit of {max_line_bytes} bytes (app_server.max_line_bytes)"
    ))
}

/// The answer to a config write that did not happen: `-32600` carrying the reference's
/// `config_write_error_code` in `data`, or `-32603` when the file could not be read or written.
pub fn config_write_error(
    error: &tandem_core::config::write::ConfigWriteError,
) -> JsonRpcErrorBody {
    match error.code() {
        Some(code) => JsonRpcErrorBody {
            code: error_codes::INVALID_REQUEST,
            message: error.to_string(),
            data: Some(serde_json::json!({ "config_write_error_code": code })),
        },
        None => internal_error(error.to_string()),
    }
}
