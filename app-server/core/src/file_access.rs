//! Where a client's `fs/*` requests may reach: the connection's file roots under the operator's
//! ceiling, and never `$TANDEM_HOME`.
//!
//! A path is judged by where it really leads: the part that exists is resolved by the file
//! system (symbolic links followed), the rest lexically. The file roots are the server's
//! working directory, the working directories of the caller's loaded threads and
//! `clients.fs_roots`; under a `danger-full-access` ceiling every path but `$TANDEM_HOME` is
//! reachable. Under a `read-only` ceiling nothing is written.
//!
//! Resolution touches the file system, so every function here blocks: call it from the
//! blocking pool.

use std::path::{Component, Path, PathBuf};

use app_server_protocol::policy::SandboxMode;

use crate::access::ClientPolicy;

/// What a request does with a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileUse {
    /// Reads it (or lists it, or watches it).
    Read,
    /// Creates, writes or removes it.
    Write,
}

/// Why a path is out of reach.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FileAccessError {
    /// The path is relative.
    #[error("path `{0}` is not absolute")]
    NotAbsolute(String),
    /// The path is `$TANDEM_HOME`, inside it, or (for a removal or a copied tree) contains it.
    #[error(
        "path `{0}` reaches the server's home ($TANDEM_HOME), which the fs methods never read or write"
    )]
    Home(String),
    /// The path is outside every file root.
    #[error(
        "path `{0}` is outside this connection's file roots (the server's working directory, the working directories of your loaded threads, and clients.fs_roots)"
    )]
    OutsideRoots(String),
    /// The ceiling allows no writes.
    #[error(
        "writing `{0}` is refused: this server lets clients write nothing (clients.max_sandbox = \"read-only\")"
    )]
    ReadOnly(String),
}

/// The reach of one connection's `fs/*` requests.
#[derive(Clone, Debug)]
pub struct FileRoots {
    /// Whether every path but the home is reachable (a `danger-full-access` ceiling).
    unrestricted: bool,
    /// Whether anything may be written (a ceiling above `read-only`).
    writable: bool,
    /// The roots, resolved.
    roots: Vec<PathBuf>,
    /// `$TANDEM_HOME`, resolved.
    home: PathBuf,
}

impl FileRoots {
    /// The reach under `policy` with these roots (absolute; missing ones are skipped) and
    /// `home`.
    pub fn new(policy: &ClientPolicy, roots: &[PathBuf], home: &Path) -> FileRoots {
        let ceiling = policy.max_sandbox();
        let mut resolved: Vec<PathBuf> = roots
            .iter()
            .filter(|root| root.is_absolute())
            .filter_map(|root| std::fs::canonicalize(root).ok())
            .collect();
        resolved.sort();
        resolved.dedup();
        FileRoots {
            unrestricted: ceiling == SandboxMode::DangerFullAccess,
            writable: ceiling != SandboxMode::ReadOnly,
            roots: resolved,
            home: resolve(home),
        }
    }

    /// Where `path` (as the client wrote it) leads, if the connection may `use_` it.
    pub fn check(&self, path: &str, use_: FileUse) -> Result<PathBuf, FileAccessError> {
        let resolved = resolve(absolute(path)?);
        self.judge(path, resolved, use_, false)
    }

    /// [`FileRoots::check`] for a path whose whole tree is used (copied from): it must not
    /// contain the home either.
    pub fn check_tree(&self, path: &str, use_: FileUse) -> Result<PathBuf, FileAccessError> {
        let resolved = resolve(absolute(path)?);
        self.judge(path, resolved, use_, true)
    }

    /// The entry `path` names itself, a symbolic link not followed (its directory resolved),
    /// if the connection may `use_` it with its whole tree (a removal, or the link's own
    /// metadata).
    pub fn check_entry(&self, path: &str, use_: FileUse) -> Result<PathBuf, FileAccessError> {
        let written = absolute(path)?;
        let entry = match (written.parent(), written.file_name()) {
            (Some(parent), Some(name)) => resolve(parent).join(name),
            _ => resolve(written),
        };
        self.judge(path, entry, use_, true)
    }

    fn judge(
        &self,
        written: &str,
        resolved: PathBuf,
        use_: FileUse,
        tree: bool,
    ) -> Result<PathBuf, FileAccessError> {
        if resolved.starts_with(&self.home) || (tree && self.home.starts_with(&resolved)) {
            return Err(FileAccessError::Home(written.to_string()));
        }
        if use_ == FileUse::Write && !self.writable {
            return Err(FileAccessError::ReadOnly(written.to_string()));
        }
        if !self.unrestricted && !self.roots.iter().any(|root| resolved.starts_with(root)) {
            return Err(FileAccessError::OutsideRoots(written.to_string()));
        }
        Ok(resolved)
    }

    /// The resolved roots (for messages and tests).
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }
}

/// `path` as a path, when it is absolute.
fn absolute(path: &str) -> Result<&Path, FileAccessError> {
    let written = Path::new(path);
    if written.is_absolute() {
        Ok(written)
    } else {
        Err(FileAccessError::NotAbsolute(path.to_string()))
    }
}

/// `path` (absolute) resolved: its longest existing ancestor through the file system, the
/// rest lexically (`.` dropped, `..` cancelling the component before it). A symbolic link at
/// the end is followed when its target exists.
pub fn resolve(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(&existing) {
            let mut resolved = real;
            for component in rest.iter().rev() {
                match Path::new(component).components().next() {
                    Some(Component::ParentDir) => {
                        resolved.pop();
                    }
                    Some(Component::CurDir) | None => {}
                    Some(_) => resolved.push(component),
                }
            }
            return resolved;
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            // `..` and `.` at the end have no file name: resolve them lexically first.
            _ => {
                let lexical = crate::paths::resolve_lexically(Path::new("/"), &existing);
                if lexical == existing {
                    return existing;
                }
                existing = lexical;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::FrontEnd;
    use crate::config::Config;

    fn roots_under(ceiling: SandboxMode, root: &Path, home: &Path) -> FileRoots {
        let mut config = Config::load(Some(home.to_path_buf()), &[]).expect("config");
        config.clients.max_sandbox = Some(ceiling);
        let policy = ClientPolicy::resolve(&config, FrontEnd::AppServerStdio);
        FileRoots::new(&policy, &[root.to_path_buf()], home)
    }

    #[test]
    fn a_symbolic_link_out_of_the_roots_is_judged_by_its_target() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("escape")).unwrap();
        std::os::unix::fs::symlink(home.path(), root.path().join("home")).unwrap();
        let reach = roots_under(SandboxMode::WorkspaceWrite, root.path(), home.path());
        let through_link = root.path().join("escape/secret");
        assert!(matches!(
            reach.check(through_link.to_str().unwrap(), FileUse::Read),
            Err(FileAccessError::OutsideRoots(_))
        ));
        let into_home = root.path().join("home/auth.json");
        assert!(matches!(
            reach.check(into_home.to_str().unwrap(), FileUse::Read),
            Err(FileAccessError::Home(_))
        ));
        let dotted = format!("{}/a/../../x", root.path().display());
        assert!(reach.check(&dotted, FileUse::Read).is_err());
        let inside = root.path().join("new/dir/file");
        assert_eq!(
            reach.check(inside.to_str().unwrap(), FileUse::Write),
            Ok(std::fs::canonicalize(root.path())
                .unwrap()
                .join("new/dir/file"))
        );
    }

    #[test]
    fn the_ceiling_decides_what_is_reachable_and_writable() {
        let root = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let outside = elsewhere.path().join("f");
        let outside = outside.to_str().unwrap();
        let full = roots_under(SandboxMode::DangerFullAccess, root.path(), home.path());
        assert!(full.check(outside, FileUse::Write).is_ok());
        let auth = home.path().join("auth.json");
        assert!(matches!(
            full.check(auth.to_str().unwrap(), FileUse::Read),
            Err(FileAccessError::Home(_))
        ));
        let parent_of_home = home.path().parent().unwrap().to_str().unwrap().to_string();
        assert!(full.check(&parent_of_home, FileUse::Read).is_ok());
        assert!(matches!(
            full.check_entry(&parent_of_home, FileUse::Write),
            Err(FileAccessError::Home(_))
        ));
        assert!(matches!(
            full.check_tree(&parent_of_home, FileUse::Read),
            Err(FileAccessError::Home(_))
        ));
        // A link to the home is removed as a link: reaching it is not reaching the home.
        let link = root.path().join("to-home");
        std::os::unix::fs::symlink(home.path(), &link).unwrap();
        let link = link.to_str().unwrap();
        assert!(full.check_entry(link, FileUse::Write).is_ok());
        assert!(matches!(
            full.check(link, FileUse::Read),
            Err(FileAccessError::Home(_))
        ));
        let read_only = roots_under(SandboxMode::ReadOnly, root.path(), home.path());
        let inside = root.path().join("f");
        let inside = inside.to_str().unwrap();
        assert!(read_only.check(inside, FileUse::Read).is_ok());
        assert!(matches!(
            read_only.check(inside, FileUse::Write),
            Err(FileAccessError::ReadOnly(_))
        ));
        assert!(matches!(
            full.check("relative/path", FileUse::Read),
            Err(FileAccessError::NotAbsolute(_))
        ));
    }
}
