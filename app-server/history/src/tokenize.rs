//! The tokenizer shared by ingestion and queries (both backends, so scores agree).
//!
//! Lowercased runs of letters, digits and `_`; terms shorter than 2 or longer than 48 bytes
//! and a short list of English stop words are dropped.

use std::collections::HashMap;

/// The longest text that is tokenized per event (bytes); the rest is stored but not indexed.
pub const MAX_INDEXED_BYTES: usize = 32 * 1024;

const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "so", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with", "we", "you", "i",
];

/// Splits `text` into terms, in order, duplicates kept.
pub fn terms(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|word| (2..=48).contains(&word.len()))
        .map(str::to_lowercase)
        .filter(|word| !STOP_WORDS.contains(&word.as_str()))
        .collect()
}

/// Term frequencies of `text` and its length in terms.
pub fn term_frequencies(text: &str) -> (HashMap<String, i64>, i64) {
    let all = terms(truncate_to_boundary(text, MAX_INDEXED_BYTES));
    let length = all.len() as i64;
    let mut frequencies = HashMap::new();
    for term in all {
        *frequencies.entry(term).or_insert(0) += 1;
    }
    (frequencies, length)
}

/// The distinct terms of a query in first-seen order, capped at `max_terms`; also returns how
/// many distinct terms were dropped by the cap.
pub fn query_terms(query: &str, max_terms: usize) -> (Vec<String>, usize) {
    let mut distinct: Vec<String> = Vec::new();
    let mut dropped = 0;
    for term in terms(query) {
        if distinct.contains(&term) {
            continue;
        }
        if distinct.len() < max_terms {
            distinct.push(term);
        } else {
            dropped += 1;
            if dropped > 100_000 {
                break;
            }
        }
    }
    (distinct, dropped)
}

/// `text` cut to at most `max` bytes at a character boundary.
pub fn truncate_to_boundary(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_lowercases_and_drops_stop_words() {
        assert_eq!(
            terms("The cargo_build FAILED: error[E0308] in src/main.rs"),
            vec![
                "cargo_build",
                "failed",
                "error",
                "e0308",
                "src",
                "main",
                "rs"
            ]
        );
    }

    #[test]
    fn query_terms_are_distinct_and_capped() {
        let (kept, dropped) = query_terms("alpha beta alpha gamma delta", 3);
        assert_eq!(kept, vec!["alpha", "beta", "gamma"]);
        assert_eq!(dropped, 1);
    }
}
