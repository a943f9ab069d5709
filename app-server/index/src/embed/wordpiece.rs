//! A BERT WordPiece tokenizer read from `tokenizer.json` (the uncased all-MiniLM-L6-v2 one):
//! clean and lower-case the text, split at whitespace and punctuation, then greedy
//! longest-match-first word pieces with the `##` prefix. It is ~100 lines against the
//! `tokenizers` crate's dozens of dependencies; accents are not stripped from non-ASCII letters
//! (the index is code, which is nearly all ASCII).

use std::collections::HashMap;

use serde::Deserialize;

/// A loaded vocabulary.
#[derive(Debug)]
pub struct WordPiece {
    vocab: HashMap<String, u32>,
    unk: u32,
    cls: u32,
    sep: u32,
}

#[derive(Deserialize)]
struct TokenizerFile {
    model: TokenizerModel,
}

#[derive(Deserialize)]
struct TokenizerModel {
    #[serde(rename = "type")]
    kind: String,
    vocab: HashMap<String, u32>,
}

const MAX_CHARS_PER_WORD: usize = 100;

impl WordPiece {
    /// Parses the contents of `tokenizer.json`.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let file: TokenizerFile =
            serde_json::from_str(text).map_err(|error| format!("tokenizer.json: {error}"))?;
        if file.model.kind != "WordPiece" {
            return Err(format!(
                "tokenizer.json: expected a WordPiece model, found {}",
                file.model.kind
            ));
        }
        let vocab = file.model.vocab;
        let special = |token: &str| {
            vocab
                .get(token)
                .copied()
                .ok_or_else(|| format!("tokenizer.json: the vocabulary has no {token}"))
        };
        Ok(Self {
            unk: special("[UNK]")?,
            cls: special("[CLS]")?,
            sep: special("[SEP]")?,
            vocab,
        })
    }

    /// Token ids of `text`: `[CLS] pieces… [SEP]`, at most `max_tokens` in all.
    pub fn encode(&self, text: &str, max_tokens: usize) -> Vec<u32> {
        let mut ids = vec![self.cls];
        let budget = max_tokens.saturating_sub(1);
        'words: for word in pre_tokenize(text) {
            for id in self.word_pieces(&word) {
                if ids.len() >= budget {
                    break 'words;
                }
                ids.push(id);
            }
        }
        ids.push(self.sep);
        ids
    }

    fn word_pieces(&self, word: &str) -> Vec<u32> {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() > MAX_CHARS_PER_WORD {
            return vec![self.unk];
        }
        let mut pieces = Vec::new();
        let mut start = 0;
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while start < end {
                let mut candidate: String = chars[start..end].iter().collect();
                if start > 0 {
                    candidate.insert_str(0, "##");
                }
                if let Some(id) = self.vocab.get(&candidate) {
                    found = Some(*id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => {
                    pieces.push(id);
                    start = end;
                }
                None => return vec![self.unk],
            }
        }
        pieces
    }
}

/// BERT's normaliser and pre-tokeniser: drop control characters, lower-case, and split at
/// whitespace, punctuation and CJK ideographs (each of which is its own word).
fn pre_tokenize(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    for character in text.chars() {
        if character == '\0'
            || character == '\u{fffd}'
            || (character.is_control() && !character.is_whitespace())
        {
            continue;
        }
        if character.is_whitespace() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
        } else if is_punctuation(character) || is_cjk(character) {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            words.push(character.to_lowercase().collect());
        } else {
            current.extend(character.to_lowercase());
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

fn is_punctuation(character: char) -> bool {
    character.is_ascii_punctuation() || (!character.is_ascii() && !character.is_alphanumeric())
}

fn is_cjk(character: char) -> bool {
    matches!(u32::from(character), 0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0xF900..=0xFAFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_word_pieces_with_special_tokens() {
        let json = r###"{"model": {"type": "WordPiece", "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "hello": 3, "un": 4, "##aff": 5, "##able": 6, ",": 7}}}"###;
        let tokenizer = WordPiece::from_json(json).expect("loads");
        assert_eq!(
            tokenizer.encode("Hello, unaffable xyz", 64),
            vec![1, 3, 7, 4, 5, 6, 0, 2]
        );
        assert_eq!(tokenizer.encode("hello hello hello", 3), vec![1, 3, 2]);
    }
}
