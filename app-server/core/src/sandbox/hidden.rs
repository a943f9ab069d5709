//! Paths a sandboxed command may not read at all: `$TANDEM_HOME` (the stored API key, token
//! files, every thread's rollout, the history index and logs), passed as `--hide`.
//!
//! With a mount namespace each hidden path is covered by an empty, read-only file system (see
//! [`crate::sandbox::namespace`]); without one, Landlock's read grant on `/` is split so that
//! it leaves the hidden paths out (see [`crate::sandbox::plan::grants_excluding`]).
//!
//! A directory inside a hidden path may be *exposed* (`--expose`): the command may read it but
//! never write it. `$TANDEM_HOME/skills/` is, so that the model can read the skills it is told
//! about while credentials, rollouts and logs stay out of reach.
//!
//! A hidden path wins over a writable root that contains it (a workspace or `/tmp` holding the
//! home): it stays unreadable and unwritable, and so does everything below it; writable roots
//! and protected `.git` paths inside a hidden path are dropped. A command whose working
//! directory lies inside a hidden path is refused: its current directory would reach the
//! hidden files through relative paths whatever is mounted over them.

use std::path::{Path, PathBuf};

use crate::sandbox::SandboxError;
use crate::sandbox::plan::ConfinementPlan;

/// What a sandboxed command may not read, and which directories inside that it may still read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Concealment {
    /// Paths the command may neither read nor write (`--hide`).
    pub hidden: Vec<PathBuf>,
    /// Directories inside a hidden path that the command may read but not write (`--expose`).
    pub exposed: Vec<PathBuf>,
}

impl Concealment {
    /// `$TANDEM_HOME` hidden, with its `skills/` directory exposed read-only.
    pub fn tandem_home(home: &Path) -> Concealment {
        Concealment {
            hidden: vec![home.to_path_buf()],
            exposed: vec![crate::skills::user_skills_dir(home)],
        }
    }
}

/// An exposed directory as the helper mounts or grants it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exposure {
    /// Where the command finds it: the exposed path with its hidden ancestor made canonical.
    pub mount_point: PathBuf,
    /// The directory itself, canonical (a symbolic link to elsewhere is followed).
    pub source: PathBuf,
}

/// The exposed directories that exist and may be shown. `hide` are the hidden paths as given
/// and `hidden` the result of [`resolve`] on them. An exposed path must lie inside a given
/// hidden path, name no `..`, and be a directory; one that resolves to a different place
/// inside a hidden path (a link from `skills/` to the home's other contents) is left hidden.
pub fn resolve_exposed(exposed: &[PathBuf], hide: &[PathBuf], hidden: &[PathBuf]) -> Vec<Exposure> {
    let inside_hidden = |path: &Path| hidden.iter().any(|hidden| path.starts_with(hidden));
    let mut exposures = Vec::new();
    for path in exposed {
        let Some((parent, relative)) = hide
            .iter()
            .find_map(|parent| Some((parent, path.strip_prefix(parent).ok()?)))
        else {
            tracing::debug!(path = %path.display(), "not inside a hidden path; nothing to expose");
            continue;
        };
        let plain = relative
            .components()
            .all(|component| matches!(component, std::path::Component::Normal(_)));
        if !plain || relative.as_os_str().is_empty() {
            tracing::debug!(path = %path.display(), "not a plain path below a hidden one");
            continue;
        }
        let (Ok(parent), Ok(source)) = (std::fs::canonicalize(parent), std::fs::canonicalize(path))
        else {
            continue;
        };
        let mount_point = parent.join(relative);
        if !source.is_dir() || !inside_hidden(&mount_point) {
            continue;
        }
        if inside_hidden(&source) && source != mount_point {
            tracing::debug!(path = %path.display(), source = %source.display(), "leads elsewhere into a hidden path; left hidden");
            continue;
        }
        exposures.push(Exposure {
            mount_point,
            source,
        });
    }
    exposures.sort_by(|a, b| a.mount_point.cmp(&b.mount_point));
    exposures.dedup_by(|a, b| a.mount_point == b.mount_point);
    exposures
}

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
    fn only_plain_existing_directories_inside_a_hidden_path_are_exposed() {
        let parent = tempfile::tempdir().unwrap();
        let parent_path = std::fs::canonicalize(parent.path()).unwrap();
        let home = parent_path.join("home");
        std::fs::create_dir_all(home.join("skills/review")).unwrap();
        std::fs::create_dir_all(home.join("sessions")).unwrap();
        std::fs::write(home.join("auth.json"), "{}").unwrap();
        std::fs::create_dir_all(parent_path.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(home.join("sessions"), home.join("to-sessions")).unwrap();
        std::os::unix::fs::symlink(parent_path.join("elsewhere"), home.join("linked")).unwrap();
        let hide = vec![home.clone()];
        let hidden = resolve(&hide);
        let exposed = resolve_exposed(
            &[
                home.join("skills"),
                home.join("skills/../sessions"),
                home.join("auth.json"),
                home.join("missing"),
                home.join("to-sessions"),
                home.join("linked"),
                parent_path.join("elsewhere"),
                home.clone(),
            ],
            &hide,
            &hidden,
        );
        assert_eq!(
            exposed,
            vec![
                Exposure {
                    mount_point: home.join("linked"),
                    source: parent_path.join("elsewhere"),
                },
                Exposure {
                    mount_point: home.join("skills"),
                    source: home.join("skills"),
                },
            ]
        );
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
