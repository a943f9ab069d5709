//! Writing a planned patch atomically, and the summary the model gets back.
//!
//! A failed patch must leave every file as it was, so applying happens in phases: check that
//! nothing changed since planning, write every new content to a temporary file next to its
//! target, then rename the temporary files into place and remove deleted files. Each committed
//! step is recorded; if any step fails, the recorded steps are undone in reverse order.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::error::ApplyError;
use super::plan::{FileChangeKind, PatchPlan, Target};

/// The outcome of a successfully applied patch, with paths as written in the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedPatch {
    /// Files added (or overwritten by an add).
    pub added: Vec<PathBuf>,
    /// Files updated, named by their move destination when moved.
    pub modified: Vec<PathBuf>,
    /// Files deleted.
    pub deleted: Vec<PathBuf>,
}

impl AppliedPatch {
    /// The tool output Codex prints (`model-wire.md` §2.3):
    /// `Success. Updated the following files:\nA <path>\nM <path>\nD <path>\n`, grouped by kind.
    pub fn summary(&self) -> String {
        let mut summary = String::from("Success. Updated the following files:\n");
        let groups = [
            ("A", &self.added),
            ("M", &self.modified),
            ("D", &self.deleted),
        ];
        for (letter, paths) in groups {
            for path in paths {
                summary.push_str(&format!("{letter} {}\n", path.display()));
            }
        }
        summary
    }
}

impl PatchPlan {
    /// Applies the plan atomically: either every file ends up as planned, or (on error) every
    /// file is as it was before, including directories created on the way.
    ///
    /// Fails with [`ApplyError::ChangedSincePlanned`], writing nothing, when a file no longer
    /// holds the content the plan was computed from; plan again in that case.
    pub fn apply(&self) -> Result<AppliedPatch, ApplyError> {
        let targets: Vec<&Target> = self
            .targets
            .iter()
            .filter(|target| target.is_changed())
            .collect();
        let mut originals = Vec::with_capacity(targets.len());
        for target in &targets {
            originals.push(check_unchanged(target)?);
        }
        let mut transaction = Transaction::default();
        if let Err(error) = transaction.run(&targets, originals) {
            transaction.roll_back();
            return Err(error);
        }
        Ok(self.applied())
    }

    fn applied(&self) -> AppliedPatch {
        let mut applied = AppliedPatch {
            added: Vec::new(),
            modified: Vec::new(),
            deleted: Vec::new(),
        };
        for file in &self.files {
            let list = match file.kind {
                FileChangeKind::Add => &mut applied.added,
                FileChangeKind::Update { .. } => &mut applied.modified,
                FileChangeKind::Delete => &mut applied.deleted,
            };
            list.push(file.display_path.clone());
        }
        applied
    }
}

#[cfg(test)]
thread_local! {
    /// Makes the commit step with this index fail, so tests can check the rollback of a
    /// partially committed patch (a real rename failure is hard to provoke).
    pub(super) static FAIL_COMMIT_STEP: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

#[cfg(test)]
fn injected_failure(step: usize) -> Option<io::Error> {
    (FAIL_COMMIT_STEP.get() == Some(step)).then(|| io::Error::other("injected failure"))
}

#[cfg(not(test))]
fn injected_failure(_step: usize) -> Option<io::Error> {
    None
}

/// What was on disk at a target before applying: its bytes and permissions.
struct Original {
    bytes: Vec<u8>,
    permissions: fs::Permissions,
}

/// Verifies that `target` still holds its planned original, returning it for rollback.
fn check_unchanged(target: &Target) -> Result<Option<Original>, ApplyError> {
    let path = &target.path;
    let current = match fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(ApplyError::Io {
                action: "read",
                path: path.clone(),
                source,
            });
        }
    };
    if current != target.original {
        return Err(ApplyError::ChangedSincePlanned { path: path.clone() });
    }
    let Some(bytes) = current else {
        return Ok(None);
    };
    let permissions = fs::metadata(path)
        .map_err(|source| ApplyError::Io {
            action: "read",
            path: path.clone(),
            source,
        })?
        .permissions();
    Ok(Some(Original { bytes, permissions }))
}

/// The steps taken so far, so that they can be undone.
#[derive(Default)]
struct Transaction {
    /// Directories created, outermost first.
    created_directories: Vec<PathBuf>,
    /// Temporary files written but not yet renamed into place.
    temporary_files: Vec<PathBuf>,
    /// Paths replaced or removed, with what was there before.
    committed: Vec<(PathBuf, Option<Original>)>,
}

impl Transaction {
    fn run(
        &mut self,
        targets: &[&Target],
        originals: Vec<Option<Original>>,
    ) -> Result<(), ApplyError> {
        // Phase 1: every new content goes to a temporary file beside its destination.
        let mut staged = Vec::with_capacity(targets.len());
        for (target, original) in targets.iter().zip(originals) {
            let staged_target = match &target.new_content {
                Some(content) => {
                    let destination = write_destination(&target.path);
                    let temporary = self.stage(&destination, content, original.as_ref())?;
                    (destination, Some(temporary), original)
                }
                // A deleted symlink is removed itself, as `rm` would.
                None => (target.path.clone(), None, original),
            };
            staged.push(staged_target);
        }
        // Phase 2: rename into place and remove deleted files, recording each step.
        for (step, (destination, temporary, original)) in staged.into_iter().enumerate() {
            if let Some(source) = injected_failure(step) {
                return Err(ApplyError::Io {
                    action: "rename",
                    path: destination,
                    source,
                });
            }
            match temporary {
                Some(temporary) => {
                    fs::rename(&temporary, &destination).map_err(|source| ApplyError::Io {
                        action: "rename",
                        path: destination.clone(),
                        source,
                    })?;
                    self.temporary_files.retain(|path| *path != temporary);
                }
                None => fs::remove_file(&destination).map_err(|source| ApplyError::Io {
                    action: "remove",
                    path: destination.clone(),
                    source,
                })?,
            }
            self.committed.push((destination, original));
        }
        Ok(())
    }

    /// Writes `content` to a new temporary file in the destination's directory, creating the
    /// directory (and recording what was created) when needed.
    fn stage(
        &mut self,
        destination: &Path,
        content: &str,
        original: Option<&Original>,
    ) -> Result<PathBuf, ApplyError> {
        if let Some(parent) = destination.parent() {
            self.create_directories(parent)?;
        }
        let (temporary, mut file) =
            create_temporary_file(destination).map_err(|source| ApplyError::Io {
                action: "write",
                path: destination.to_path_buf(),
                source,
            })?;
        self.temporary_files.push(temporary.clone());
        let written = file
            .write_all(content.as_bytes())
            .and_then(|()| file.sync_all());
        written.map_err(|source| ApplyError::Io {
            action: "write",
            path: destination.to_path_buf(),
            source,
        })?;
        if let Some(original) = original {
            // Keep an edited script executable, a read-only file read-only.
            fs::set_permissions(&temporary, original.permissions.clone()).map_err(|source| {
                ApplyError::Io {
                    action: "write",
                    path: destination.to_path_buf(),
                    source,
                }
            })?;
        }
        Ok(temporary)
    }

    fn create_directories(&mut self, directory: &Path) -> Result<(), ApplyError> {
        let missing: Vec<&Path> = directory
            .ancestors()
            .take_while(|ancestor| {
                !ancestor.as_os_str().is_empty() && fs::symlink_metadata(ancestor).is_err()
            })
            .collect();
        for ancestor in missing.into_iter().rev() {
            fs::create_dir(ancestor).map_err(|source| ApplyError::Io {
                action: "create directory",
                path: ancestor.to_path_buf(),
                source,
            })?;
            self.created_directories.push(ancestor.to_path_buf());
        }
        Ok(())
    }

    /// Undoes every recorded step, newest first. Failures are logged, not returned: the
    /// original error is what the caller needs, and undoing continues as far as it can.
    fn roll_back(self) {
        for (path, original) in self.committed.into_iter().rev() {
            let restored = match &original {
                Some(original) => restore(&path, original),
                None => fs::remove_file(&path),
            };
            if let Err(error) = restored {
                tracing::error!(path = %path.display(), %error, "apply_patch rollback failed to restore a file");
            }
        }
        for temporary in self.temporary_files {
            if let Err(error) = fs::remove_file(&temporary) {
                tracing::warn!(path = %temporary.display(), %error, "apply_patch rollback left a temporary file");
            }
        }
        for directory in self.created_directories.into_iter().rev() {
            if let Err(error) = fs::remove_dir(&directory) {
                tracing::warn!(path = %directory.display(), %error, "apply_patch rollback left a directory");
            }
        }
    }
}

/// Puts an original file back, through a temporary file so the path never holds half a file.
fn restore(path: &Path, original: &Original) -> io::Result<()> {
    let (temporary, mut file) = create_temporary_file(path)?;
    let result = file
        .write_all(&original.bytes)
        .and_then(|()| fs::set_permissions(&temporary, original.permissions.clone()))
        .and_then(|()| fs::rename(&temporary, path));
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

/// Where a target's content is written: through a symlink to the file it points at, so that
/// editing a symlinked file edits the file rather than replacing the link.
fn write_destination(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Creates a new, uniquely named hidden file beside `destination`.
fn create_temporary_file(destination: &Path) -> io::Result<(PathBuf, fs::File)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let directory = destination.parent().unwrap_or_else(|| Path::new("."));
    let name = destination
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    loop {
        let counter = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temporary = directory.join(format!(
            ".{name}.{}.{counter}.tandem-tmp",
            std::process::id()
        ));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)
        {
            Ok(file) => return Ok((temporary, file)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
    }
}
