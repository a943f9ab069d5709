//! Project instructions: discovery and loading of `AGENTS.md` files.
//!
//! A thread starts with the files that apply to its cwd: `$TANDEM_HOME/AGENTS.md` (global),
//! then one file per directory from the repository root (the nearest ancestor with a `.git`
//! entry, else the cwd itself) down to the cwd, nearer files last so that they take
//! precedence. In each directory `AGENTS.override.md` replaces `AGENTS.md`. The total is
//! capped at `project_doc_max_bytes`; what the cap cuts is logged and becomes a warning that
//! the thread's first turn emits (`warning`, and `codex/event` `warning` over MCP).
//!
//! The text reaches the model as one user-role message before the first turn, in the
//! convention Codex-tuned models know: `# AGENTS.md instructions for <cwd>` followed by the
//! text between `<INSTRUCTIONS>` and `</INSTRUCTIONS>`. Discovery reads files: call it from a
//! blocking thread.

use std::io;
use std::path::{Path, PathBuf};

use crate::model::{ContentItem, ResponseItem};

/// The file read in each directory.
pub const AGENTS_FILE: &str = "AGENTS.md";
/// The file that replaces [`AGENTS_FILE`] in its directory.
pub const OVERRIDE_FILE: &str = "AGENTS.override.md";

/// The instructions loaded for one cwd.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProjectDocs {
    /// The files that contributed text, in the order they were read (absolute paths).
    pub sources: Vec<String>,
    /// Their text, joined by blank lines, after the cap; empty when nothing was found.
    pub text: String,
    /// What the cap cut, one sentence per file, for the user.
    pub warnings: Vec<String>,
}

impl ProjectDocs {
    /// The user-role message carrying the instructions for `cwd`, if there are any.
    pub fn message(&self, cwd: &str) -> Option<ResponseItem> {
        if self.text.trim().is_empty() {
            return None;
        }
        Some(ResponseItem::Message {
            id: None,
            role: "user".into(),
            content: vec![ContentItem::InputText {
                text: format!(
                    "# AGENTS.md instructions for {cwd}\n\n<INSTRUCTIONS>\n{}\n</INSTRUCTIONS>",
                    self.text.trim_end()
                ),
            }],
        })
    }
}

/// Finds and loads the instructions for `cwd`. `home` is `TANDEM_HOME`; `max_bytes` caps the
/// total (0 turns project instructions off). Unreadable files are logged and skipped.
pub fn load(home: &Path, cwd: &Path, max_bytes: usize) -> ProjectDocs {
    let mut docs = ProjectDocs::default();
    if max_bytes == 0 {
        return docs;
    }
    let mut remaining = max_bytes;
    let mut directories = vec![home.to_path_buf()];
    // A cwd inside `TANDEM_HOME` does not read the global file twice.
    directories.extend(
        project_directories(cwd)
            .into_iter()
            .filter(|directory| directory != home),
    );
    for directory in directories {
        let Some((path, contents)) = read_directory_file(&directory) else {
            continue;
        };
        if contents.trim().is_empty() {
            continue;
        }
        if remaining == 0 {
            tracing::warn!(
                path = %path.display(),
                bytes = contents.len(),
                max_bytes,
                "project_doc_max_bytes reached: AGENTS.md file left out"
            );
            docs.warnings.push(format!(
                "{} was left out of the project instructions: project_doc_max_bytes ({max_bytes} bytes) was already reached",
                path.display()
            ));
            continue;
        }
        let kept = if contents.len() > remaining {
            let cut = crate::text::floor_char_boundary(&contents, remaining);
            tracing::warn!(
                path = %path.display(),
                kept_bytes = cut,
                cut_bytes = contents.len() - cut,
                max_bytes,
                "project_doc_max_bytes reached: AGENTS.md file truncated"
            );
            docs.warnings.push(format!(
                "{} was truncated to {cut} of its {} bytes: the project instructions are capped at project_doc_max_bytes ({max_bytes} bytes)",
                path.display(),
                contents.len()
            ));
            &contents[..cut]
        } else {
            contents.as_str()
        };
        remaining -= kept.len();
        if !docs.text.is_empty() {
            docs.text.push_str("\n\n");
        }
        docs.text.push_str(kept);
        docs.sources.push(path.to_string_lossy().into_owned());
    }
    docs
}

/// [`load`] on the blocking pool. A failed task (it panicked) loads nothing.
pub async fn load_async(home: PathBuf, cwd: String, max_bytes: usize) -> ProjectDocs {
    tokio::task::spawn_blocking(move || {
        let started = std::time::Instant::now();
        let docs = load(&home, Path::new(&cwd), max_bytes);
        tracing::debug!(
            %cwd,
            files = docs.sources.len(),
            bytes = docs.text.len(),
            elapsed_us = started.elapsed().as_micros(),
            "AGENTS.md files loaded"
        );
        docs
    })
    .await
    .unwrap_or_else(|error| {
        tracing::error!(%error, "AGENTS.md discovery failed");
        ProjectDocs::default()
    })
}

/// The directories from the repository root down to `cwd` (just `cwd` outside a repository).
pub fn project_directories(cwd: &Path) -> Vec<PathBuf> {
    let mut chain: Vec<PathBuf> = Vec::new();
    for directory in cwd.ancestors() {
        chain.push(directory.to_path_buf());
        if directory.join(".git").symlink_metadata().is_ok() {
            chain.reverse();
            return chain;
        }
    }
    vec![cwd.to_path_buf()]
}

/// The instructions file of one directory: `AGENTS.override.md` if present, else `AGENTS.md`.
fn read_directory_file(directory: &Path) -> Option<(PathBuf, String)> {
    for name in [OVERRIDE_FILE, AGENTS_FILE] {
        let path = directory.join(name);
        match std::fs::read(&path) {
            Ok(bytes) => {
                let contents = String::from_utf8_lossy(&bytes).into_owned();
                return Some((path, contents));
            }
            Err(error) if is_absent(&error) => {}
            Err(error) => {
                tracing::warn!(path = %path.display(), %error, "cannot read AGENTS.md file");
                return None;
            }
        }
    }
    None
}

/// Whether a read failed because there is no such file (a directory of that name counts too).
fn is_absent(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory | io::ErrorKind::IsADirectory
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use pretty_assertions::assert_eq;

    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn global_then_root_down_to_cwd_with_overrides() {
        let temp = tempfile::tempdir().unwrap();
        let home = temp.path().join("home");
        let repo = temp.path().join("repo");
        let cwd = repo.join("a/b");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        write(&home.join(AGENTS_FILE), "global");
        write(&temp.path().join(AGENTS_FILE), "outside the repository");
        write(&repo.join(AGENTS_FILE), "root");
        write(&repo.join("a").join(AGENTS_FILE), "replaced");
        write(&repo.join("a").join(OVERRIDE_FILE), "override of a");
        write(&cwd.join(AGENTS_FILE), "nearest");

        let docs = load(&home, &cwd, crate::config::DEFAULT_PROJECT_DOC_MAX_BYTES);
        assert_eq!(docs.text, "global\n\nroot\n\noverride of a\n\nnearest");
        let expected: Vec<String> = [
            home.join(AGENTS_FILE),
            repo.join(AGENTS_FILE),
            repo.join("a").join(OVERRIDE_FILE),
            cwd.join(AGENTS_FILE),
        ]
        .iter()
        .map(|path| path.to_string_lossy().into_owned())
        .collect();
        assert_eq!(docs.sources, expected);
        let Some(ResponseItem::Message { role, content, .. }) = docs.message("/w") else {
            panic!("no message");
        };
        assert_eq!(role, "user");
        assert_eq!(
            content,
            vec![ContentItem::InputText {
                text: "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nglobal\n\nroot\n\noverride of a\n\nnearest\n</INSTRUCTIONS>".into()
            }]
        );
    }

    #[test]
    fn outside_a_repository_only_the_cwd_counts() {
        let temp = tempfile::tempdir().unwrap();
        let cwd = temp.path().join("x/y");
        write(&temp.path().join("x").join(AGENTS_FILE), "parent");
        write(&cwd.join(AGENTS_FILE), "cwd");
        let docs = load(
            &temp.path().join("home"),
            &cwd,
            crate::config::DEFAULT_PROJECT_DOC_MAX_BYTES,
        );
        assert_eq!(docs.text, "cwd");
    }

    #[test]
    fn the_cap_truncates_and_then_drops_files() {
        let temp = tempfile::tempdir().unwrap();
        let repo = temp.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        write(&repo.join(AGENTS_FILE), "0123456789");
        write(&repo.join("sub").join(AGENTS_FILE), "abcdefghij");
        write(&repo.join("sub/deeper").join(AGENTS_FILE), "never");
        let docs = load(&temp.path().join("home"), &repo.join("sub/deeper"), 15);
        assert_eq!(docs.text, "0123456789\n\nabcde");
        assert_eq!(docs.sources.len(), 2);
        assert_eq!(
            load(&temp.path().join("home"), &repo, 0),
            ProjectDocs::default()
        );
        assert_eq!(ProjectDocs::default().message("/"), None);
    }
}
