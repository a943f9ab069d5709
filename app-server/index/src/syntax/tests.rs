use super::*;
use crate::chunk::{Chunker, chunk_file};

const LIMITS: ChunkLimits = ChunkLimits {
    max_lines: 12,
    overlap_lines: 2,
};

fn spans(chunks: &[Chunk]) -> Vec<(usize, usize, &str)> {
    chunks
        .iter()
        .map(|chunk| (chunk.start_line, chunk.end_line, chunk.context.as_str()))
        .collect()
}

const RUST: &str = "\
use std::io;
use std::fmt;

/// A counter.
#[derive(Debug)]
pub struct Counter {
    value: u64,
    step: u64,
}

impl Counter {
    /// Makes one.
    pub fn new() -> Self {
        Self { value: 0, step: 1 }
    }

    /// Steps it.
    pub fn step(&mut self) {
        self.value += self.step;
        self.value += self.step;
        self.value += self.step;
    }

    pub fn get(&self) -> u64 {
        self.value
    }
}

fn one() {}
fn two() {}
";

#[test]
fn rust_items_carry_their_doc_comments_and_long_impls_split_by_method() {
    let chunks = chunk_code("src/counter.rs", RUST, LIMITS).unwrap();
    // The imports; the struct with its doc comment and attribute; the 17-line impl (over the cap
    // of 12) by methods, the later parts with the impl's first line as context; the two small
    // functions together.
    assert_eq!(
        spans(&chunks),
        vec![
            (1, 2, ""),
            (4, 9, ""),
            (11, 15, ""),
            (17, 22, "impl Counter {"),
            (24, 27, "impl Counter {"),
            (29, 30, ""),
        ]
    );
    assert!(
        chunks[1]
            .text
            .starts_with("/// A counter.\n#[derive(Debug)]")
    );
    assert!(
        chunks[2]
            .text
            .starts_with("impl Counter {\n    /// Makes one.")
    );
    assert!(chunks[3].text.starts_with("    /// Steps it."));
    assert_eq!(chunks[4].text.lines().last(), Some("}"));
}

#[test]
fn rust_long_functions_split_by_statement_with_their_signature() {
    let body: String = (0..30).map(|n| format!("    let v{n} = {n};\n")).collect();
    let text = format!("/// Long.\npub fn long(\n    a: u8,\n) -> u8 {{\n{body}    a\n}}\n");
    let chunks = chunk_code("long.rs", &text, LIMITS).unwrap();
    assert_eq!(chunks[0].start_line, 1);
    assert_eq!(chunks[0].context, "");
    assert!(chunks.len() >= 3);
    for chunk in &chunks[1..] {
        assert_eq!(chunk.context, "pub fn long(\na: u8,\n) -> u8 {");
        assert!(chunk.text.trim_start().starts_with("let v") || chunk.text.trim() == "a\n}");
    }
    // Every line is in exactly one chunk: statements are not cut.
    let covered: usize = chunks
        .iter()
        .map(|chunk| chunk.end_line - chunk.start_line + 1)
        .sum();
    assert_eq!(covered, text.lines().count());
    assert_eq!(chunks.last().map(|chunk| chunk.end_line), Some(36));
}

const PYTHON: &str = "\
import os
import sys


@dataclass
class Session(Base):
    \"\"\"A session.\"\"\"

    def __init__(self):
        self.a = 1
        self.b = 2

    # Sends one.
    def send(self, request):
        prepared = self.prepare(request)
        response = self.adapter.send(prepared)
        return response

    def close(self):
        pass


def helper(x):
    return x + 1
";

#[test]
fn python_classes_split_by_method_with_their_signature() {
    let chunks = chunk_code("pkg/sessions.py", PYTHON, LIMITS).unwrap();
    assert_eq!(
        spans(&chunks),
        vec![
            (1, 2, ""),
            (5, 11, ""),
            (13, 17, "class Session(Base):"),
            (19, 20, "class Session(Base):"),
            (23, 24, ""),
        ]
    );
    assert!(
        chunks[1]
            .text
            .starts_with("@dataclass\nclass Session(Base):")
    );
    assert!(chunks[2].text.starts_with("    # Sends one.\n    def send"));
}

#[test]
fn an_edit_changes_only_the_chunks_of_the_edited_item() {
    let before = chunk_code("pkg/sessions.py", PYTHON, LIMITS).unwrap();
    let edited = PYTHON.replace("return x + 1", "return x + 2");
    let after = chunk_code("pkg/sessions.py", &edited, LIMITS).unwrap();
    assert_eq!(before.len(), after.len());
    let changed: Vec<usize> = (0..before.len())
        .filter(|&index| before[index] != after[index])
        .collect();
    assert_eq!(changed, vec![4]);
}

#[test]
fn other_languages_and_broken_files_fall_back_to_lines() {
    assert!(chunk_code("main.zig", "const x = 1;\n", LIMITS).is_none());
    assert!(chunk_code("README", "fn x() {}\n", LIMITS).is_none());
    let broken = "fn broken( {\n    let x = ;\n}\n";
    assert!(chunk_code("broken.rs", broken, LIMITS).is_none());
    assert_eq!(
        chunk_file("broken.rs", broken, LIMITS, Chunker::Code),
        crate::chunk::chunk_text(broken, LIMITS)
    );
    assert_eq!(
        chunk_file("src/counter.rs", RUST, LIMITS, Chunker::Lines),
        crate::chunk::chunk_text(RUST, LIMITS)
    );
    assert_eq!(chunk_code("empty.py", "", LIMITS), Some(Vec::new()));
}

#[test]
fn items_too_long_to_split_are_cut_by_lines_with_their_context() {
    // A macro body has no members to split at: the line chunker cuts it.
    let body: String = (0..40).map(|n| format!("    ({n}) => {{}};\n")).collect();
    let text = format!("macro_rules! big {{\n{body}}}\n");
    let chunks = chunk_code("m.rs", &text, LIMITS).unwrap();
    assert!(chunks.len() >= 4);
    assert!(
        chunks
            .iter()
            .all(|chunk| chunk.end_line - chunk.start_line < 12)
    );
    assert_eq!(chunks[0].start_line, 1);
    assert_eq!(chunks.last().map(|chunk| chunk.end_line), Some(42));
}
