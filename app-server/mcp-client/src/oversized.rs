//! What can be learnt from a message too large to read: its kind and its request id, from the
//! first and last bytes of its line (the rest was discarded unread).
//!
//! Servers write the members of a JSON-RPC message in their own order: the Python SDK writes
//! `{"jsonrpc":…,"id":…,"result":…}` (the id in the head), the TypeScript SDK
//! `{"result":…,"jsonrpc":…,"id":…}` (the id at the very end). So the head is scanned for the
//! top-level members that precede the large value, and the tail for an `"id"` that is the last
//! member of the object.

/// What the head of a message shows.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Head {
    /// A top-level `method` member: a request or notification, not an answer.
    pub method: bool,
    /// The top-level `id`, as its JSON text (`7`, `"abc"`), when it lies within the head.
    pub id: Option<String>,
}

/// Scans the top-level members of a JSON object cut after `head.len()` bytes.
pub fn scan_head(head: &[u8]) -> Head {
    let mut found = Head::default();
    let mut position = skip_whitespace(head, 0);
    if head.get(position) != Some(&b'{') {
        return found;
    }
    position += 1;
    loop {
        position = skip_whitespace(head, position);
        let Some(key_end) = string_end(head, position) else {
            return found;
        };
        let key = &head[position..key_end];
        position = skip_whitespace(head, key_end);
        if head.get(position) != Some(&b':') {
            return found;
        }
        position = skip_whitespace(head, position + 1);
        let Some(value_end) = value_end(head, position) else {
            return found;
        };
        match key {
            b"\"method\"" => found.method = true,
            b"\"id\"" if is_id(&head[position..value_end]) => {
                found.id = String::from_utf8(head[position..value_end].to_vec()).ok();
            }
            _ => {}
        }
        position = skip_whitespace(head, value_end);
        match head.get(position) {
            Some(b',') => position += 1,
            _ => return found,
        }
    }
}

/// The id of a message whose last top-level member is `"id": <number or string>`, from the
/// last bytes of its line.
pub fn id_from_tail(tail: &[u8]) -> Option<String> {
    let mut end = trim_end(tail, tail.len());
    if end == 0 || tail[end - 1] != b'}' {
        return None;
    }
    end = trim_end(tail, end - 1);
    let start = if end > 0 && tail[end - 1] == b'"' {
        // The opening quote of a string id: the previous quote that is not escaped.
        let mut quote = end - 1;
        loop {
            quote = tail[..quote].iter().rposition(|byte| *byte == b'"')?;
            let backslashes = tail[..quote]
                .iter()
                .rev()
                .take_while(|byte| **byte == b'\\')
                .count();
            if backslashes % 2 == 0 {
                break quote;
            }
        }
    } else {
        tail[..end]
            .iter()
            .rposition(|byte| !(byte.is_ascii_digit() || b"-+.eE".contains(byte)))
            .map_or(0, |position| position + 1)
    };
    let id = &tail[start..end];
    if !is_id(id) {
        return None;
    }
    let colon = trim_end(tail, start);
    if colon == 0 || tail[colon - 1] != b':' {
        return None;
    }
    let key_end = trim_end(tail, colon - 1);
    let key_start = key_end.checked_sub(4)?;
    if &tail[key_start..key_end] != b"\"id\"" {
        return None;
    }
    // Only a member separator or the object's opening brace may come before the key.
    let before = trim_end(tail, key_start);
    if before == 0 || !matches!(tail[before - 1], b',' | b'{') {
        return None;
    }
    String::from_utf8(id.to_vec()).ok()
}

/// Whether `text` is a request id: an integer or a string.
fn is_id(text: &[u8]) -> bool {
    match text.first() {
        Some(b'"') => text.len() >= 2 && text.ends_with(b"\""),
        Some(_) => {
            let digits = text.strip_prefix(b"-").unwrap_or(text);
            !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
        }
        None => false,
    }
}

fn skip_whitespace(text: &[u8], mut position: usize) -> usize {
    while text
        .get(position)
        .is_some_and(|byte| byte.is_ascii_whitespace())
    {
        position += 1;
    }
    position
}

fn trim_end(text: &[u8], mut end: usize) -> usize {
    while end > 0 && text[end - 1].is_ascii_whitespace() {
        end -= 1;
    }
    end
}

/// The end (exclusive) of the string starting at `start`, if it ends within `text`.
fn string_end(text: &[u8], start: usize) -> Option<usize> {
    if text.get(start) != Some(&b'"') {
        return None;
    }
    let mut position = start + 1;
    while let Some(byte) = text.get(position) {
        match byte {
            b'\\' => position += 2,
            b'"' => return Some(position + 1),
            _ => position += 1,
        }
    }
    None
}

/// The end (exclusive) of the JSON value starting at `start`, if it ends within `text`.
fn value_end(text: &[u8], start: usize) -> Option<usize> {
    match text.get(start)? {
        b'"' => string_end(text, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut position = start;
            while let Some(byte) = text.get(position) {
                match byte {
                    b'"' => {
                        position = string_end(text, position)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(position + 1);
                        }
                    }
                    _ => {}
                }
                position += 1;
            }
            None
        }
        _ => {
            // A number or a literal: it ends at a delimiter, which must lie within the head.
            let length = text[start..]
                .iter()
                .position(|byte| b",}] \t\r\n".contains(byte))?;
            Some(start + length)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_head_shows_the_id_when_it_comes_first() {
        let head = br#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"xxxx"#;
        assert_eq!(
            scan_head(head),
            Head {
                method: false,
                id: Some("7".into())
            }
        );
        let head = br#"{ "id" : "call-1" , "result" : {"#;
        assert_eq!(scan_head(head).id.as_deref(), Some("\"call-1\""));
        // Nested members named `id` or `method` are not the message's.
        let head = br#"{"result":{"id":3,"method":"x"},"error":{"message":"xxxxxx"#;
        assert_eq!(scan_head(head), Head::default());
        let head = br#"{"method":"notifications/message","params":{"data":"xxxx"#;
        assert!(scan_head(head).method);
        // A number cut by the end of the head is not an id.
        assert_eq!(scan_head(br#"{"id":12"#).id, None);
        assert_eq!(scan_head(b"not json").id, None);
    }

    #[test]
    fn the_tail_shows_the_id_when_it_comes_last() {
        assert_eq!(
            id_from_tail(br#"xxxxx"}]},"jsonrpc":"2.0","id":42}"#).as_deref(),
            Some("42")
        );
        assert_eq!(
            id_from_tail(b"xx\"}]} , \"id\" : \"a\\\"b\" } \r").as_deref(),
            Some("\"a\\\"b\"")
        );
        // Not the last member, not an id, or inside a string: nothing.
        for tail in [
            &br#"xxx","id":42,"jsonrpc":"2.0"}"#[..],
            br#"xxx","id":4.5}"#,
            br#"xxx\"id\":42}"#,
            br#"xxx"id":42}"#,
            br#"42}"#,
        ] {
            assert_eq!(
                id_from_tail(tail),
                None,
                "{}",
                String::from_utf8_lossy(tail)
            );
        }
    }
}
