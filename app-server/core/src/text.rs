//! Cutting text to a byte budget without splitting a character: untrusted output, messages and
//! files are capped in bytes, and a cut must still be valid UTF-8.

/// The largest index at most `index` (and at most `text.len()`) that is a character boundary
/// of `text`.
pub fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// The longest prefix of `text` of at most `max_bytes` bytes.
pub fn prefix_within(text: &str, max_bytes: usize) -> &str {
    &text[..floor_char_boundary(text, max_bytes)]
}

/// Cuts `text` to its longest prefix of at most `max_bytes` bytes.
pub fn truncate_within(text: &mut String, max_bytes: usize) {
    let end = floor_char_boundary(text, max_bytes);
    text.truncate(end);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_never_splits_a_character() {
        // "é" is two bytes: a cut inside it falls back to before it.
        assert_eq!(prefix_within("aéb", 2), "a");
        assert_eq!(prefix_within("aéb", 3), "aé");
        assert_eq!(prefix_within("aéb", 99), "aéb");
        assert_eq!(floor_char_boundary("aéb", 99), 4);
        let mut text = String::from("éé");
        truncate_within(&mut text, 3);
        assert_eq!(text, "é");
    }
}
