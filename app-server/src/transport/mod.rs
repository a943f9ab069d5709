//! Transports: the only code that touches stdin and stdout, and the WebSocket framing of the
//! listeners.
//!
//! Architecture invariant: nothing outside `transport/` reads stdin or writes stdout.

pub mod pipes;
pub mod proxy;
pub mod stdio;
pub mod ws;

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

/// The id of a request whose line was cut after `prefix` (an over-long line): the top-level
/// `"id"` member of the object the line opens, when it is an integer or a string that ends
/// within the prefix. Nested objects and strings are skipped, so an `"id"` inside `params`
/// is never taken for the request's.
pub fn request_id_in_prefix(prefix: &[u8]) -> Option<RequestId> {
    let start = skip_whitespace(prefix, 0);
    if prefix.get(start) != Some(&b'{') {
        return None;
    }
    let mut depth = 1usize;
    let mut index = start + 1;
    while index < prefix.len() {
        match prefix[index] {
            b'"' => {
                let end = string_end(prefix, index)?;
                let after = skip_whitespace(prefix, end + 1);
                if depth == 1
                    && &prefix[index..=end] == b"\"id\""
                    && prefix.get(after) == Some(&b':')
                {
                    return id_value(&prefix[skip_whitespace(prefix, after + 1)..]);
                }
                index = end + 1;
            }
            b'{' | b'[' => {
                depth += 1;
                index += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1).filter(|depth| *depth > 0)?;
                index += 1;
            }
            _ => index += 1,
        }
    }
    None
}

/// The index of the quote closing the string that opens at `open`.
fn string_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut index = open + 1;
    while index < bytes.len() {
        match bytes[index] {
            b'\\' => index += 2,
            b'"' => return Some(index),
            _ => index += 1,
        }
    }
    None
}

fn skip_whitespace(bytes: &[u8], mut index: usize) -> usize {
    while bytes
        .get(index)
        .is_some_and(|byte| matches!(byte, b' ' | b'\t' | b'\r' | b'\n'))
    {
        index += 1;
    }
    index
}

/// A request id at the start of `value`: a whole string, or an integer followed by a
/// delimiter (a number cut by the prefix's end might be the start of a longer one).
fn id_value(value: &[u8]) -> Option<RequestId> {
    match value.first()? {
        b'"' => {
            let end = string_end(value, 0)?;
            serde_json::from_slice::<String>(&value[..=end])
                .ok()
                .map(RequestId::String)
        }
        b'-' | b'0'..=b'9' => {
            let length = value
                .iter()
                .position(|byte| !matches!(byte, b'-' | b'0'..=b'9'))?;
            if !matches!(value[length], b',' | b'}' | b' ' | b'\t' | b'\r' | b'\n') {
                return None;
            }
            std::str::from_utf8(&value[..length])
                .ok()?
                .parse()
                .ok()
                .map(RequestId::Integer)
        }
        _ => None,
    }
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

    #[test]
    fn request_ids_are_recovered_from_the_start_of_a_cut_line() {
        let cases: [(&str, Option<RequestId>); 12] = [
            (
                r#"{"id":7,"method":"thread/list","params":{"x":"#,
                Some(RequestId::Integer(7)),
            ),
            (
                r#" { "jsonrpc" : "2.0", "id" : -12 , "params"#,
                Some(RequestId::Integer(-12)),
            ),
            (
                r#"{"method":"m","id":"req-\"a\"","params":{"#,
                Some(RequestId::String("req-\"a\"".into())),
            ),
            (r#"{"method":"m","params":{"id":5,"text":"aaaa"#, None),
            (
                r#"{"method":"id","params":["id",{"id":3}],"id":4,"x":"#,
                Some(RequestId::Integer(4)),
            ),
            (
                r#"{"method":"m","note":"\"id\":9","id":10}"#,
                Some(RequestId::Integer(10)),
            ),
            (r#"{"id":12"#, None),
            (r#"{"id":"unterminated"#, None),
            (r#"{"id":1.5,"#, None),
            (r#"{"id":null,"#, None),
            (r#"[{"id":1},"#, None),
            (r#"{"params":{"text":"aaaa"#, None),
        ];
        for (prefix, expected) in cases {
            assert_eq!(
                request_id_in_prefix(prefix.as_bytes()),
                expected,
                "{prefix}"
            );
        }
    }
}
