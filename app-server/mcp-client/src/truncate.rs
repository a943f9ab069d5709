//! Cutting a tool result to a size: what a server returns is untrusted and may be huge.
//!
//! A result's size is the JSON of its content blocks plus that of its structured content. Over
//! the cap, the blocks are kept in order while they fit; the text block that crosses the cap
//! keeps the text that fits; other blocks that do not fit (images, resources) are left out, and
//! so is structured content. A last text block then says what happened, so that whoever reads
//! the result (the model) knows it is incomplete and by how much.

use serde_json::{Value, json};

use crate::CallResult;

impl CallResult {
    /// The size [`CallResult::truncated`] compares with its cap: the content blocks and the
    /// structured content as JSON, in bytes.
    pub fn size(&self) -> usize {
        self.content.iter().map(json_len).sum::<usize>()
            + self.structured_content.as_ref().map_or(0, json_len)
    }

    /// This result, cut to about `max_bytes` (see the module documentation), with a marker
    /// block naming how many bytes were cut; unchanged when it fits.
    pub fn truncated(self, max_bytes: usize) -> CallResult {
        let total = self.size();
        if total <= max_bytes {
            return self;
        }
        let mut budget = max_bytes;
        let mut content = Vec::new();
        for block in self.content {
            let length = json_len(&block);
            if length <= budget {
                budget -= length;
                content.push(block);
                continue;
            }
            if let Some(text) = block.get("text").and_then(Value::as_str)
                && block.get("type").and_then(Value::as_str) == Some("text")
            {
                // What the block costs besides its text, then as much text as the rest allows.
                let overhead = length.saturating_sub(json_len(&Value::from(text)));
                let room = budget.saturating_sub(overhead + 2);
                let kept = prefix_within(text, room);
                if !kept.is_empty() {
                    let mut block = block.clone();
                    block["text"] = Value::from(kept);
                    content.push(block);
                }
            }
            // Any later block would be read out of its order: stop here.
            budget = 0;
            break;
        }
        let structured_content = self
            .structured_content
            .filter(|structured| json_len(structured) <= budget);
        let kept = content.iter().map(json_len).sum::<usize>()
            + structured_content.as_ref().map_or(0, json_len);
        let cut = total.saturating_sub(kept);
        content.push(json!({
            "type": "text",
            "text": format!(
                "[the MCP tool result was truncated: {cut} of its {total} bytes were cut (mcp_tool_output_max_bytes = {max_bytes})]"
            ),
        }));
        CallResult {
            content,
            structured_content,
            is_error: self.is_error,
            meta: self.meta,
        }
    }
}

fn json_len(value: &Value) -> usize {
    // Writing into a counter never fails; the length is what it counted.
    let mut counter = Counter(0);
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// The longest prefix of `text` whose JSON string (without quotes) fits in `room` bytes.
fn prefix_within(text: &str, room: usize) -> &str {
    let mut used = 0;
    for (index, character) in text.char_indices() {
        let cost = match character {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{08}' | '\u{0c}' => 2,
            character if (character as u32) < 0x20 => 6,
            character => character.len_utf8(),
        };
        if used + cost > room {
            return &text[..index];
        }
        used += cost;
    }
    text
}

struct Counter(usize);

impl std::io::Write for Counter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(content: Vec<Value>, structured_content: Option<Value>) -> CallResult {
        CallResult {
            content,
            structured_content,
            is_error: false,
            meta: None,
        }
    }

    fn text(text: &str) -> Value {
        json!({"type": "text", "text": text})
    }

    #[test]
    fn a_result_within_the_cap_is_unchanged() {
        let small = result(vec![text("hello")], Some(json!({"a": 1})));
        assert_eq!(small.clone().truncated(small.size()), small);
    }

    #[test]
    fn a_long_text_is_cut_to_the_cap_and_says_how_much_was_cut() {
        let long = "é\"x".repeat(10_000);
        let original = result(vec![text("first"), text(&long), text("after")], None);
        let total = original.size();
        let cut = original.truncated(1000);
        assert_eq!(cut.content.len(), 3, "{cut:?}");
        assert_eq!(cut.content[0], text("first"));
        let kept = cut.content[1]["text"].as_str().unwrap();
        assert!(long.starts_with(kept) && !kept.is_empty());
        let kept_size = cut.content[..2].iter().map(json_len).sum::<usize>();
        assert!(kept_size <= 1000 && kept_size > 950, "{kept_size}");
        let marker = cut.content[2]["text"].as_str().unwrap();
        assert_eq!(
            marker,
            format!(
                "[the MCP tool result was truncated: {} of its {total} bytes were cut (mcp_tool_output_max_bytes = 1000)]",
                total - kept_size
            )
        );
    }

    #[test]
    fn blocks_and_structured_content_that_do_not_fit_are_left_out() {
        let image = json!({"type": "image", "data": "A".repeat(5000), "mimeType": "image/png"});
        let structured = json!({"rows": "x".repeat(5000)});
        let cut = result(vec![text("caption"), image], Some(structured)).truncated(1000);
        assert_eq!(cut.structured_content, None);
        assert_eq!(cut.content.len(), 2);
        assert_eq!(cut.content[0], text("caption"));
        assert!(
            cut.content[1]["text"]
                .as_str()
                .unwrap()
                .starts_with("[the MCP tool result was truncated: ")
        );
    }
}
