//! `generate-ts` and `generate-json-schema`: write the protocol crate's exports to disk.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use app_server_protocol::export::{self, ExportOptions};

use crate::cli::GenerateArgs;

pub fn generate_ts(args: &GenerateArgs) -> anyhow::Result<()> {
    let files = export::typescript(&ExportOptions {
        experimental: args.experimental,
    })?;
    write_files(&args.out, &files, "ts")
}

pub fn generate_json_schema(args: &GenerateArgs) -> anyhow::Result<()> {
    let files = export::json_schema(&ExportOptions {
        experimental: args.experimental,
    })?;
    write_files(&args.out, &files, "json")
}

/// Writes `files` under `out`, after removing stale generated files (same extension) that
/// the new set no longer contains, so that the directory mirrors the export exactly.
fn write_files(
    out: &Path,
    files: &BTreeMap<String, String>,
    extension: &str,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    remove_stale(out, out, files, extension)?;
    for (relative, contents) in files {
        let path = out.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, contents).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

fn remove_stale(
    root: &Path,
    directory: &Path,
    files: &BTreeMap<String, String>,
    extension: &str,
) -> anyhow::Result<()> {
    let entries =
        std::fs::read_dir(directory).with_context(|| format!("reading {}", directory.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            remove_stale(root, &path, files, extension)?;
            continue;
        }
        let is_generated = path.extension().is_some_and(|ext| ext == extension);
        let relative = path
            .strip_prefix(root)
            .map(|relative| relative.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        if is_generated && !files.contains_key(&relative) {
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        }
    }
    Ok(())
}
