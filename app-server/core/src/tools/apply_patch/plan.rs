//! Planning a patch: resolving paths, reading files and computing every new content up front.
//!
//! A patch is all-or-nothing for the model (`model-wire.md` §3.2), so nothing is written until
//! every file's outcome is known. Planning works on a virtual view of the files, so that a
//! patch touching the same path twice (add, then update; move, then edit) sees its own earlier
//! operations, exactly as applying the operations one after another would.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use app_server_protocol::item::{FileUpdateChange, PatchChangeKind};

use crate::paths::resolve_lexically;

use super::diff::unified_hunks;
use super::error::ApplyError;
use super::matcher::apply_chunks;
use super::parser::{FileOperation, Patch};

/// Everything a patch will do, computed without writing anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchPlan {
    /// One entry per file operation, in patch order.
    pub(super) files: Vec<PlannedFile>,
    /// Every path the patch touches, in first-touch order, with its state before and after.
    pub(super) targets: Vec<Target>,
}

/// One planned file operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// Absolute path of the file the operation names (the source of a move).
    pub path: PathBuf,
    /// The path to report in the summary, as written in the patch (the destination of a move).
    pub display_path: PathBuf,
    /// Add, delete or update.
    pub kind: FileChangeKind,
    /// Content before the operation; `None` when the file did not exist.
    pub old_content: Option<String>,
    /// Content after the operation (at the move destination for a move); `None` for a delete.
    pub new_content: Option<String>,
}

/// What a planned operation does to its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChangeKind {
    /// Creates the file, or overwrites it as Codex does.
    Add,
    /// Removes the file.
    Delete,
    /// Edits the file, writing the result to `move_path` (absolute) when set.
    Update {
        /// Absolute destination of a `*** Move to:`.
        move_path: Option<PathBuf>,
    },
}

/// A touched path: its bytes before the patch and its content after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Target {
    /// Absolute path.
    pub(super) path: PathBuf,
    /// Bytes before the patch; `None` when the file did not exist.
    pub(super) original: Option<Vec<u8>>,
    /// Content after the whole patch; `None` when it will not exist.
    pub(super) new_content: Option<String>,
}

impl Target {
    /// Whether applying the patch changes this path at all.
    pub(super) fn is_changed(&self) -> bool {
        self.original.as_deref() != self.new_content.as_deref().map(str::as_bytes)
    }
}

/// Resolves the patch's paths against `cwd` (absolute paths are kept), reads the current files
/// and computes every file's new content, without writing anything.
pub fn plan_patch(patch: &Patch, cwd: &Path) -> Result<PatchPlan, ApplyError> {
    let mut workspace = VirtualFiles::default();
    let mut files = Vec::with_capacity(patch.operations.len());
    for operation in &patch.operations {
        files.push(plan_operation(operation, cwd, &mut workspace)?);
    }
    let targets = workspace
        .order
        .into_iter()
        .filter_map(|path| {
            let original = workspace.originals.remove(&path)?;
            let new_content = workspace.current.remove(&path)?;
            Some(Target {
                path,
                original,
                new_content,
            })
        })
        .collect();
    Ok(PatchPlan { files, targets })
}

impl PatchPlan {
    /// The planned operations, in patch order.
    pub fn files(&self) -> &[PlannedFile] {
        &self.files
    }

    /// The `fileChange.changes[]` of the item (`model-wire.md` §3.3): the new content for an
    /// add, the old content for a delete, a header-less unified hunk for an update.
    pub fn changes(&self) -> Vec<FileUpdateChange> {
        self.files
            .iter()
            .map(|file| {
                let old_content = file.old_content.as_deref().unwrap_or_default();
                let new_content = file.new_content.as_deref().unwrap_or_default();
                let (kind, diff) = match &file.kind {
                    FileChangeKind::Add => (PatchChangeKind::Add, new_content.to_string()),
                    FileChangeKind::Delete => (PatchChangeKind::Delete, old_content.to_string()),
                    FileChangeKind::Update { move_path } => (
                        PatchChangeKind::Update {
                            move_path: move_path.as_ref().map(|path| path.display().to_string()),
                        },
                        unified_hunks(old_content, new_content),
                    ),
                };
                FileUpdateChange {
                    path: file.path.display().to_string(),
                    kind,
                    diff,
                }
            })
            .collect()
    }
}

fn plan_operation(
    operation: &FileOperation,
    cwd: &Path,
    workspace: &mut VirtualFiles,
) -> Result<PlannedFile, ApplyError> {
    match operation {
        FileOperation::Add {
            path: patch_path,
            contents,
        } => {
            let path = resolve_lexically(cwd, patch_path);
            let old_content = workspace.read_target(&path)?.map(lossy);
            workspace.set(&path, Some(contents.clone()));
            Ok(PlannedFile {
                path,
                display_path: patch_path.clone(),
                kind: FileChangeKind::Add,
                old_content,
                new_content: Some(contents.clone()),
            })
        }
        FileOperation::Delete { path: patch_path } => {
            let path = resolve_lexically(cwd, patch_path);
            let old_content = match workspace.read(&path) {
                Ok(Some(bytes)) => lossy(bytes),
                Ok(None) => {
                    return Err(ApplyError::DeleteUnreadable {
                        path,
                        source: not_found(),
                    });
                }
                Err(source) => return Err(ApplyError::DeleteUnreadable { path, source }),
            };
            workspace.set(&path, None);
            Ok(PlannedFile {
                path,
                display_path: patch_path.clone(),
                kind: FileChangeKind::Delete,
                old_content: Some(old_content),
                new_content: None,
            })
        }
        FileOperation::Update {
            path: patch_path,
            move_path: patch_move_path,
            chunks,
        } => {
            let path = resolve_lexically(cwd, patch_path);
            let old_content = match workspace.read(&path) {
                Ok(Some(bytes)) => {
                    String::from_utf8(bytes).map_err(|_| ApplyError::UpdateUnreadable {
                        path: path.clone(),
                        source: io::Error::new(
                            io::ErrorKind::InvalidData,
                            "the file is not valid UTF-8",
                        ),
                    })?
                }
                Ok(None) => {
                    return Err(ApplyError::UpdateUnreadable {
                        path,
                        source: not_found(),
                    });
                }
                Err(source) => return Err(ApplyError::UpdateUnreadable { path, source }),
            };
            let new_content = apply_chunks(&old_content, chunks, &path)?;
            let move_path = patch_move_path
                .as_ref()
                .map(|move_path| resolve_lexically(cwd, move_path))
                .filter(|move_path| *move_path != path);
            match &move_path {
                Some(destination) => {
                    // Read the destination first so its pre-patch state is recorded.
                    workspace.read_target(destination)?;
                    workspace.set(&path, None);
                    workspace.set(destination, Some(new_content.clone()));
                }
                None => workspace.set(&path, Some(new_content.clone())),
            }
            Ok(PlannedFile {
                path,
                display_path: patch_move_path
                    .clone()
                    .unwrap_or_else(|| patch_path.clone()),
                kind: FileChangeKind::Update { move_path },
                old_content: Some(old_content),
                new_content: Some(new_content),
            })
        }
    }
}

/// The files as the patch sees them: disk contents overlaid with the patch's earlier operations.
#[derive(Default)]
struct VirtualFiles {
    /// Paths in first-touch order.
    order: Vec<PathBuf>,
    /// Bytes on disk when first read; `None` when missing.
    originals: HashMap<PathBuf, Option<Vec<u8>>>,
    /// Content after the operations planned so far.
    current: HashMap<PathBuf, Option<String>>,
}

impl VirtualFiles {
    /// The current bytes of `path`; `Ok(None)` when it does not exist (on disk or any more).
    fn read(&mut self, path: &Path) -> io::Result<Option<Vec<u8>>> {
        if let Some(current) = self.current.get(path) {
            return Ok(current.as_ref().map(|content| content.clone().into_bytes()));
        }
        let original = match fs::read(path) {
            Ok(bytes) => Some(bytes),
            Err(error) if error.kind() == io::ErrorKind::NotFound => None,
            Err(error) => return Err(error),
        };
        self.order.push(path.to_path_buf());
        self.originals.insert(path.to_path_buf(), original.clone());
        // Keep non-UTF-8 originals readable for deletes; updates re-check UTF-8 themselves.
        self.current
            .insert(path.to_path_buf(), original.clone().map(lossy));
        Ok(original)
    }

    /// Reads a path about to be written whole (add, move destination): it may be missing, but
    /// when it exists it must be a regular file.
    fn read_target(&mut self, path: &Path) -> Result<Option<Vec<u8>>, ApplyError> {
        match self.read(path) {
            Ok(bytes) => Ok(bytes),
            Err(_) if path.is_dir() => Err(ApplyError::NotAFile {
                path: path.to_path_buf(),
            }),
            Err(source) => Err(ApplyError::Io {
                action: "read",
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    fn set(&mut self, path: &Path, content: Option<String>) {
        self.current.insert(path.to_path_buf(), content);
    }
}

fn lossy(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

fn not_found() -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, "no such file")
}
