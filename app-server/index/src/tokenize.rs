//! The code-aware tokenizer of the lexical index: identifiers are split at `snake_case`,
//! `camelCase`, digits and path separators, and the whole identifier is kept too, so that the
//! query `landlock` finds `install_filesystem_landlock_rules` and `RepoIndex` finds `repo_index`.

/// Lower-cased terms of `text`: every identifier-like run as a whole, then its parts.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if word.is_empty() {
            continue;
        }
        let parts = split_identifier(word);
        let whole = word.trim_matches('_').to_lowercase();
        if whole.is_empty() {
            continue;
        }
        if parts.len() > 1 {
            out.push(whole.clone());
            for part in parts {
                if part != whole {
                    out.push(part);
                }
            }
        } else {
            out.push(whole);
        }
    }
    out
}

/// The text FTS5 indexes for `text`: its terms joined by spaces (FTS5's own tokenizer then only
/// splits at the spaces, because every term is alphanumeric with `_`).
pub fn index_text(text: &str) -> String {
    terms(text).join(" ")
}

/// An FTS5 `MATCH` expression for a free-text query: its first `max_terms` distinct terms,
/// quoted, joined by `OR` (BM25 then ranks chunks by how many and how rare the matched terms
/// are). `None` when the query has no term.
pub fn match_expression(query: &str, max_terms: usize) -> Option<String> {
    let mut seen = std::collections::BTreeSet::new();
    let mut parts = Vec::new();
    for term in terms(query) {
        if parts.len() >= max_terms {
            break;
        }
        if term.len() < 2 && !term.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        if STOP_WORDS.contains(&term.as_str()) {
            continue;
        }
        if seen.insert(term.clone()) {
            parts.push(format!("\"{term}\""));
        }
    }
    if parts.is_empty() {
        None
    } else {
        Some(parts.join(" OR "))
    }
}

/// English words that carry no signal in a code search query.
const STOP_WORDS: &[&str] = &[
    "the", "a", "an", "of", "to", "in", "is", "it", "and", "or", "for", "on", "with", "by", "be",
    "as", "at", "from", "that", "this", "which", "what", "where", "how", "when", "do", "does",
    "are", "into", "its", "can", "i", "we", "you", "my", "there", "their", "if", "then", "than",
];

/// Parts of one identifier: split at `_`, lower→upper changes (`fooBar`), acronym ends
/// (`HTTPServer` → `http`, `server`) and letter/digit changes; all lower-cased.
fn split_identifier(word: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for piece in word.split('_').filter(|piece| !piece.is_empty()) {
        let chars: Vec<char> = piece.chars().collect();
        let mut start = 0;
        for index in 1..chars.len() {
            let previous = chars[index - 1];
            let current = chars[index];
            let next = chars.get(index + 1).copied();
            let boundary = (previous.is_lowercase() && current.is_uppercase())
                || (previous.is_uppercase()
                    && current.is_uppercase()
                    && next.is_some_and(char::is_lowercase))
                || (previous.is_alphabetic() && current.is_ascii_digit())
                || (previous.is_ascii_digit() && current.is_alphabetic());
            if boundary {
                parts.push(
                    chars[start..index]
                        .iter()
                        .collect::<String>()
                        .to_lowercase(),
                );
                start = index;
            }
        }
        parts.push(chars[start..].iter().collect::<String>().to_lowercase());
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_keep_the_whole_and_their_parts() {
        assert_eq!(
            terms("install_filesystem_landlock_rules"),
            vec![
                "install_filesystem_landlock_rules",
                "install",
                "filesystem",
                "landlock",
                "rules"
            ]
        );
        assert_eq!(
            terms("HTTPServerConfig"),
            vec!["httpserverconfig", "http", "server", "config"]
        );
        assert_eq!(
            terms("src/auth/middleware.rs"),
            vec!["src", "auth", "middleware", "rs"]
        );
        assert_eq!(
            terms("utf8Decode"),
            vec!["utf8decode", "utf", "8", "decode"]
        );
        assert_eq!(terms("plain"), vec!["plain"]);
    }

    #[test]
    fn match_expressions_quote_terms_and_drop_stop_words() {
        assert_eq!(
            match_expression("Where is the repoIndex?", 64).as_deref(),
            Some("\"repoindex\" OR \"repo\" OR \"index\"")
        );
        assert_eq!(match_expression("the of ?", 64), None);
    }

    #[test]
    fn match_expressions_keep_the_first_distinct_terms_up_to_the_cap() {
        assert_eq!(
            match_expression("alpha beta alpha gamma delta", 3).as_deref(),
            Some("\"alpha\" OR \"beta\" OR \"gamma\"")
        );
    }
}
