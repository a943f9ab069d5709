//! Mutations: byte edits, range copies, splices of two corpus entries and dictionary tokens.
//! Several are stacked per input, as AFL's "havoc" stage does.

use crate::rng::Rng;

/// Produces new inputs from a corpus.
#[derive(Debug, Clone)]
pub struct Mutator {
    dictionary: Vec<Vec<u8>>,
    max_len: usize,
}

/// Bytes that often change how text is parsed.
const INTERESTING_BYTES: &[u8] = b"\0\n\r\t \"'\\{}[]:,.-+0123456789eE@*<>";

impl Mutator {
    /// A mutator splicing `dictionary` tokens, producing inputs of at most `max_len` bytes.
    pub fn new(dictionary: Vec<Vec<u8>>, max_len: usize) -> Self {
        Self {
            dictionary,
            max_len,
        }
    }

    /// Writes a mutation of a random corpus entry into `out` (cleared by the caller).
    pub fn mutate(&self, rng: &mut Rng, corpus: &[Vec<u8>], out: &mut Vec<u8>) {
        if let Some(base) = corpus.get(rng.below(corpus.len())) {
            out.extend_from_slice(base);
        }
        let rounds = 1 + rng.below(8);
        for _ in 0..rounds {
            self.mutate_once(rng, corpus, out);
        }
        out.truncate(self.max_len);
    }

    fn mutate_once(&self, rng: &mut Rng, corpus: &[Vec<u8>], out: &mut Vec<u8>) {
        let len = out.len();
        match rng.below(11) {
            // Flip one bit.
            0 if len > 0 => {
                let at = rng.below(len);
                out[at] ^= 1 << rng.below(8);
            }
            // Overwrite a byte with a random or a syntax byte.
            1 if len > 0 => {
                let at = rng.below(len);
                out[at] = self.pick_byte(rng);
            }
            // Insert a byte.
            2 => {
                let byte = self.pick_byte(rng);
                out.insert(rng.below(len + 1), byte);
            }
            // Delete a range.
            3 if len > 0 => {
                let start = rng.below(len);
                let end = start + 1 + rng.below((len - start).min(32));
                out.drain(start..end);
            }
            // Duplicate a range somewhere else.
            4 if len > 0 => {
                let start = rng.below(len);
                let end = start + 1 + rng.below((len - start).min(64));
                let piece = out[start..end].to_vec();
                let at = rng.below(len + 1);
                out.splice(at..at, piece);
            }
            // Insert a dictionary token.
            5 | 6 if !self.dictionary.is_empty() => {
                let token = &self.dictionary[rng.below(self.dictionary.len())];
                let at = rng.below(len + 1);
                out.splice(at..at, token.iter().copied());
            }
            // Replace a range with a dictionary token.
            7 if !self.dictionary.is_empty() && len > 0 => {
                let token = &self.dictionary[rng.below(self.dictionary.len())];
                let start = rng.below(len);
                let end = start + rng.below((len - start).min(16) + 1);
                out.splice(start..end, token.iter().copied());
            }
            // Splice: the head of this input, the tail of another.
            8 if !corpus.is_empty() => {
                let other = &corpus[rng.below(corpus.len())];
                let cut = rng.below(len + 1);
                let from = rng.below(other.len() + 1);
                out.truncate(cut);
                out.extend_from_slice(&other[from..]);
            }
            // Insert a piece of another corpus entry.
            9 if !corpus.is_empty() => {
                let other = &corpus[rng.below(corpus.len())];
                if !other.is_empty() {
                    let start = rng.below(other.len());
                    let end = start + 1 + rng.below((other.len() - start).min(64));
                    let at = rng.below(len + 1);
                    out.splice(at..at, other[start..end].iter().copied());
                }
            }
            // Repeat a byte many times (long lines, deep nesting).
            10 if len > 0 => {
                let byte = out[rng.below(len)];
                let at = rng.below(len + 1);
                let count = 1 + rng.below(256);
                out.splice(at..at, std::iter::repeat_n(byte, count));
            }
            _ => {
                let byte = rng.byte();
                out.push(byte);
            }
        }
    }

    fn pick_byte(&self, rng: &mut Rng) -> u8 {
        if rng.one_in(2) {
            INTERESTING_BYTES[rng.below(INTERESTING_BYTES.len())]
        } else {
            rng.byte()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_stay_within_the_length_limit_and_change_the_input() {
        let mutator = Mutator::new(vec![b"TOKEN".to_vec()], 40);
        let corpus = vec![b"0123456789abcdef0123456789abcdef".to_vec()];
        let mut rng = Rng::new(1);
        let mut changed = 0;
        let mut with_token = 0;
        for _ in 0..10_000 {
            let mut out = Vec::new();
            mutator.mutate(&mut rng, &corpus, &mut out);
            assert!(out.len() <= 40);
            changed += usize::from(out != corpus[0]);
            with_token += usize::from(out.windows(5).any(|window| window == b"TOKEN"));
        }
        assert!(changed > 9_000, "{changed}");
        assert!(with_token > 1_000, "{with_token}");
    }
}
