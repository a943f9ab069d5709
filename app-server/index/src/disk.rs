//! The index's place on disk. The database holds the text of every indexed file, including
//! files that were readable by their owner only, so the index directory is private (0700) and
//! the database and SQLite's side files (`-wal`, `-shm`, `-journal`) are 0600; a directory or
//! file made by an earlier version with wider modes is narrowed. Inside the repository no
//! component of the index directory may be a symbolic link: a `.tandem` pointing elsewhere
//! would redirect the write, so it is refused and nothing is written.

use std::fs::{DirBuilder, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path};

use crate::IndexError;

/// The database file in the index directory.
pub const DATABASE: &str = "index.sqlite";

/// The files SQLite keeps beside the database; it creates them with the database's mode.
const SIDE_FILES: [&str; 3] = [
    "index.sqlite-wal",
    "index.sqlite-shm",
    "index.sqlite-journal",
];

/// Mode of the index directory and of every directory created for it.
const DIRECTORY_MODE: u32 = 0o700;
/// Mode of the database and its side files.
const FILE_MODE: u32 = 0o600;

/// Creates (or checks and narrows) the index directory of `repo_root`. A relative
/// `index_dir` setting puts it inside the repository, where each component must be a real
/// directory; an absolute one is the operator's own choice and is created as given.
pub fn prepare_index_dir(repo_root: &Path, index_dir: &Path) -> Result<(), IndexError> {
    let Ok(relative) = index_dir.strip_prefix(repo_root) else {
        DirBuilder::new()
            .recursive(true)
            .mode(DIRECTORY_MODE)
            .create(index_dir)
            .map_err(|error| {
                IndexError::Io(format!("cannot create {}: {error}", index_dir.display()))
            })?;
        return narrow(index_dir, DIRECTORY_MODE);
    };
    let mut current = repo_root.to_path_buf();
    for component in relative.components() {
        let Component::Normal(name) = component else {
            return Err(IndexError::InvalidInput(format!(
                "the index directory `{}` must stay inside the repository",
                index_dir.display()
            )));
        };
        current.push(name);
        private_directory(&current)?;
    }
    Ok(())
}

/// Checks the database and its side files in `index_dir` (none may be a symbolic link or
/// anything but a regular file; wider modes are narrowed to 0600) and creates the database
/// file, 0600, when it is missing, so that SQLite's side files inherit that mode.
pub fn prepare_database(index_dir: &Path) -> Result<(), IndexError> {
    let database = index_dir.join(DATABASE);
    if !private_file(&database)? {
        let created = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(FILE_MODE)
            .open(&database);
        match created {
            Ok(_) => {}
            // Another process created it meanwhile: check what is there now.
            Err(error) if error.kind() == ErrorKind::AlreadyExists => {
                private_file(&database)?;
            }
            Err(error) => {
                return Err(IndexError::Io(format!(
                    "cannot create {}: {error}",
                    database.display()
                )));
            }
        }
    }
    for side_file in SIDE_FILES {
        private_file(&index_dir.join(side_file))?;
    }
    Ok(())
}

/// Makes `path` a private directory: creates it (0700) or checks that it is a directory and
/// not a symbolic link, and narrows its mode.
fn private_directory(path: &Path) -> Result<(), IndexError> {
    match std::fs::symlink_metadata(path) {
        Ok(_) => {}
        Err(error) if error.kind() == ErrorKind::NotFound => {
            match DirBuilder::new().mode(DIRECTORY_MODE).create(path) {
                Ok(()) => return narrow(path, DIRECTORY_MODE),
                Err(error) if error.kind() == ErrorKind::AlreadyExists => {}
                Err(error) => {
                    return Err(IndexError::Io(format!(
                        "cannot create {}: {error}",
                        path.display()
                    )));
                }
            }
        }
        Err(error) => {
            return Err(IndexError::Io(format!(
                "cannot inspect {}: {error}",
                path.display()
            )));
        }
    }
    let metadata = std::fs::symlink_metadata(path)
        .map_err(|error| IndexError::Io(format!("cannot inspect {}: {error}", path.display())))?;
    if metadata.file_type().is_symlink() {
        return Err(symbolic_link(path));
    }
    if !metadata.is_dir() {
        return Err(IndexError::InvalidInput(format!(
            "cannot write the project index into `{}`: it is not a directory",
            path.display()
        )));
    }
    narrow(path, DIRECTORY_MODE)
}

/// Whether `path` exists; when it does, checks that it is a regular file and not a symbolic
/// link, and narrows its mode.
fn private_file(path: &Path) -> Result<bool, IndexError> {
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(false),
        Err(error) => {
            return Err(IndexError::Io(format!(
                "cannot inspect {}: {error}",
                path.display()
            )));
        }
    };
    if metadata.file_type().is_symlink() {
        return Err(symbolic_link(path));
    }
    if !metadata.is_file() {
        return Err(IndexError::InvalidInput(format!(
            "cannot write the project index to `{}`: it is not a regular file",
            path.display()
        )));
    }
    narrow(path, FILE_MODE)?;
    Ok(true)
}

/// Removes the group and other bits of `path`'s mode when it has any (the mode is set to
/// `mode`).
fn narrow(path: &Path, mode: u32) -> Result<(), IndexError> {
    let metadata = std::fs::metadata(path)
        .map_err(|error| IndexError::Io(format!("cannot inspect {}: {error}", path.display())))?;
    if metadata.permissions().mode() & 0o077 == 0 {
        return Ok(());
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(|error| {
        IndexError::Io(format!(
            "cannot make {} private (mode {mode:o}): {error}",
            path.display()
        ))
    })
}

fn symbolic_link(path: &Path) -> IndexError {
    IndexError::InvalidInput(format!(
        "refusing to write the project index through `{}`: it is a symbolic link (remove it, or set `query_project_index.index_dir`)",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    }

    #[test]
    fn the_directory_and_the_database_files_are_private_while_the_database_is_open() {
        let repo = tempfile::tempdir().unwrap();
        let index_dir = repo.path().join(".tandem/repo_hybrid_index");
        prepare_index_dir(repo.path(), &index_dir).unwrap();
        let mut store = crate::store::Store::open(&index_dir).unwrap();
        store
            .apply(
                &["gone.rs".to_string()],
                &[],
                &crate::stop::StopFlag::never(),
            )
            .unwrap();
        assert_eq!(mode(&repo.path().join(".tandem")), 0o700);
        assert_eq!(mode(&index_dir), 0o700);
        // The connection is open, so SQLite's side files exist.
        for name in [DATABASE, "index.sqlite-wal", "index.sqlite-shm"] {
            assert_eq!(mode(&index_dir.join(name)), 0o600, "{name}");
        }
        drop(store);
    }

    #[test]
    fn wider_modes_left_by_an_earlier_version_are_narrowed() {
        let repo = tempfile::tempdir().unwrap();
        let index_dir = repo.path().join(".tandem/repo_hybrid_index");
        std::fs::create_dir_all(&index_dir).unwrap();
        for directory in [repo.path().join(".tandem"), index_dir.clone()] {
            std::fs::set_permissions(&directory, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::write(index_dir.join(DATABASE), b"").unwrap();
        std::fs::set_permissions(
            index_dir.join(DATABASE),
            std::fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        prepare_index_dir(repo.path(), &index_dir).unwrap();
        prepare_database(&index_dir).unwrap();
        assert_eq!(mode(&repo.path().join(".tandem")), 0o700);
        assert_eq!(mode(&index_dir), 0o700);
        assert_eq!(mode(&index_dir.join(DATABASE)), 0o600);
    }

    #[test]
    fn symbolic_links_are_refused_and_their_targets_untouched() {
        let repo = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), repo.path().join(".tandem")).unwrap();
        let index_dir = repo.path().join(".tandem/repo_hybrid_index");
        let error = prepare_index_dir(repo.path(), &index_dir).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);

        let repo = tempfile::tempdir().unwrap();
        let index_dir = repo.path().join(".tandem/repo_hybrid_index");
        prepare_index_dir(repo.path(), &index_dir).unwrap();
        let target = elsewhere.path().join("planted");
        std::os::unix::fs::symlink(&target, index_dir.join("index.sqlite-wal")).unwrap();
        let error = prepare_database(&index_dir).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert!(!target.exists());
    }
}
