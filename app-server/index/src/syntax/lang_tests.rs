//! Chunk boundaries of the languages after Rust and Python (their fixtures are in `tests.rs`).

use super::*;

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

/// `count` statements of a function body, one a line, indented by `indent`.
fn statements(count: usize, indent: &str, statement: &str) -> String {
    (0..count)
        .map(|n| format!("{indent}{}\n", statement.replace('N', &n.to_string())))
        .collect()
}

const TYPESCRIPT: &str = "\
import { a } from \"./a\";
import { b } from \"./b\";

/**
 * A store.
 */
@Injectable()
export class Store<T> extends Base {
  private items: T[] = [];

  /** Adds one. */
  add(item: T): void {
    this.items.push(item);
    this.items.push(item);
    this.items.push(item);
  }

  get(index: number): T {
    return this.items[index];
  }
}

export interface Shape {
  area(): number;
}
export type Id = string;
";

#[test]
fn typescript_classes_keep_their_doc_and_decorator_and_split_by_member() {
    let chunks = chunk_code("src/store.ts", TYPESCRIPT, LIMITS).unwrap();
    // The imports; the JSDoc, decorator, signature and field; each method with the class's
    // signature as context; the interface; the type alias.
    let class = "export class Store<T> extends Base {";
    assert_eq!(
        spans(&chunks),
        vec![
            (1, 2, ""),
            (4, 9, ""),
            (11, 16, class),
            (18, 21, class),
            (23, 25, ""),
            (26, 26, ""),
        ]
    );
    assert!(
        chunks[1]
            .text
            .starts_with("/**\n * A store.\n */\n@Injectable()")
    );
    assert!(
        chunks[2]
            .text
            .starts_with("  /** Adds one. */\n  add(item: T)")
    );
}

const GO: &str = "\
package store

import \"fmt\"

// Store holds items.
type Store struct {
\titems []string
\tname  string
}
";

#[test]
fn go_long_functions_split_by_statement_with_their_signature() {
    let body = statements(20, "\t", "s.items = append(s.items, \"N\")");
    let text = format!(
        "{GO}\n// Add adds some.\nfunc (s *Store) Add(item string) {{\n{body}\tfmt.Println(item)\n}}\n"
    );
    let chunks = chunk_code("store/store.go", &text, LIMITS).unwrap();
    let signature = "func (s *Store) Add(item string) {";
    assert_eq!(
        spans(&chunks),
        vec![(1, 3, ""), (5, 9, ""), (11, 22, ""), (23, 34, signature)]
    );
    assert!(
        chunks[1]
            .text
            .starts_with("// Store holds items.\ntype Store struct {")
    );
    assert!(
        chunks[2]
            .text
            .starts_with("// Add adds some.\nfunc (s *Store) Add")
    );
}

const JAVA: &str = "\
package app;

import java.util.List;

/** A repository. */
@Entity
public class Repo extends Base {
    private final List<String> items;

    /** Makes one. */
    public Repo() {
        this.items = new ArrayList<>();
        this.items.add(\"a\");
    }

    @Override
    public String get(int index) {
        return items.get(index);
    }
}
";

#[test]
fn java_classes_keep_their_javadoc_and_annotations_and_split_by_method() {
    let chunks = chunk_code("src/app/Repo.java", JAVA, LIMITS).unwrap();
    // The signature after the annotations is the context of the later method.
    assert_eq!(
        spans(&chunks),
        vec![
            (1, 3, ""),
            (5, 14, ""),
            (16, 20, "public class Repo extends Base {"),
        ]
    );
    assert!(
        chunks[1]
            .text
            .starts_with("/** A repository. */\n@Entity\npublic class Repo")
    );
    assert!(
        chunks[2]
            .text
            .starts_with("    @Override\n    public String get")
    );
}

#[test]
fn c_functions_keep_their_comment_and_split_with_their_signature() {
    let body = statements(20, "    ", "total += a * N;");
    let text = format!(
        "#include <stdio.h>\n\n/* A point. */\ntypedef struct {{\n    int x;\n    int y;\n}} point;\n\n/* Adds. */\nstatic int\nadd(int a, int b)\n{{\n    int total = b;\n{body}    return total;\n}}\n"
    );
    let chunks = chunk_code("src/add.c", &text, LIMITS).unwrap();
    let signature = "static int\nadd(int a, int b)\n{";
    assert_eq!(
        spans(&chunks),
        vec![
            (1, 1, ""),
            (3, 7, ""),
            (9, 20, ""),
            (21, 32, signature),
            (33, 35, signature),
        ]
    );
    assert!(
        chunks[1]
            .text
            .starts_with("/* A point. */\ntypedef struct {")
    );
    assert!(chunks[2].text.starts_with("/* Adds. */\nstatic int"));
}

const CPP: &str = "\
#include <vector>

namespace app {

/// A store.
template <typename T>
class Store : public Base {
public:
    /// Adds one.
    void add(const T& item) {
        items_.push_back(item);
        items_.push_back(item);
    }

    T get(int index) const {
        return items_[index];
    }

private:
    std::vector<T> items_;
};

}  // namespace app
";

#[test]
fn cpp_classes_split_by_member_with_namespace_template_and_class_as_context() {
    let chunks = chunk_code("src/store.hpp", CPP, LIMITS).unwrap();
    let context = "namespace app {\n\ntemplate <typename T>\nclass Store : public Base {";
    // The closing line of the namespace, which carries a comment, ends one part and is the
    // comment's own chunk.
    assert_eq!(
        spans(&chunks),
        vec![
            (1, 1, ""),
            (3, 13, ""),
            (15, 17, context),
            (19, 23, context),
            (23, 23, ""),
        ]
    );
    assert!(
        chunks[1]
            .text
            .contains("/// A store.\ntemplate <typename T>\nclass Store")
    );
}

#[test]
fn functions_held_by_variables_split_in_javascript_jsx_and_tsx() {
    let body = statements(14, "  ", "const vN = useValue(N);");
    let text = format!(
        "import React from \"react\";\n\n/** The app. */\nexport const App = ({{ title }}) => {{\n{body}  return <div className=\"app\">{{title}}</div>;\n}};\n"
    );
    for path in ["src/App.jsx", "src/App.tsx", "src/App.js"] {
        let chunks = chunk_code(path, &text, LIMITS).unwrap();
        let signature = "export const App = ({ title }) => {";
        assert_eq!(
            spans(&chunks),
            vec![(1, 1, ""), (3, 14, ""), (15, 20, signature)],
            "{path}"
        );
        assert!(
            chunks[1]
                .text
                .starts_with("/** The app. */\nexport const App")
        );
    }
}

#[test]
fn files_with_a_syntax_error_fall_back_to_lines() {
    for (path, broken) in [
        ("a.ts", "class A {\n  f( {\n}\n"),
        ("a.tsx", "const a = <div>;\n"),
        ("a.js", "function f( {\n}\n"),
        ("a.go", "package a\nfunc f( {\n}\n"),
        ("A.java", "class A {\n  void f( {\n}\n"),
    ] {
        assert!(chunk_code(path, broken, LIMITS).is_none(), "{path}");
    }
    // Each extension has its grammar: the same well-formed text parses.
    for path in ["a.ts", "a.mts", "a.tsx", "a.js", "a.jsx", "a.mjs", "a.cjs"] {
        assert!(
            chunk_code(path, "function f() {}\n", LIMITS).is_some(),
            "{path}"
        );
    }
    for path in ["a.c", "a.h", "a.cc", "a.cpp", "a.cxx", "a.hpp", "a.hh"] {
        assert!(
            chunk_code(path, "int f(void) { return 0; }\n", LIMITS).is_some(),
            "{path}"
        );
    }
    assert!(chunk_code("a.go", "package a\n", LIMITS).is_some());
    assert!(chunk_code("A.java", "class A {}\n", LIMITS).is_some());
}

const C_HEADER: &str = "\
#ifdef __cplusplus
extern \"C\" {
#endif

/* Adds. */
PyAPI_FUNC(int) add(int a, int b);

static int
sub(int a, int b)
{
    return a - b;
}

#ifdef __cplusplus
}
#endif
";

#[test]
fn c_and_cpp_files_with_syntax_errors_are_still_cut_by_their_items() {
    // The macro and the `extern "C" {` opened in one conditional and closed in another defeat
    // the grammar; the items are still whole chunks, and no chunk has a misleading context.
    let chunks = chunk_code("include/api.h", C_HEADER, LIMITS).unwrap();
    assert_eq!(
        spans(&chunks),
        vec![
            (1, 1, ""),
            (2, 3, ""),
            (5, 6, ""),
            (8, 12, ""),
            (14, 16, "")
        ]
    );
    assert!(
        chunks[2]
            .text
            .starts_with("/* Adds. */\nPyAPI_FUNC(int) add")
    );
    for (path, broken) in [
        ("a.c", "int f( {\n}\n"),
        ("a.cpp", "class A {\n  void f( {\n};\n"),
    ] {
        let chunks = chunk_code(path, broken, LIMITS).unwrap();
        assert!(
            covers(&chunks, &broken.lines().collect::<Vec<_>>()),
            "{path}"
        );
    }
}

#[test]
fn a_tree_with_errors_must_cover_every_line_that_is_not_blank() {
    let lines = ["int a;", "", "int b;", "int c;"];
    let chunk = |start_line, end_line| Chunk {
        start_line,
        end_line,
        text: String::new(),
        context: String::new(),
    };
    assert!(covers(&[chunk(1, 1), chunk(3, 4)], &lines));
    assert!(covers(&[chunk(1, 4)], &lines));
    assert!(!covers(&[chunk(1, 1), chunk(4, 4)], &lines));
    assert!(!covers(&[], &lines));
}
