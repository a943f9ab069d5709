//! Tests of the apply_patch library, ported from Codex's apply-patch cases as a specification,
//! plus the exact `fileChange` and `turn/diff/updated` strings of the recorded transcripts.

mod apply_tests;
mod diff_tests;
mod heredoc_tests;
mod matching_tests;
mod parse_tests;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use super::apply::AppliedPatch;
use super::parser::parse_patch;
use super::plan::{PatchPlan, plan_patch};

/// Wraps operations in the patch envelope.
fn wrap(body: &str) -> String {
    format!("*** Begin Patch\n{body}\n*** End Patch\n")
}

/// Parses and plans `patch` against `cwd`, with errors as the model would see them.
fn plan(cwd: &Path, patch: &str) -> Result<PatchPlan, String> {
    let patch = parse_patch(patch).map_err(|error| error.to_string())?;
    plan_patch(&patch, cwd).map_err(|error| error.to_string())
}

/// Parses, plans and applies `patch` in `cwd`, with errors as the model would see them.
fn run(cwd: &Path, patch: &str) -> Result<AppliedPatch, String> {
    plan(cwd, patch)?.apply().map_err(|error| error.to_string())
}

fn write(cwd: &Path, path: &str, content: &str) {
    let path = cwd.join(path);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(path, content).unwrap();
}

fn read(cwd: &Path, path: &str) -> Option<String> {
    fs::read_to_string(cwd.join(path)).ok()
}

/// Every file and directory under `root` (relative paths; directories end with `/`), with file
/// contents, to assert that a failed patch left no trace at all.
fn snapshot(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, directory: &Path, entries: &mut BTreeMap<String, String>) {
        for entry in fs::read_dir(directory).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(root).unwrap().display().to_string();
            if path.is_dir() {
                entries.insert(format!("{relative}/"), String::new());
                walk(root, &path, entries);
            } else {
                entries.insert(relative, fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    let mut entries = BTreeMap::new();
    walk(root, root, &mut entries);
    entries
}
