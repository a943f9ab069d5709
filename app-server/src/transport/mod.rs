//! Transports: the only code that touches stdin and stdout.
//!
//! Architecture invariant: nothing outside `transport/` reads stdin or writes stdout.

pub mod pipes;
pub mod stdio;

use app_server_protocol::jsonrpc::RequestId;
use serde_json::Value;

/// A decoded message from the client, classified by its envelope.
#[derive(Debug)]
pub enum IncomingMessage {
    /// A request: has `method` and a valid `id`. `value` is the whole message.
    Request {
        /// The request id.
        id: RequestId,
        /// The method name.
        method: String,
        /// The whole message, for typed decoding.
        value: Value,
    },
    /// A notification: has `method` and no `id`.
    Notification {
        /// The method name.
        method: String,
    },
    /// A reply to a server request: `result` or `error`.
    Response {
        /// The server request id it answers.
        id: RequestId,
        /// `Ok(result)` or `Err(error object)`.
        outcome: Result<Value, Value>,
    },
}

/// Why a line was not a message.
#[derive(Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Not JSON at all.
    NotJson(String),
    /// JSON, but not a request, notification or response.
    NotAMessage(&'static str),
}

/// Classifies one line. Mirrors the reference server: batches, `"id": null`, non-string
/// methods and objects without a known shape are not messages.
pub fn decode_line(line: &str) -> Result<IncomingMessage, DecodeError> {
    let value: Value =
        serde_json::from_str(line).map_err(|error| DecodeError::NotJson(error.to_string()))?;
    let Value::Object(object) = &value else {
        return Err(DecodeError::NotAMessage("not a JSON object"));
    };
    let id = match object.get("id") {
        None => None,
        Some(raw) => match serde_json::from_value::<RequestId>(raw.clone()) {
            Ok(id) => Some(id),
            Err(_) => {
                return Err(DecodeError::NotAMessage(
                    "id is neither a string nor an integer",
                ));
            }
        },
    };
    if let Some(method) = object.get("method") {
        let Some(method) = method.as_str().map(str::to_string) else {
            return Err(DecodeError::NotAMessage("method is not a string"));
        };
        return Ok(match id {
            Some(id) => IncomingMessage::Request { id, method, value },
            None => IncomingMessage::Notification { method },
        });
    }
    let Some(id) = id else {
        return Err(DecodeError::NotAMessage("neither method nor id"));
    };
    if let Some(result) = object.get("result") {
        return Ok(IncomingMessage::Response {
            id,
            outcome: Ok(result.clone()),
        });
    }
    if let Some(error) = object.get("error") {
        return Ok(IncomingMessage::Response {
            id,
            outcome: Err(error.clone()),
        });
    }
    Err(DecodeError::NotAMessage(
        "id without method, result or error",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_lines_like_the_reference_server() {
        assert!(matches!(
            decode_line(r#"{"id":1,"method":"initialize","params":{}}"#),
            Ok(IncomingMessage::Request {
                id: RequestId::Integer(1),
                ..
            })
        ));
        assert!(matches!(
            decode_line(r#"{"id":"a","method":"x","jsonrpc":"2.0"}"#),
            Ok(IncomingMessage::Request {
                id: RequestId::String(_),
                ..
            })
        ));
        assert!(matches!(
            decode_line(r#"{"method":"initialized"}"#),
            Ok(IncomingMessage::Notification { .. })
        ));
        assert!(matches!(
            decode_line(r#"{"id":0,"result":{"decision":"accept"}}"#),
            Ok(IncomingMessage::Response { outcome: Ok(_), .. })
        ));
        assert!(matches!(
            decode_line(r#"{"id":0,"error":{"code":-32000,"message":"no"}}"#),
            Ok(IncomingMessage::Response {
                outcome: Err(_),
                ..
            })
        ));
        for dropped in [
            r#"{"id": 2, "method": "thread/list", "params": {"#,
            r#"[{"id":3,"method":"thread/list","params":{}}]"#,
            r#"{"id":null,"method":"thread/list","params":{}}"#,
            r#"{"id":19,"method":42}"#,
            r#"{"foo":1}"#,
        ] {
            assert!(decode_line(dropped).is_err(), "{dropped}");
        }
    }
}
