//! The §3.2 update algorithm: chunks, anchors, end of file, insertions and the four matching
//! passes, checked on real files.

use pretty_assertions::assert_eq;

use super::{read, run, wrap, write};
use crate::tools::apply_patch::matcher::{normalise_punctuation, seek_sequence};

/// Writes `before` to `file.txt`, applies an update of it with `chunks`, returns the result.
fn update(before: &str, chunks: &str) -> Result<String, String> {
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "file.txt", before);
    run(
        directory.path(),
        &wrap(&format!("*** Update File: file.txt\n{chunks}")),
    )?;
    Ok(read(directory.path(), "file.txt").unwrap())
}

fn lines(text: &[&str]) -> Vec<String> {
    text.iter().map(|line| line.to_string()).collect()
}

#[test]
fn single_and_multiple_chunks() {
    assert_eq!(
        update("foo\nbar\n", "@@\n foo\n-bar\n+baz"),
        Ok("foo\nbaz\n".to_string())
    );
    assert_eq!(
        update(
            "foo\nbar\nbaz\nqux\n",
            "@@\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX"
        ),
        Ok("foo\nBAR\nbaz\nQUX\n".to_string())
    );
}

#[test]
fn interleaved_changes_with_end_of_file_append() {
    assert_eq!(
        update(
            "a\nb\nc\nd\ne\nf\n",
            "@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File"
        ),
        Ok("a\nB\nc\nd\nE\nf\ng\n".to_string())
    );
}

#[test]
fn deletion_only_and_first_and_last_line_replacements() {
    assert_eq!(
        update("one\ntwo\nthree\n", "@@\n one\n-two\n three"),
        Ok("one\nthree\n".to_string())
    );
    assert_eq!(
        update("foo\nbar\nbaz\n", "@@\n-foo\n+FOO\n bar\n"),
        Ok("FOO\nbar\nbaz\n".to_string())
    );
    assert_eq!(
        update("foo\nbar\nbaz\n", "@@\n foo\n bar\n-baz\n+BAZ\n"),
        Ok("foo\nbar\nBAZ\n".to_string())
    );
}

#[test]
fn anchors_move_the_search_past_them() {
    let before = "fn a() {\n    x = 1;\n}\nfn b() {\n    x = 1;\n}\n";
    assert_eq!(
        update(before, "@@ fn b() {\n-    x = 1;\n+    x = 2;"),
        Ok("fn a() {\n    x = 1;\n}\nfn b() {\n    x = 2;\n}\n".to_string())
    );
}

#[test]
fn stacked_anchors_resolve_one_after_another() {
    let before = "class A:\n    def f(self):\n        return 1\nclass B:\n    def g(self):\n        return 1\n    def f(self):\n        return 1\n";
    assert_eq!(
        update(before, "@@ class B:\n@@     def f(self):\n-        return 1\n+        return 2"),
        Ok("class A:\n    def f(self):\n        return 1\nclass B:\n    def g(self):\n        return 1\n    def f(self):\n        return 2\n".to_string())
    );
}

#[test]
fn missing_anchor_and_missing_lines_use_codex_texts() {
    let directory = tempfile::tempdir().unwrap();
    write(directory.path(), "modify.txt", "line1\nline2\n");
    let path = directory.path().join("modify.txt");
    assert_eq!(
        run(
            directory.path(),
            &wrap("*** Update File: modify.txt\n@@ fn missing()\n-line1\n+x")
        )
        .err(),
        Some(format!(
            "Failed to find context 'fn missing()' in {}",
            path.display()
        ))
    );
    assert_eq!(
        run(
            directory.path(),
            &wrap("*** Update File: modify.txt\n@@\n-missing\n+changed")
        )
        .err(),
        Some(format!(
            "Failed to find expected lines in {}:\nmissing",
            path.display()
        ))
    );
    assert_eq!(
        run(
            directory.path(),
            &wrap("*** Update File: modify.txt\n@@\n line1\n-nope\n+x")
        )
        .err(),
        Some(format!(
            "Failed to find expected lines in {}:\nline1\nnope",
            path.display()
        ))
    );
    assert_eq!(
        read(directory.path(), "modify.txt").as_deref(),
        Some("line1\nline2\n")
    );
}

#[test]
fn end_of_file_chunks_prefer_the_last_occurrence() {
    assert_eq!(
        update("x\nend\nx\nend\n", "@@\n x\n-end\n+END\n*** End of File"),
        Ok("x\nend\nx\nEND\n".to_string())
    );
    assert_eq!(
        update("x\nend\nx\nend\n", "@@\n x\n-end\n+END"),
        Ok("x\nEND\nx\nend\n".to_string())
    );
}

#[test]
fn pure_insertions_go_to_the_end_of_the_file() {
    assert_eq!(
        update("foo\nbar\nbaz\n", "@@\n+quux\n*** End of File"),
        Ok("foo\nbar\nbaz\nquux\n".to_string())
    );
    // Codex scenario 016 and the pure-addition-then-removal case.
    assert_eq!(
        update(
            "line1\nline2\nline3\n",
            "@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement"
        ),
        Ok("line1\nline2-replacement\nafter-context\nsecond-line\n".to_string())
    );
    // Before a trailing empty line.
    assert_eq!(update("a\n\n", "@@\n+b"), Ok("a\nb\n\n".to_string()));
}

#[test]
fn empty_lines_in_context_and_a_trailing_empty_context_line() {
    assert_eq!(
        update("a\n\nb\nc\n", "@@\n a\n\n-b\n+B"),
        Ok("a\n\nB\nc\n".to_string())
    );
    // A trailing empty line in the chunk stands for the final newline and is dropped on retry.
    // (`wrap` adds the newline that makes the blank line before `*** End Patch`.)
    assert_eq!(
        update("a\nb\n", "@@\n a\n-b\n+B\n"),
        Ok("a\nB\n".to_string())
    );
}

#[test]
fn a_missing_final_newline_is_added() {
    assert_eq!(
        update(
            "no newline at end",
            "@@\n-no newline at end\n+first line\n+second line"
        ),
        Ok("first line\nsecond line\n".to_string())
    );
    assert_eq!(update("only\n", "@@\n-only"), Ok(String::new()));
}

#[test]
fn crlf_files_stay_crlf() {
    assert_eq!(
        update(
            "a\r\nb\r\nc\r\n",
            "@@\n a\n-b\n+B\n@@\n c\n+d\n*** End of File"
        ),
        Ok("a\r\nB\r\nc\r\nd\r\n".to_string())
    );
}

#[test]
fn trailing_whitespace_is_ignored_on_the_second_pass() {
    assert_eq!(
        update("foo   \nbar\t\n", "@@\n-foo\n+FOO\n bar"),
        Ok("FOO\nbar\n".to_string())
    );
}

#[test]
fn indentation_is_ignored_on_the_third_pass() {
    assert_eq!(
        update("    foo\n        bar\n", "@@\n foo\n-bar\n+    baz"),
        Ok("foo\n    baz\n".to_string())
    );
}

#[test]
fn typographic_punctuation_is_normalised_on_the_fourth_pass() {
    // EN DASH and NON-BREAKING HYPHEN in the file, ASCII in the patch (Codex's case).
    assert_eq!(
        update(
            "import asyncio  # local import \u{2013} avoids top\u{2011}level dep\n",
            "@@\n-import asyncio  # local import - avoids top-level dep\n+import asyncio  # HELLO"
        ),
        Ok("import asyncio  # HELLO\n".to_string())
    );
    assert_eq!(
        update(
            "say \u{201C}hi\u{201D}, it\u{2019}s\u{00A0}fine\n",
            "@@\n-say \"hi\", it's fine\n+said"
        ),
        Ok("said\n".to_string())
    );
    // Anchors use the same passes.
    assert_eq!(
        update(
            "fn a() \u{2014} x\n  body\n",
            "@@ fn a() - x\n-  body\n+  BODY"
        ),
        Ok("fn a() \u{2014} x\n  BODY\n".to_string())
    );
}

#[test]
fn stricter_passes_win_over_looser_ones() {
    let file = lines(&["foo ", "foo"]);
    assert_eq!(seek_sequence(&file, &lines(&["foo"]), 0, false), Some(1));
    let file = lines(&["  foo", "foo  "]);
    assert_eq!(seek_sequence(&file, &lines(&["foo"]), 0, false), Some(1));
    assert_eq!(seek_sequence(&file, &lines(&["foo"]), 2, false), None);
    assert_eq!(
        seek_sequence(&lines(&["a"]), &lines(&["a", "b"]), 0, false),
        None
    );
    assert_eq!(seek_sequence(&lines(&["a"]), &[], 1, false), Some(1));
}

#[test]
fn normalisation_covers_dashes_quotes_and_spaces() {
    assert_eq!(
        normalise_punctuation(
            "\u{2010}\u{2012}\u{2013}\u{2014}\u{2015}\u{2212}\u{2018}\u{2019}\u{201A}\u{201B}\u{201C}\u{201D}\u{201E}\u{201F}\u{00A0}\u{2002}\u{2009}\u{202F}\u{3000}"
        ),
        "------''''\"\"\"\"     "
    );
}
