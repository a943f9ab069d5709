//! Applying update chunks to a file's text (`model-wire.md` §3.2), with four-pass fuzzy matching.
//!
//! Models reproduce context lines imperfectly (trailing spaces dropped, indentation changed,
//! typographic quotes typed as ASCII), so every search tries progressively looser comparisons
//! and the first pass that finds a match wins.

use std::path::Path;

use super::error::ApplyError;
use super::parser::UpdateChunk;

/// Computes the new content of a file from its current content and the update chunks.
///
/// `path` is only used in error messages.
pub fn apply_chunks(
    content: &str,
    chunks: &[UpdateChunk],
    path: &Path,
) -> Result<String, ApplyError> {
    let line_ending = LineEnding::of(content);
    let lines = split_lines(content, line_ending);
    let replacements = compute_replacements(&lines, chunks, path)?;
    let mut lines = lines;
    // Last to first, so that earlier indices stay valid.
    for replacement in replacements.iter().rev() {
        let end = (replacement.start + replacement.old_len).min(lines.len());
        let start = replacement.start.min(end);
        lines.splice(start..end, replacement.new_lines.iter().cloned());
    }
    if lines.is_empty() {
        return Ok(String::new());
    }
    let separator = line_ending.as_str();
    let mut new_content = lines.join(separator);
    new_content.push_str(separator);
    Ok(new_content)
}

/// The line ending a file uses. CRLF only when every `\n` is preceded by `\r`, so that an LF
/// file with a stray `\r\n` is not rewritten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LineEnding {
    Lf,
    CrLf,
}

impl LineEnding {
    fn of(content: &str) -> Self {
        let newlines = content.matches('\n').count();
        if newlines > 0 && content.matches("\r\n").count() == newlines {
            Self::CrLf
        } else {
            Self::Lf
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::Lf => "\n",
            Self::CrLf => "\r\n",
        }
    }
}

/// Splits on the line ending, dropping the empty piece after a final line ending.
fn split_lines(content: &str, line_ending: LineEnding) -> Vec<String> {
    let mut lines: Vec<String> = content
        .split(line_ending.as_str())
        .map(str::to_string)
        .collect();
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// One scheduled edit: replace `old_len` lines at `start` with `new_lines`.
#[derive(Debug, PartialEq, Eq)]
struct Replacement {
    start: usize,
    old_len: usize,
    new_lines: Vec<String>,
}

fn compute_replacements(
    lines: &[String],
    chunks: &[UpdateChunk],
    path: &Path,
) -> Result<Vec<Replacement>, ApplyError> {
    let mut replacements = Vec::new();
    let mut cursor = 0;
    for chunk in chunks {
        for anchor in &chunk.anchors {
            let Some(index) = seek_sequence(lines, std::slice::from_ref(anchor), cursor, false)
            else {
                return Err(ApplyError::ContextNotFound {
                    anchor: anchor.clone(),
                    path: path.to_path_buf(),
                });
            };
            cursor = index + 1;
        }

        if chunk.old_lines.is_empty() {
            // A pure insertion goes at the end of the file (before a trailing empty line).
            let start = if lines.last().is_some_and(String::is_empty) {
                lines.len() - 1
            } else {
                lines.len()
            };
            replacements.push(Replacement {
                start,
                old_len: 0,
                new_lines: chunk.new_lines.clone(),
            });
            continue;
        }

        let mut old_lines: &[String] = &chunk.old_lines;
        let mut new_lines: &[String] = &chunk.new_lines;
        let mut found = seek_sequence(lines, old_lines, cursor, chunk.is_end_of_file);
        if found.is_none() && old_lines.last().is_some_and(String::is_empty) {
            // A trailing empty context line usually stands for the file's final newline,
            // which `split_lines` dropped.
            old_lines = &old_lines[..old_lines.len() - 1];
            if new_lines.last().is_some_and(String::is_empty) {
                new_lines = &new_lines[..new_lines.len() - 1];
            }
            found = seek_sequence(lines, old_lines, cursor, chunk.is_end_of_file);
        }
        let Some(start) = found else {
            return Err(ApplyError::LinesNotFound {
                path: path.to_path_buf(),
                old_lines: chunk.old_lines.clone(),
            });
        };
        replacements.push(Replacement {
            start,
            old_len: old_lines.len(),
            new_lines: new_lines.to_vec(),
        });
        cursor = start + old_lines.len();
    }
    // Stable, so insertions at the same index keep their chunk order.
    replacements.sort_by_key(|replacement| replacement.start);
    Ok(replacements)
}

/// A way of comparing a file line with a pattern line.
type LineComparison = fn(&str, &str) -> bool;

/// The four passes of §3.2, strictest first.
const PASSES: [LineComparison; 4] = [
    |line, pattern| line == pattern,
    |line, pattern| line.trim_end() == pattern.trim_end(),
    |line, pattern| line.trim() == pattern.trim(),
    |line, pattern| normalise_punctuation(line).trim() == normalise_punctuation(pattern).trim(),
];

/// Finds `pattern` as a contiguous block of `lines` at or after `start`.
///
/// With `end_of_file` the position that puts the block at the very end is tried first (with
/// every pass), then the normal search. An empty pattern matches at `start`.
pub fn seek_sequence(
    lines: &[String],
    pattern: &[String],
    start: usize,
    end_of_file: bool,
) -> Option<usize> {
    if pattern.is_empty() {
        return Some(start);
    }
    if pattern.len() > lines.len() {
        return None;
    }
    let last_start = lines.len() - pattern.len();
    if end_of_file && last_start >= start {
        let at_end = PASSES
            .iter()
            .any(|pass| matches_at(lines, pattern, last_start, *pass));
        if at_end {
            return Some(last_start);
        }
    }
    PASSES.iter().find_map(|pass| {
        (start..=last_start).find(|index| matches_at(lines, pattern, *index, *pass))
    })
}

fn matches_at(lines: &[String], pattern: &[String], index: usize, pass: LineComparison) -> bool {
    lines[index..index + pattern.len()]
        .iter()
        .zip(pattern)
        .all(|(line, pattern_line)| pass(line, pattern_line))
}

/// Maps typographic punctuation to ASCII: dashes and hyphens to `-`, curly quotes to `'` and
/// `"`, non-breaking and other exotic spaces to a plain space.
pub fn normalise_punctuation(text: &str) -> String {
    text.chars()
        .map(|character| match character {
            '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
            | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}' => '-',
            '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
            '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200A}'
            | '\u{202F}'
            | '\u{205F}'
            | '\u{3000}' => ' ',
            other => other,
        })
        .collect()
}
