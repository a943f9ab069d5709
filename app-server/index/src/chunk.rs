//! Line chunks that follow code structure: a chunk ends at a blank line or at the start of a
//! top-level item (a line with no indentation after indented lines) once it has a useful size,
//! and always at the size cap; consecutive chunks overlap by a few lines so that a result cut at
//! a boundary still reads. Files of a language with a grammar (Rust, Python, JavaScript,
//! TypeScript, Go, Java, C, C++) are cut by their syntax tree instead ([`crate::syntax`]) when
//! [`chunk_file`] is asked for code-aware chunks.

/// One chunk: 1-based inclusive line numbers and the text of those lines.
#[derive(Debug, Clone, PartialEq)]
pub struct Chunk {
    /// First line (1-based).
    pub start_line: usize,
    /// Last line (1-based, inclusive).
    pub end_line: usize,
    /// The lines, joined by `\n`.
    pub text: String,
    /// The signatures of the items this chunk is a part of (an impl's or class's first line, a
    /// long function's signature), one a line; empty for a whole item or a line chunk. Indexed
    /// and embedded before `text`, never shown as part of it.
    pub context: String,
}

/// Which chunker cuts the files of a language that has a grammar here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Chunker {
    /// Functions, methods, types, impls and classes from the syntax tree (Rust, Python,
    /// JavaScript, TypeScript, Go, Java, C, C++), the line chunker for everything else. The
    /// default: it scored higher over the bench's 62 questions, Rust and Python
    /// (`docs/index-evaluation.md`).
    #[default]
    Code,
    /// The line chunker for every file.
    Lines,
}

impl Chunker {
    /// The name stored with an index, so that a change of chunker re-chunks every file.
    pub fn id(self) -> &'static str {
        match self {
            Self::Code => "code-1",
            Self::Lines => "lines-1",
        }
    }
}

/// The chunks of the file at `path` (relative, `/`-separated): code-aware when `chunker` says so
/// and the file's language has a grammar and parses, line chunks otherwise.
pub fn chunk_file(path: &str, text: &str, limits: ChunkLimits, chunker: Chunker) -> Vec<Chunk> {
    if chunker == Chunker::Code
        && let Some(chunks) = crate::syntax::chunk_code(path, text, limits)
    {
        return chunks;
    }
    chunk_text(text, limits)
}

/// How big chunks get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkLimits {
    /// Hard cap on lines per chunk.
    pub max_lines: usize,
    /// Lines repeated at the start of a chunk cut at the size cap.
    pub overlap_lines: usize,
}

/// Splits `text` into chunks.
pub fn chunk_text(text: &str, limits: ChunkLimits) -> Vec<Chunk> {
    let lines: Vec<&str> = text.lines().collect();
    let max_lines = limits.max_lines.max(4);
    let min_lines = (max_lines / 4).max(3);
    let overlap = limits.overlap_lines.min(max_lines / 2);
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < lines.len() {
        // Skip leading blank lines.
        while start < lines.len() && lines[start].trim().is_empty() {
            start += 1;
        }
        if start >= lines.len() {
            break;
        }
        let hard_end = (start + max_lines).min(lines.len());
        let mut end = hard_end;
        let mut cut_at_cap = true;
        for index in (start + min_lines)..hard_end {
            let line = lines[index];
            let blank = line.trim().is_empty();
            let top_level = !line.starts_with([' ', '\t'])
                && !blank
                && !line.starts_with('}')
                && !line.starts_with(')')
                && !line.starts_with(']');
            let previous_indented =
                lines[index - 1].starts_with([' ', '\t']) || lines[index - 1].trim().is_empty();
            if (blank && index + 1 < hard_end && !lines[index + 1].starts_with([' ', '\t']))
                || (top_level && previous_indented)
            {
                end = index;
                cut_at_cap = false;
                break;
            }
        }
        if hard_end == lines.len() && end == hard_end {
            cut_at_cap = false;
        }
        let mut last = end;
        while last > start && lines[last - 1].trim().is_empty() {
            last -= 1;
        }
        chunks.push(Chunk {
            start_line: start + 1,
            end_line: last,
            text: lines[start..last].join("\n"),
            context: String::new(),
        });
        start = if cut_at_cap && end - start > overlap {
            end - overlap
        } else {
            end
        };
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_follow_items_and_carry_exact_lines() {
        let text = "use std::io;\n\nfn one() {\n    let a = 1;\n    let b = 2;\n    a + b;\n}\n\nfn two() {\n    println!(\"x\");\n    println!(\"y\");\n    println!(\"z\");\n}\n";
        // A cap of 12 lines makes 3 lines a useful size, so the blank line before `fn two`
        // ends the first chunk (with a cap of 40, this 13-line file is one chunk).
        let chunks = chunk_text(
            text,
            ChunkLimits {
                max_lines: 12,
                overlap_lines: 2,
            },
        );
        let ranges: Vec<(usize, usize)> = chunks
            .iter()
            .map(|chunk| (chunk.start_line, chunk.end_line))
            .collect();
        assert_eq!(ranges, vec![(1, 7), (9, 13)]);
        assert!(chunks[1].text.starts_with("fn two()"));
    }

    #[test]
    fn long_runs_are_cut_at_the_cap_with_overlap() {
        let text: String = (1..=100).map(|n| format!("    line {n}\n")).collect();
        let chunks = chunk_text(
            &text,
            ChunkLimits {
                max_lines: 40,
                overlap_lines: 3,
            },
        );
        assert_eq!(chunks[0].start_line, 1);
        assert_eq!(chunks[0].end_line, 40);
        assert_eq!(chunks[1].start_line, 38);
        assert_eq!(chunks.last().map(|chunk| chunk.end_line), Some(100));
    }
}
