//! Constructors for JSON-RPC error bodies. Every request-level error is `-32600`, as the
//! reference server does; `-32603` is for internal failures; `-32001` for overload.

use app_server_protocol::jsonrpc::{JsonRpcErrorBody, error_codes};

/// `-32600` with `message`.
pub fn invalid_request(message: &str) -> JsonRpcErrorBody {
    JsonRpcErrorBody {
        code: error_codes::INVALID_REQUEST,
        message: message.to_string(),
        data: None,
    }
}

/// `-32603` with `message`.
pub fn internal_error(message: &str) -> JsonRpcErrorBody {
    JsonRpcErrorBody {
        code: error_codes::INTERNAL_ERROR,
        message: message.to_string(),
        data: None,
    }
}

/// `-32001 "Server overloaded; retry later."`.
pub fn overloaded() -> JsonRpcErrorBody {
    JsonRpcErrorBody {
        code: error_codes::OVERLOADED,
        message: "Server overloaded; retry later.".to_string(),
        data: None,
    }
}
