//! Policy → confinement plan: which directories a sandboxed command may write, which `.git`
//! paths stay read-only inside them, and whether it may use the network.
//!
//! This is the pure(ish) part of the sandbox: it only reads the file system (to resolve paths
//! and find `.git`), so it is unit tested without confining anything.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use app_server_protocol::policy::SandboxPolicy;

/// What the helper enforces for one command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfinementPlan {
    /// Directories the command may write below (canonical, existing, without duplicates).
    pub writable_roots: Vec<PathBuf>,
    /// `.git` directories and files, and the `gitdir:` targets of `.git` files, that lie inside
    /// a writable root and must stay read-only (canonical).
    pub protected: Vec<PathBuf>,
    /// Whether the command may open network sockets.
    pub network_access: bool,
}

/// Devices that every confined command may open for writing: shells redirect to `/dev/null`,
/// and interactive tools (password prompts, pagers) open the controlling terminal read-write.
pub const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/tty"];

/// Computes the plan for `policy`, or `None` when the policy asks for no sandbox.
///
/// `cwd` is the workspace the policy refers to (absolute); `tmpdir` is the command's `$TMPDIR`.
/// Roots that do not exist are skipped: there is nothing to write below them.
/// A root that resolves to `/` (named so, through `..` or through a symbolic link, perhaps
/// created after the server checked the policy) is skipped too: a sandbox that lets commands
/// write the whole file system is no sandbox, and only `dangerFullAccess` grants that, within
/// the operator's `clients.max_sandbox`.
pub fn plan_for(
    policy: &SandboxPolicy,
    cwd: &Path,
    tmpdir: Option<&OsStr>,
) -> Option<ConfinementPlan> {
    match policy {
        SandboxPolicy::DangerFullAccess | SandboxPolicy::ExternalSandbox { .. } => None,
        SandboxPolicy::ReadOnly { network_access } => Some(ConfinementPlan {
            writable_roots: Vec::new(),
            protected: Vec::new(),
            network_access: network_access.unwrap_or(false),
        }),
        SandboxPolicy::WorkspaceWrite {
            writable_roots,
            network_access,
            exclude_tmpdir_env_var,
            exclude_slash_tmp,
        } => {
            let mut candidates = vec![cwd.to_path_buf()];
            for root in writable_roots.iter().flatten() {
                // Relative roots are relative to the workspace, never to the helper's cwd.
                candidates.push(cwd.join(root));
            }
            if !exclude_slash_tmp.unwrap_or(false) {
                candidates.push(PathBuf::from("/tmp"));
            }
            if !exclude_tmpdir_env_var.unwrap_or(false)
                && let Some(tmpdir) = tmpdir.filter(|tmpdir| !tmpdir.is_empty())
            {
                candidates.push(cwd.join(tmpdir));
            }
            let mut roots: Vec<PathBuf> = Vec::new();
            for candidate in candidates {
                match fs::canonicalize(&candidate) {
                    Ok(root) if root == Path::new("/") => {
                        tracing::warn!(root = %candidate.display(), "skipping writable root: it is the whole file system");
                    }
                    Ok(root) if root.is_dir() => {
                        if !roots.contains(&root) {
                            roots.push(root);
                        }
                    }
                    Ok(_) | Err(_) => {
                        tracing::debug!(root = %candidate.display(), "skipping writable root: not an existing directory");
                    }
                }
            }
            let protected = protected_paths(&roots);
            Some(ConfinementPlan {
                writable_roots: roots,
                protected,
                network_access: network_access.unwrap_or(false),
            })
        }
    }
}

/// The `.git` entries directly inside each root (and `gitdir:` targets) that must stay
/// read-only, restricted to those that a writable root would otherwise cover.
///
/// Only the top level of each root is checked, as Codex does: nested repositories (vendored
/// checkouts, submodules with their own `.git` directory) are writable like any other directory.
fn protected_paths(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut protected: Vec<PathBuf> = Vec::new();
    for root in roots {
        let dot_git = root.join(".git");
        let Ok(metadata) = fs::metadata(&dot_git) else {
            continue;
        };
        let mut found = Vec::new();
        if let Ok(path) = fs::canonicalize(&dot_git) {
            found.push(path);
        }
        if metadata.is_file()
            && let Some(target) = gitdir_target(&dot_git)
            && let Ok(target) = fs::canonicalize(target)
        {
            found.push(target);
        }
        for path in found {
            let covered = roots.iter().any(|root| path.starts_with(root));
            if covered && !protected.contains(&path) {
                protected.push(path);
            }
        }
    }
    protected
}

/// The directory a `.git` file points at (`gitdir: <path>`, relative to the file's directory).
fn gitdir_target(dot_git_file: &Path) -> Option<PathBuf> {
    let contents = fs::read_to_string(dot_git_file).ok()?;
    let line = contents.lines().next()?;
    let target = line.strip_prefix("gitdir:")?.trim();
    if target.is_empty() {
        return None;
    }
    let base = dot_git_file.parent()?;
    Some(base.join(target))
}

/// Write grants for the Landlock-only fallback, used when `.git` cannot be bind-mounted
/// read-only: Landlock rights are inherited by everything below a granted directory, so a root
/// that contains a protected path is not granted itself; its children are, except the
/// protected ones, recursively along the path down to each protected entry.
///
/// Consequence: in this mode the command cannot create, delete or rename entries directly in
/// such a root (or in the directories between it and a protected entry), only inside its
/// existing children. Symbolic links among the children are skipped: a grant on a link would
/// be a grant on its target, which may lie anywhere.
pub fn fallback_write_grants(plan: &ConfinementPlan) -> io::Result<Vec<PathBuf>> {
    grants_excluding(&plan.writable_roots, &plan.protected)
}

/// Grants on `roots` split as [`fallback_write_grants`] splits them, so that no grant reaches
/// a path of `excluded`; also used for the read grants that leave hidden paths out.
pub fn grants_excluding(roots: &[PathBuf], excluded: &[PathBuf]) -> io::Result<Vec<PathBuf>> {
    let mut grants = Vec::new();
    for root in roots {
        split_grant(root, excluded, &mut grants)?;
    }
    Ok(grants)
}

fn split_grant(dir: &Path, protected: &[PathBuf], grants: &mut Vec<PathBuf>) -> io::Result<()> {
    if protected.iter().any(|path| path == dir) {
        return Ok(());
    }
    if !protected.iter().any(|path| path.starts_with(dir)) {
        if !grants.iter().any(|granted| granted == dir) {
            grants.push(dir.to_path_buf());
        }
        return Ok(());
    }
    let mut children: Vec<fs::DirEntry> = fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    children.sort_by_key(fs::DirEntry::file_name);
    for child in children {
        if child.file_type()?.is_symlink() {
            continue;
        }
        split_grant(&child.path(), protected, grants)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::symlink;

    use pretty_assertions::assert_eq;

    use super::*;

    fn workspace_write(writable_roots: &[&str], exclude_tmp: bool) -> SandboxPolicy {
        SandboxPolicy::WorkspaceWrite {
            writable_roots: Some(writable_roots.iter().map(|root| root.to_string()).collect()),
            network_access: None,
            exclude_tmpdir_env_var: Some(exclude_tmp),
            exclude_slash_tmp: Some(exclude_tmp),
        }
    }

    fn canonical(path: &Path) -> PathBuf {
        fs::canonicalize(path).unwrap()
    }

    #[test]
    fn full_access_and_external_sandbox_need_no_plan() {
        let cwd = Path::new("/");
        assert_eq!(plan_for(&SandboxPolicy::DangerFullAccess, cwd, None), None);
        let external = SandboxPolicy::ExternalSandbox {
            network_access: None,
        };
        assert_eq!(plan_for(&external, cwd, None), None);
    }

    #[test]
    fn read_only_writes_nothing_and_network_follows_the_flag() {
        let cwd = tempfile::tempdir().unwrap();
        let policy = SandboxPolicy::ReadOnly {
            network_access: None,
        };
        assert_eq!(
            plan_for(&policy, cwd.path(), Some(OsStr::new("/tmp"))),
            Some(ConfinementPlan {
                writable_roots: vec![],
                protected: vec![],
                network_access: false,
            })
        );
        let policy = SandboxPolicy::ReadOnly {
            network_access: Some(true),
        };
        let plan = plan_for(&policy, cwd.path(), None).unwrap();
        assert!(plan.network_access);
    }

    #[test]
    fn workspace_write_covers_cwd_roots_tmp_and_tmpdir() {
        let cwd = tempfile::tempdir().unwrap();
        let extra = tempfile::tempdir().unwrap();
        let tmpdir = tempfile::tempdir().unwrap();
        fs::create_dir(cwd.path().join("build")).unwrap();
        let extra_root = extra.path().to_str().unwrap();
        let policy = SandboxPolicy::WorkspaceWrite {
            writable_roots: Some(vec![
                extra_root.to_string(),
                "build".to_string(),
                "missing".to_string(),
            ]),
            network_access: Some(true),
            exclude_tmpdir_env_var: None,
            exclude_slash_tmp: None,
        };
        let plan = plan_for(&policy, cwd.path(), Some(tmpdir.path().as_os_str())).unwrap();
        assert_eq!(
            plan,
            ConfinementPlan {
                writable_roots: vec![
                    canonical(cwd.path()),
                    canonical(extra.path()),
                    canonical(&cwd.path().join("build")),
                    canonical(Path::new("/tmp")),
                    canonical(tmpdir.path()),
                ],
                protected: vec![],
                network_access: true,
            }
        );
    }

    #[test]
    fn a_root_that_resolves_to_the_file_system_root_is_never_granted() {
        let cwd = tempfile::tempdir().unwrap();
        let links = tempfile::tempdir().unwrap();
        let to_root = links.path().join("to-root");
        symlink("/", &to_root).unwrap();
        let policy = workspace_write(&["/", "../../../../../..", to_root.to_str().unwrap()], true);
        let plan = plan_for(&policy, cwd.path(), None).unwrap();
        assert_eq!(plan.writable_roots, vec![canonical(cwd.path())]);
        // Nor the workspace itself.
        let plan = plan_for(&workspace_write(&[], true), Path::new("/"), None).unwrap();
        assert_eq!(plan.writable_roots, Vec::<PathBuf>::new());
    }

    #[test]
    fn tmp_exclusions_are_honoured_separately() {
        let cwd = tempfile::tempdir().unwrap();
        let tmpdir = tempfile::tempdir().unwrap();
        let tmpdir_os = Some(tmpdir.path().as_os_str());
        let policy =
            |exclude_tmpdir: bool, exclude_slash_tmp: bool| SandboxPolicy::WorkspaceWrite {
                writable_roots: None,
                network_access: None,
                exclude_tmpdir_env_var: Some(exclude_tmpdir),
                exclude_slash_tmp: Some(exclude_slash_tmp),
            };
        let roots = |policy: SandboxPolicy| {
            plan_for(&policy, cwd.path(), tmpdir_os)
                .unwrap()
                .writable_roots
        };

        assert_eq!(roots(policy(true, true)), vec![canonical(cwd.path())]);
        assert_eq!(
            roots(policy(false, true)),
            vec![canonical(cwd.path()), canonical(tmpdir.path())]
        );
        assert_eq!(
            roots(policy(true, false)),
            vec![canonical(cwd.path()), canonical(Path::new("/tmp"))]
        );
        // An empty or missing $TMPDIR adds nothing.
        let plan = plan_for(&policy(false, true), cwd.path(), Some(OsStr::new(""))).unwrap();
        assert_eq!(plan.writable_roots, vec![canonical(cwd.path())]);
        let plan = plan_for(&policy(false, true), cwd.path(), None).unwrap();
        assert_eq!(plan.writable_roots, vec![canonical(cwd.path())]);
    }

    #[test]
    fn git_directories_of_writable_roots_are_protected() {
        let cwd = tempfile::tempdir().unwrap();
        let extra = tempfile::tempdir().unwrap();
        fs::create_dir(cwd.path().join(".git")).unwrap();
        fs::create_dir(extra.path().join(".git")).unwrap();
        // A nested repository is not protected (Codex checks the top level only).
        fs::create_dir_all(cwd.path().join("vendor/lib/.git")).unwrap();
        let policy = workspace_write(&[extra.path().to_str().unwrap()], true);
        let plan = plan_for(&policy, cwd.path(), None).unwrap();
        assert_eq!(
            plan.protected,
            vec![
                canonical(&cwd.path().join(".git")),
                canonical(&extra.path().join(".git")),
            ]
        );
    }

    #[test]
    fn gitdir_files_protect_the_file_and_its_target_inside_writable_roots() {
        let cwd = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::create_dir_all(cwd.path().join("gitdirs/main")).unwrap();
        fs::write(cwd.path().join(".git"), "gitdir: gitdirs/main\n").unwrap();
        let plan = plan_for(&workspace_write(&[], true), cwd.path(), None).unwrap();
        assert_eq!(
            plan.protected,
            vec![
                canonical(&cwd.path().join(".git")),
                canonical(&cwd.path().join("gitdirs/main")),
            ]
        );

        // A target outside every writable root is read-only anyway, so it is not listed.
        let target = outside.path().join("worktrees/feature");
        fs::create_dir_all(&target).unwrap();
        fs::write(
            cwd.path().join(".git"),
            format!("gitdir: {}\n", target.display()),
        )
        .unwrap();
        let plan = plan_for(&workspace_write(&[], true), cwd.path(), None).unwrap();
        assert_eq!(plan.protected, vec![canonical(&cwd.path().join(".git"))]);

        // ... unless that directory is a writable root too.
        let policy = workspace_write(&[outside.path().to_str().unwrap()], true);
        let plan = plan_for(&policy, cwd.path(), None).unwrap();
        assert_eq!(
            plan.protected,
            vec![canonical(&cwd.path().join(".git")), canonical(&target)]
        );
    }

    #[test]
    fn a_root_without_git_is_granted_whole_in_the_fallback() {
        let cwd = tempfile::tempdir().unwrap();
        fs::create_dir(cwd.path().join("src")).unwrap();
        let plan = plan_for(&workspace_write(&[], true), cwd.path(), None).unwrap();
        assert_eq!(
            fallback_write_grants(&plan).unwrap(),
            vec![canonical(cwd.path())]
        );
    }

    #[test]
    fn the_fallback_grants_every_child_but_git_and_skips_symlinks() {
        let cwd = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = canonical(cwd.path());
        fs::create_dir(root.join(".git")).unwrap();
        fs::create_dir(root.join("src")).unwrap();
        fs::write(root.join("README.md"), "hello").unwrap();
        symlink(outside.path(), root.join("link")).unwrap();
        let plan = plan_for(&workspace_write(&[], true), cwd.path(), None).unwrap();
        assert_eq!(
            fallback_write_grants(&plan).unwrap(),
            vec![root.join("README.md"), root.join("src")]
        );
    }

    #[test]
    fn the_fallback_splits_an_enclosing_root_down_to_the_protected_path() {
        // /parent is a writable root (like /tmp) that contains the workspace /parent/ws, whose
        // .git must stay protected even though /parent would grant it.
        let parent = tempfile::tempdir().unwrap();
        let parent_root = canonical(parent.path());
        let workspace = parent_root.join("ws");
        fs::create_dir_all(workspace.join(".git")).unwrap();
        fs::create_dir(workspace.join("src")).unwrap();
        fs::create_dir(parent_root.join("other")).unwrap();
        let policy = workspace_write(&[parent_root.to_str().unwrap()], true);
        let plan = plan_for(&policy, &workspace, None).unwrap();
        assert_eq!(
            plan.writable_roots,
            vec![workspace.clone(), parent_root.clone()]
        );
        assert_eq!(plan.protected, vec![workspace.join(".git")]);
        assert_eq!(
            fallback_write_grants(&plan).unwrap(),
            vec![workspace.join("src"), parent_root.join("other")]
        );
    }
}
