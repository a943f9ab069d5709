//! The §3.1 grammar: envelope, operations, chunks, leniency and line-numbered errors.

use std::path::PathBuf;

use pretty_assertions::assert_eq;

use super::wrap;
use crate::tools::apply_patch::error::ParseError;
use crate::tools::apply_patch::parser::{FileOperation, Patch, UpdateChunk, parse_patch};

fn chunk(
    anchors: &[&str],
    old_lines: &[&str],
    new_lines: &[&str],
    is_end_of_file: bool,
) -> UpdateChunk {
    UpdateChunk {
        anchors: anchors.iter().map(|line| line.to_string()).collect(),
        old_lines: old_lines.iter().map(|line| line.to_string()).collect(),
        new_lines: new_lines.iter().map(|line| line.to_string()).collect(),
        is_end_of_file,
    }
}

fn update(path: &str, chunks: Vec<UpdateChunk>) -> FileOperation {
    FileOperation::Update {
        path: PathBuf::from(path),
        move_path: None,
        chunks,
    }
}

#[test]
fn parses_the_spec_example() {
    let patch = "*** Begin Patch
*** Add File: docs/hello.txt
+Hello
+world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-    print(\"Hi\")
+    print(\"Hello, world!\")
*** Delete File: obsolete.txt
*** End Patch";
    assert_eq!(
        parse_patch(patch),
        Ok(Patch {
            operations: vec![
                FileOperation::Add {
                    path: PathBuf::from("docs/hello.txt"),
                    contents: "Hello\nworld\n".to_string()
                },
                FileOperation::Update {
                    path: PathBuf::from("src/app.py"),
                    move_path: Some(PathBuf::from("src/main.py")),
                    chunks: vec![chunk(
                        &["def greet():"],
                        &["    print(\"Hi\")"],
                        &["    print(\"Hello, world!\")"],
                        false
                    )],
                },
                FileOperation::Delete {
                    path: PathBuf::from("obsolete.txt")
                },
            ],
        })
    );
}

#[test]
fn add_file_with_empty_lines_and_no_lines() {
    let patch = wrap("*** Add File: a.txt\n+one\n+\n+three\n*** Add File: empty.txt");
    assert_eq!(
        parse_patch(&patch).map(|patch| patch.operations),
        Ok(vec![
            FileOperation::Add {
                path: PathBuf::from("a.txt"),
                contents: "one\n\nthree\n".to_string()
            },
            FileOperation::Add {
                path: PathBuf::from("empty.txt"),
                contents: String::new()
            },
        ])
    );
}

#[test]
fn tolerates_whitespace_around_markers_and_text() {
    // Codex scenarios 017, 018 and 020: padded headers and envelope lines, CRLF, blank lines.
    let patch = "\n  *** Begin Patch \r\n  *** Update File: foo.txt\r\n@@\r\n-old\r\n+new\r\n *** End Patch\r\n\n";
    assert_eq!(
        parse_patch(patch).map(|patch| patch.operations),
        Ok(vec![update(
            "foo.txt",
            vec![chunk(&[], &["old"], &["new"], false)]
        )])
    );
}

#[test]
fn strips_a_heredoc_wrapper_with_any_delimiter() {
    let body = "*** Begin Patch\n*** Update File: file2.py\n import foo\n+bar\n*** End Patch";
    let expected = Ok(vec![update(
        "file2.py",
        vec![chunk(&[], &["import foo"], &["import foo", "bar"], false)],
    )]);
    for wrapper in [
        "<<EOF\n{}\nEOF\n",
        "<<'EOF'\n{}\nEOF\n",
        "<<\"EOF\"\n{}\nEOF",
        "<<'PATCH'\n{}\nPATCH\n\n",
    ] {
        let patch = wrapper.replace("{}", body);
        assert_eq!(
            parse_patch(&patch).map(|patch| patch.operations),
            expected,
            "{patch:?}"
        );
    }
    // Mismatched quotes or a wrong closing delimiter are not a heredoc.
    assert_eq!(
        parse_patch(&format!("<<\"EOF'\n{body}\nEOF\n")),
        Err(ParseError::MissingBegin {
            line: 1,
            text: "<<\"EOF'".to_string()
        })
    );
    assert_eq!(
        parse_patch(&format!("<<EOF\n{body}\nEND\n")),
        Err(ParseError::MissingBegin {
            line: 1,
            text: "<<EOF".to_string()
        })
    );
}

#[test]
fn first_chunk_may_omit_the_marker_and_later_chunks_need_one() {
    let patch = wrap("*** Update File: a.txt\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX");
    assert_eq!(
        parse_patch(&patch).map(|patch| patch.operations),
        Ok(vec![update(
            "a.txt",
            vec![
                chunk(&[], &["foo", "bar"], &["foo", "BAR"], false),
                chunk(&[], &["baz", "qux"], &["baz", "QUX"], false),
            ]
        )])
    );
}

#[test]
fn stacked_anchors_end_of_file_and_empty_context_lines() {
    let patch = wrap(
        "*** Update File: a.py\n@@ class B:\n@@     def f(self):\n context\n\n-old\n+new\n@@\n last\n+appended\n*** End of File",
    );
    assert_eq!(
        parse_patch(&patch).map(|patch| patch.operations),
        Ok(vec![update(
            "a.py",
            vec![
                chunk(
                    &["class B:", "    def f(self):"],
                    &["context", "", "old"],
                    &["context", "", "new"],
                    false
                ),
                chunk(&[], &["last"], &["last", "appended"], true),
            ]
        )])
    );
}

#[test]
fn blank_lines_between_operations_and_before_chunks_are_skipped() {
    let patch = wrap("*** Delete File: a.txt\n\n*** Update File: b.txt\n\n@@ anchor\n-x\n+y");
    assert_eq!(
        parse_patch(&patch).map(|patch| patch.operations),
        Ok(vec![
            FileOperation::Delete {
                path: PathBuf::from("a.txt")
            },
            update("b.txt", vec![chunk(&["anchor"], &["x"], &["y"], false)]),
        ])
    );
}

#[test]
fn git_style_chunk_headers_are_bare_markers_or_anchors() {
    let patch =
        wrap("*** Update File: a.rs\n@@ -1,3 +1,3 @@\n-a\n+b\n@@ -10 +10,2 @@ fn main() {\n-c\n+d");
    assert_eq!(
        parse_patch(&patch).map(|patch| patch.operations),
        Ok(vec![update(
            "a.rs",
            vec![
                chunk(&[], &["a"], &["b"], false),
                chunk(&["fn main() {"], &["c"], &["d"], false)
            ]
        )])
    );
}

#[test]
fn absolute_paths_and_update_followed_by_add() {
    let patch =
        wrap("*** Update File: /tmp/x/file.py\n@@\n+line\n*** Add File: other.py\n+content");
    assert_eq!(
        parse_patch(&patch).map(|patch| patch.operations),
        Ok(vec![
            update("/tmp/x/file.py", vec![chunk(&[], &[], &["line"], false)]),
            FileOperation::Add {
                path: PathBuf::from("other.py"),
                contents: "content\n".to_string()
            },
        ])
    );
}

/// Every parse error names its (1-based) line and the offending text.
#[test]
fn every_error_names_its_line() {
    let cases: Vec<(&str, ParseError)> = vec![
        (
            "",
            ParseError::MissingBegin {
                line: 1,
                text: String::new(),
            },
        ),
        (
            "\n\nbad\n",
            ParseError::MissingBegin {
                line: 3,
                text: "bad".to_string(),
            },
        ),
        (
            "*** Begin Patch",
            ParseError::MissingEnd {
                line: 1,
                text: "*** Begin Patch".to_string(),
            },
        ),
        (
            "*** Begin Patch\n*** Add File: a\n+x\n",
            ParseError::MissingEnd {
                line: 3,
                text: "+x".to_string(),
            },
        ),
        (
            "*** Begin Patch\n\n*** End Patch",
            ParseError::NoOperations {
                line: 3,
                text: "*** End Patch".to_string(),
            },
        ),
        (
            "*** Begin Patch\n*** Frobnicate File: a\n*** End Patch",
            ParseError::InvalidHeader {
                line: 2,
                text: "*** Frobnicate File: a".to_string(),
            },
        ),
        (
            "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n*** End Patch",
            ParseError::InvalidHeader {
                line: 4,
                text: "*** End Patch".to_string(),
            },
        ),
        (
            "*** Begin Patch\n*** Add File:  \n+x\n*** End Patch",
            ParseError::EmptyPath {
                line: 2,
                text: "*** Add File:  ".to_string(),
            },
        ),
        (
            "*** Begin Patch\n*** Update File: a\n*** Move to:\n@@\n-x\n*** End Patch",
            ParseError::EmptyPath {
                line: 3,
                text: "*** Move to:".to_string(),
            },
        ),
        (
            "*** Begin Patch\n*** Add File: a\n+x\ny\n*** End Patch",
            ParseError::InvalidAddLine {
                line: 4,
                text: "y".to_string(),
            },
        ),
        (
            "*** Begin Patch\n*** Update File: test.py\n*** End Patch",
            ParseError::EmptyUpdate {
                line: 2,
                text: "*** Update File: test.py".to_string(),
            },
        ),
        (
            "*** Begin Patch\n*** Update File: a\n@@\n*** End Patch",
            ParseError::EmptyChunk {
                line: 3,
                text: "@@".to_string(),
            },
        ),
        (
            "*** Begin Patch\n*** Update File: a\n@@ fn a\n*** End of File\n*** End Patch",
            ParseError::EmptyChunk {
                line: 3,
                text: "@@ fn a".to_string(),
            },
        ),
        (
            "*** Begin Patch\n*** Update File: a\n@@\nbad\n*** End Patch",
            ParseError::InvalidChunkLine {
                line: 4,
                text: "bad".to_string(),
            },
        ),
        (
            "*** Begin Patch\n*** Update File: a\nbad\n*** End Patch",
            ParseError::InvalidChunkLine {
                line: 3,
                text: "bad".to_string(),
            },
        ),
        (
            "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n\tz\n*** End Patch",
            ParseError::InvalidChunkLine {
                line: 6,
                text: "\tz".to_string(),
            },
        ),
        (
            "<<'EOF'\n*** Begin Patch\n*** Update File: a\n@@\n-x\n@nope\n*** End Patch\nEOF",
            ParseError::InvalidChunkLine {
                line: 6,
                text: "@nope".to_string(),
            },
        ),
    ];
    for (patch, expected) in cases {
        let error = parse_patch(patch).err();
        assert_eq!(error.as_ref(), Some(&expected), "{patch:?}");
        let message = expected.to_string();
        assert!(
            message.starts_with(&format!("invalid patch at line {}: ", expected.line())),
            "{message}"
        );
    }
}

#[test]
fn error_messages_quote_the_offending_text() {
    let error = parse_patch("*** Begin Patch\n*** Update File: a\n@@\n-x\nbad line\n*** End Patch");
    assert_eq!(
        error.map_err(|error| error.to_string()),
        Err("invalid patch at line 5: unexpected line 'bad line' in an update chunk; every line must start \
             with ' ' (context), '+' (added) or '-' (removed), and later chunks with '@@'"
            .to_string())
    );
    let error = parse_patch("*** Begin Patch\n*** Copy File: a\n*** End Patch");
    assert_eq!(
        error.map_err(|error| error.to_string()),
        Err(
            "invalid patch at line 2: '*** Copy File: a' is not a valid file header; expected \
             '*** Add File: <path>', '*** Delete File: <path>' or '*** Update File: <path>'"
                .to_string()
        )
    );
}
