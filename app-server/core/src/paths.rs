//! Path arithmetic without the file system: the paths a client or the model names may not exist
//! yet, and symlinks are the sandbox's business, not ours.

use std::path::{Component, Path, PathBuf};

/// `path` joined to `base` (an absolute `path` is kept), with `.` and `..` removed lexically:
/// `..` cancels the component before it, and `/..` is `/`.
pub fn resolve_lexically(base: &Path, path: &Path) -> PathBuf {
    let joined = base.join(path);
    let mut resolved = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if resolved.file_name().is_some() {
                    resolved.pop();
                } else if !resolved.has_root() {
                    // Above a relative start there is nothing to cancel out.
                    resolved.push(component);
                }
            }
            other => resolved.push(other),
        }
    }
    resolved
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dots_are_removed_without_leaving_the_root() {
        let base = Path::new("/work/project");
        for (path, expected) in [
            ("src/./a.rs", "/work/project/src/a.rs"),
            ("../other/x", "/work/other/x"),
            ("/etc/../tmp/y", "/tmp/y"),
            ("../../../..", "/"),
            ("", "/work/project"),
        ] {
            assert_eq!(
                resolve_lexically(base, Path::new(path)),
                PathBuf::from(expected),
                "{path}"
            );
        }
        assert_eq!(
            resolve_lexically(Path::new("rel"), Path::new("../../x")),
            PathBuf::from("../x")
        );
    }
}
