//! Paths a sandboxed command may not read at all: `$TANDEM_HOME` (the stored API key, token
//! files, every thread's rollout, the history index and logs), passed as `--hide`.
//!
//! With a mount namespace each hidden path is covered by an empty, read-only file system (see
//! [`crate::sandbox::namespace`]); without one, Landlock's read grant on `/` is split so that
//! it leaves the hidden paths out (see [`crate::sandbox::plan::grants_excluding`]).
//!
//! A hidden path wins over a writable root that contains it (a workspace or `/tmp` holding the
//! home): it stays unreadable and unwritable, and so does everything below it; writable roots
//! and protected `.git` paths inside a hidden path are dropped. A command whose working
//! directory lies inside a hidden path is refused: its current directory would reach the
//! hidden files through relative paths whatever is mounted over them.

use std::path::{Path, PathBuf};

use crate::sandbox::SandboxError;
use crate::sandbox::plan::ConfinementPlan;

/// The hidden paths that exist, canonical; a path inside another one is dropped. A path that
/// does not exist holds nothing to hide.
pub fn resolve(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut hidden: Vec<PathBuf> = Vec::new();
    for path in paths {
        match std::fs::canonicalize(path) {
            Ok(path) => hidden.push(path),
            Err(error) => {
                tracing::debug!(path = %path.display(), %error, "nothing to hide");
            }
        }
    }
    hidden.sort();
    hidden.dedup();
    let all = hidden.clone();
    hidden.retain(|path| {
        !all.iter()
            .any(|other| other != path && path.starts_with(other))
    });
    hidden
}

/// Refuses when the working directory `cwd` lies inside a hidden path.
pub fn check_working_directory(cwd: &Path, hidden: &[PathBuf]) -> Result<(), SandboxError> {
    match hidden.iter().find(|path| cwd.starts_with(path)) {
        Some(path) => Err(SandboxError::InsideHiddenPath {
            cwd: cwd.to_path_buf(),
            hidden: path.clone(),
        }),
        None => Ok(()),
    }
}

/// Drops from `plan` the writable roots and protected paths that lie inside a hidden path.
pub fn leave_out(plan: &mut ConfinementPlan, hidden: &[PathBuf]) {
    let inside = |path: &PathBuf| hidden.iter().any(|hidden| path.starts_with(hidden));
    plan.writable_roots.retain(|root| !inside(root));
    plan.protected.retain(|path| !inside(path));
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn only_existing_outermost_paths_are_hidden() {
        let home = tempfile::tempdir().unwrap();
        let home_path = std::fs::canonicalize(home.path()).unwrap();
        std::fs::create_dir(home_path.join("sessions")).unwrap();
        let hidden = resolve(&[
            home_path.join("sessions"),
            home.path().join("."),
            home_path.join("missing"),
        ]);
        assert_eq!(hidden, vec![home_path]);
    }

    #[test]
    fn a_working_directory_inside_a_hidden_path_is_refused() {
        let hidden = vec![PathBuf::from("/home/user/.tandem")];
        check_working_directory(Path::new("/home/user"), &hidden).unwrap();
        check_working_directory(Path::new("/home/user/.tandem-other"), &hidden).unwrap();
        let error = check_working_directory(Path::new("/home/user/.tandem/x"), &hidden)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "the working directory /home/user/.tandem/x lies inside /home/user/.tandem, which sandboxed commands may not read (TANDEM_HOME); run the command elsewhere"
        );
    }

    #[test]
    fn writable_roots_and_protected_paths_inside_a_hidden_path_are_dropped() {
        let mut plan = ConfinementPlan {
            writable_roots: vec![
                PathBuf::from("/tmp"),
                PathBuf::from("/tmp/home/scratch"),
                PathBuf::from("/work"),
            ],
            protected: vec![
                PathBuf::from("/work/.git"),
                PathBuf::from("/tmp/home/repo/.git"),
            ],
            network_access: false,
        };
        leave_out(&mut plan, &[PathBuf::from("/tmp/home")]);
        assert_eq!(
            plan.writable_roots,
            vec![PathBuf::from("/tmp"), PathBuf::from("/work")]
        );
        assert_eq!(plan.protected, vec![PathBuf::from("/work/.git")]);
    }
}
