//! Rules about the shape of the source tree that the compiler does not check, checked here so
//! that they hold without anyone remembering them (rust-analyzer's `tidy` is the model):
//!
//! - every source module is named in `docs/ARCHITECTURE.md`'s code map;
//! - the front ends (`processor/`, `mcp/`, `run_client.rs`, `exec/`) never import one another, and the
//!   shared Codex-compatibility module (`compat/`) imports no front end;
//! - `tandem-core` depends on no front end (its manifest names no `app-server` crate);
//! - no source file is longer than 800 lines (generated `schemas/` aside);
//! - no `_ =>` arm in a `match` over the server-request and answer enums, so that a new dialog
//!   type fails to compile wherever it must be handled;
//! - every crate linked into the `tandem` binary denies `print_stdout` (stdout is the protocol).
//!
//! Each rule reports every offender with its path, so a failure says what to fix.

#![allow(clippy::expect_used, clippy::unwrap_used, reason = "tests fail loudly")]

use std::fs;
use std::path::{Path, PathBuf};

/// Longest source file allowed, in lines.
const MAX_LINES: usize = 800;

/// The enums whose matches must name every variant: the server requests and the engine's
/// questions and answers, which every front end maps.
const EXHAUSTIVE_ENUMS: &[&str] = &[
    "ServerRequest",
    "ServerRequestPayload",
    "ServerMethod",
    "ApprovalRequest",
    "ApprovalReply",
    "ApprovalAnswer",
];

/// The crates linked into the `tandem` binary, by their crate root.
const BINARY_CRATE_ROOTS: &[&str] = &[
    "app-server/src/main.rs",
    "app-server/core/src/lib.rs",
    "app-server/history/src/lib.rs",
    "app-server/index/src/lib.rs",
    "app-server/mcp-client/src/lib.rs",
    "app-server/fuzz/src/lib.rs",
    "app-server-protocol/src/lib.rs",
];

/// Front-end module prefixes (under `app-server/src/`) and the modules each must not import.
const FRONT_END_RULES: &[(&str, &[&str])] = &[
    ("processor/", &["crate::mcp", "crate::run_client"]),
    ("server.rs", &["crate::mcp", "crate::run_client"]),
    (
        "mcp/",
        &["crate::processor", "crate::server", "crate::run_client"],
    ),
    (
        "compat/",
        &[
            "crate::processor",
            "crate::server",
            "crate::mcp",
            "crate::run_client",
        ],
    ),
    ("run_client.rs", &["crate::processor", "crate::mcp"]),
    (
        "exec/",
        &[
            "crate::processor",
            "crate::server",
            "crate::mcp",
            "crate::run_client",
        ],
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// Every `.rs` file below `dir`, skipping build output and dependencies.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("readable directory") {
            let path = entry.expect("directory entry").path();
            let name = path
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or("");
            if path.is_dir() {
                if !matches!(name, "target" | "node_modules" | ".git" | "schemas") {
                    stack.push(path);
                }
            } else if name.ends_with(".rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

/// The source files of the crates whose modules the code map describes.
fn mapped_sources() -> Vec<PathBuf> {
    let root = root();
    [
        "app-server/src",
        "app-server/core/src",
        "app-server/history/src",
        "app-server/index/src",
        "app-server/mcp-client/src",
        "app-server-protocol/src",
    ]
    .iter()
    .flat_map(|dir| rust_files(&root.join(dir)))
    .collect()
}

/// Whether a file is a module the code map must name: not a crate root, a `mod.rs`, a test
/// file or a binary (they are described with their directory or crate).
fn is_mapped_module(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    let text = path.to_string_lossy();
    !(matches!(name, "lib.rs" | "main.rs" | "mod.rs" | "tests.rs")
        || name.ends_with("_tests.rs")
        || text.contains("/tests/")
        || text.contains("/bin/"))
}

#[test]
fn every_module_is_named_in_the_code_map() {
    let map = fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let mut missing = Vec::new();
    for path in mapped_sources() {
        if !is_mapped_module(&path) {
            continue;
        }
        let name = path
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("");
        let stem = name.trim_end_matches(".rs");
        // `engine/thread.rs` may be named as `thread.rs` (alone or at the end of a path), or as
        // a module directory `thread/`.
        if !(map.contains(&format!("{name}`")) || map.contains(&format!("`{stem}/`"))) {
            missing.push(relative(&path));
        }
    }
    assert!(
        missing.is_empty(),
        "modules missing from docs/ARCHITECTURE.md's code map (name each file there, e.g. `{}`):\n{}",
        missing
            .first()
            .and_then(|path| Path::new(path).file_name())
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default(),
        missing.join("\n")
    );
}

/// The lines of a file that are not comments, with their line numbers.
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .map(|(index, line)| (index + 1, line))
        .collect()
}

#[test]
fn front_ends_do_not_import_one_another() {
    let src = root().join("app-server/src");
    let mut offenders = Vec::new();
    for path in rust_files(&src) {
        let within = relative(&path)
            .trim_start_matches("app-server/src/")
            .to_string();
        let text = fs::read_to_string(&path).expect("source file");
        for (prefix, forbidden) in FRONT_END_RULES {
            if !within.starts_with(prefix) {
                continue;
            }
            for (line_number, line) in code_lines(&text) {
                for module in *forbidden {
                    if line.contains(&format!("{module}::")) || line.contains(&format!("{module};"))
                    {
                        offenders.push(format!(
                            "{}:{line_number}: imports `{module}`",
                            relative(&path)
                        ));
                    }
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "a front end imports another (move what both need into compat/ or tandem-core):\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_core_depends_on_no_front_end() {
    let manifest =
        fs::read_to_string(root().join("app-server/core/Cargo.toml")).expect("core manifest");
    let offenders: Vec<&str> = manifest
        .lines()
        .filter(|line| {
            let name = line.split('=').next().unwrap_or("").trim();
            name == "app-server" || name == "tandem-tests"
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "tandem-core depends on a front end: {offenders:?}"
    );
    let mut uses = Vec::new();
    for path in rust_files(&root().join("app-server/core/src")) {
        let text = fs::read_to_string(&path).expect("source file");
        for (line_number, line) in code_lines(&text) {
            if line.contains("app_server::") {
                uses.push(format!("{}:{line_number}", relative(&path)));
            }
        }
    }
    assert!(
        uses.is_empty(),
        "tandem-core names the front-end crate:\n{}",
        uses.join("\n")
    );
}

#[test]
fn no_source_file_is_longer_than_the_limit() {
    let root = root();
    let mut files = rust_files(&root);
    for dir in ["clients/typescript/src", "clients/python/src"] {
        let mut stack = vec![root.join(dir)];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let name = path
                    .file_name()
                    .and_then(|name| name.to_str())
                    .unwrap_or("");
                if path.is_dir() {
                    // The SDKs copy the generated bindings in at build time.
                    if !name.starts_with("generated") && name != "node_modules" {
                        stack.push(path);
                    }
                } else if name.ends_with(".ts") || name.ends_with(".py") {
                    files.push(path);
                }
            }
        }
    }
    let long: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let lines = fs::read_to_string(path).ok()?.lines().count();
            (lines > MAX_LINES).then(|| format!("{} has {lines} lines", relative(path)))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these files by domain (at most {MAX_LINES} lines each):\n{}",
        long.join("\n")
    );
}

/// The `_ =>` arms of matches whose other arms name a variant of one of `EXHAUSTIVE_ENUMS`.
fn wildcard_arms(text: &str) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let indent = |line: &str| line.len() - line.trim_start().len();
    let mut found = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if !line.trim_start().starts_with("_ =>") {
            continue;
        }
        let arm_indent = indent(line);
        // Walk back to the `match` that owns this arm, looking at its arms' patterns.
        for earlier in lines[..index].iter().rev() {
            if earlier.trim().is_empty() {
                continue;
            }
            if indent(earlier) < arm_indent {
                break;
            }
            if indent(earlier) == arm_indent {
                let pattern = earlier.trim_start().trim_start_matches("| ");
                if EXHAUSTIVE_ENUMS
                    .iter()
                    .any(|name| pattern.starts_with(&format!("{name}::")))
                {
                    found.push(index + 1);
                    break;
                }
            }
        }
    }
    found
}

#[test]
fn no_wildcard_arm_over_server_requests_or_answers() {
    let mut offenders = Vec::new();
    for path in mapped_sources() {
        let text = fs::read_to_string(&path).expect("source file");
        for line in wildcard_arms(&text) {
            offenders.push(format!("{}:{line}", relative(&path)));
        }
    }
    assert!(
        offenders.is_empty(),
        "name every variant instead of `_ =>`, so that a new dialog type fails to compile here:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn the_wildcard_check_sees_a_wildcard_arm() {
    let text = "match request {\n    ApprovalRequest::Command(_) => 1,\n    _ => 2,\n}\n";
    assert_eq!(wildcard_arms(text), vec![3]);
    let strings = "match name {\n    \"a\" => 1,\n    _ => 2,\n}\n";
    assert_eq!(wildcard_arms(strings), Vec::<usize>::new());
}

#[test]
fn every_crate_of_the_binary_denies_print_stdout() {
    let missing: Vec<&str> = BINARY_CRATE_ROOTS
        .iter()
        .copied()
        .filter(|path| {
            let text = fs::read_to_string(root().join(path)).unwrap_or_default();
            !text.contains("#![deny(clippy::print_stdout")
        })
        .collect();
    assert!(
        missing.is_empty(),
        "add `#![deny(clippy::print_stdout, clippy::print_stderr)]` to: {missing:?}"
    );
}
