//! The committed bindings in `schemas/` must equal what the binary generates now.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    reason = "tests fail loudly on broken fixtures"
)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::repo_root;
use tandem_tests::server::tandem_binary;

const REGENERATE: &str = "cargo build --bins && scripts/generate-schemas";

/// The JSON Schema bundle, the one file of the experimental JSON output that is committed.
const BUNDLE: &str = "tandem_app_server_protocol.schemas.json";

fn read_tree(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, files: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(root, &path, files);
            } else if let Ok(contents) = std::fs::read_to_string(&path) {
                let relative = path
                    .strip_prefix(root)
                    .map(|relative| relative.to_string_lossy().replace('\\', "/"))
                    .unwrap_or_default();
                files.insert(relative, contents.replace("\r\n", "\n"));
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(root, root, &mut files);
    files
}

fn generate(subcommand: &str, out: &Path) {
    generate_with(subcommand, &[], out);
}

fn generate_with(subcommand: &str, flags: &[&str], out: &Path) {
    let status = Command::new(tandem_binary())
        .args(["app-server", subcommand])
        .args(flags)
        .arg("--out")
        .arg(out)
        .status()
        .expect("run tandem");
    assert!(
        status.success(),
        "tandem app-server {subcommand} {flags:?} failed"
    );
}

fn assert_same_tree(committed_dir: &str, subcommand: &str) {
    assert_same_output(committed_dir, subcommand, &[], |_| true);
}

/// Compares the files of `committed_dir` with those `subcommand flags` writes that `keep` selects.
fn assert_same_output(
    committed_dir: &str,
    subcommand: &str,
    flags: &[&str],
    keep: fn(&str) -> bool,
) {
    let temp = tempfile::tempdir().expect("tempdir");
    generate_with(subcommand, flags, temp.path());
    let mut fresh = read_tree(temp.path());
    fresh.retain(|path, _| keep(path));
    let committed = read_tree(&repo_root().join(committed_dir));
    let mut problems = Vec::new();
    for (path, contents) in &fresh {
        match committed.get(path) {
            None => problems.push(format!("missing in {committed_dir}: {path}")),
            Some(old) if old != contents => {
                let diff = similar::TextDiff::from_lines(old, contents)
                    .unified_diff()
                    .header(&format!("{committed_dir}/{path} (committed)"), "generated")
                    .to_string();
                problems.push(diff);
            }
            Some(_) => {}
        }
    }
    for path in committed.keys().filter(|path| !fresh.contains_key(*path)) {
        problems.push(format!("stale file in {committed_dir}: {path}"));
    }
    assert!(
        problems.is_empty(),
        "{committed_dir} is out of date:\n{}\nRegenerate with:\n  {REGENERATE}",
        problems.join("\n")
    );
}

#[test]
fn committed_typescript_bindings_are_current() {
    assert_same_tree("schemas/typescript", "generate-ts");
}

#[test]
fn committed_json_schemas_are_current() {
    assert_same_tree("schemas/json", "generate-json-schema");
}

#[test]
fn committed_experimental_typescript_bindings_are_current() {
    assert_same_output(
        "schemas/typescript-experimental",
        "generate-ts",
        &["--experimental"],
        |_| true,
    );
}

#[test]
fn committed_experimental_json_bundle_is_current() {
    assert_same_output(
        "schemas/json-experimental",
        "generate-json-schema",
        &["--experimental"],
        |path| path == BUNDLE,
    );
}

/// The SDKs and the web client hold no copy of the bindings in git: they take them from
/// `schemas/` when built.
#[test]
fn sdks_commit_no_copy_of_the_bindings() {
    let root = repo_root();
    let listed = Command::new("git")
        .arg("-C")
        .arg(&root)
        .args([
            "ls-files",
            "clients/typescript/src/generated",
            "clients/typescript/src/generated-experimental",
            "clients/python/src/tandem_client/generated",
            "clients/web/src/generated",
            "clients/web/src/generated-experimental",
        ])
        .output()
        .expect("run git ls-files");
    assert!(listed.status.success(), "git ls-files failed");
    assert_eq!(String::from_utf8_lossy(&listed.stdout), "");
}

#[test]
fn generation_is_deterministic() {
    for subcommand in ["generate-ts", "generate-json-schema"] {
        let first = tempfile::tempdir().expect("tempdir");
        let second = tempfile::tempdir().expect("tempdir");
        generate(subcommand, first.path());
        generate(subcommand, second.path());
        assert_eq!(read_tree(first.path()), read_tree(second.path()));
    }
}

#[test]
fn experimental_surface_is_a_superset_of_the_stable_one() {
    let stable = tempfile::tempdir().expect("tempdir");
    let experimental = tempfile::tempdir().expect("tempdir");
    generate("generate-ts", stable.path());
    let status = Command::new(tandem_binary())
        .args(["app-server", "generate-ts", "--experimental", "--out"])
        .arg(experimental.path())
        .status()
        .expect("run tandem");
    assert!(status.success());
    let stable = read_tree(stable.path());
    let experimental = read_tree(experimental.path());
    for path in stable.keys() {
        assert!(
            experimental.contains_key(path),
            "{path} missing from --experimental output"
        );
    }
    // The experimental server request and field appear only with --experimental.
    assert!(!stable["ServerRequest.ts"].contains("item/tool/requestUserInput"));
    assert!(experimental["ServerRequest.ts"].contains("item/tool/requestUserInput"));
    assert!(!stable["Thread.ts"].contains("environments"));
    assert!(experimental["Thread.ts"].contains("environments"));
    assert!(!stable.contains_key("ThreadEnvironment.ts"));
    assert!(experimental.contains_key("ThreadEnvironment.ts"));
    // Doc comments reach the bindings as JSDoc.
    assert!(
        stable["ThreadStartParams.ts"].contains("* Working directory; a relative path is resolved")
    );
    // 64-bit integers are plain numbers.
    assert!(stable["Thread.ts"].contains("createdAt: number"));
}
