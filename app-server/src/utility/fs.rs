//! The file operations behind `fs/*`, on paths already checked against the connection's file
//! roots (`tandem_core::file_access`). Every function blocks: the processor runs them on the
//! blocking pool.
//!
//! Errors keep the reference's split: a request that cannot mean anything (a directory read as
//! a file, bad base64, a directory copied without `recursive`, a file over the size cap) is
//! [`FsError::Invalid`]; what the file system refuses is [`FsError::Io`], with its message.

use std::io::Read;
use std::path::Path;
use std::time::SystemTime;

use app_server_protocol::fs::{FsGetMetadataResponse, FsReadDirectoryEntry};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// The largest file `fs/readFile` returns and `fs/writeFile` writes: 32 MiB (about 43 MiB of
/// base64 on the wire, within `app_server.max_line_bytes`' default for a write).
pub const FS_MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// The most entries `fs/readDirectory` lists (a larger directory is refused, not cut short).
pub const FS_MAX_DIRECTORY_ENTRIES: usize = 100_000;

/// The most entries `fs/copy` creates for one directory tree.
pub const FS_MAX_COPY_ENTRIES: usize = 100_000;

/// Why a file operation failed.
#[derive(Debug, thiserror::Error)]
pub enum FsError {
    /// The request is wrong whatever the file system holds (`-32600`).
    #[error("{0}")]
    Invalid(String),
    /// The file system refused (`-32603`, with the operating system's message).
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// `fs/readFile`: a regular file's bytes, base64-encoded.
pub fn read_file(path: &Path, shown: &str) -> Result<String, FsError> {
    let metadata = std::fs::metadata(path)?;
    if !metadata.is_file() {
        return Err(FsError::Invalid(format!("path `{shown}` is not a file")));
    }
    if metadata.len() > FS_MAX_FILE_BYTES {
        return Err(too_large(shown, metadata.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    // The file may grow between the check and the read: never read past the cap.
    std::fs::File::open(path)?
        .take(FS_MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > FS_MAX_FILE_BYTES {
        return Err(too_large(shown, bytes.len() as u64));
    }
    Ok(STANDARD.encode(bytes))
}

/// Decodes `fs/writeFile`'s `dataBase64`, refusing bad base64 and contents over the cap.
pub fn decode_contents(data_base64: &str) -> Result<Vec<u8>, FsError> {
    // Base64 holds 3 bytes per 4 characters: a longer text cannot fit under the cap.
    if (data_base64.len() as u64) / 4 * 3 > FS_MAX_FILE_BYTES + 3 {
        return Err(FsError::Invalid(format!(
            "fs/writeFile contents exceed the limit of {FS_MAX_FILE_BYTES} bytes"
        )));
    }
    STANDARD
        .decode(data_base64)
        .map_err(|error| {
            FsError::Invalid(format!(
                "fs/writeFile requires valid base64 dataBase64: {error}"
            ))
        })
        .and_then(|bytes| {
            if bytes.len() as u64 > FS_MAX_FILE_BYTES {
                Err(FsError::Invalid(format!(
                    "fs/writeFile contents exceed the limit of {FS_MAX_FILE_BYTES} bytes"
                )))
            } else {
                Ok(bytes)
            }
        })
}

/// `fs/writeFile`: creates or replaces a file (its directory must exist).
pub fn write_file(path: &Path, shown: &str, bytes: &[u8]) -> Result<(), FsError> {
    if path.is_dir() {
        return Err(FsError::Invalid(format!("path `{shown}` is a directory")));
    }
    std::fs::write(path, bytes)?;
    Ok(())
}

/// `fs/createDirectory`.
pub fn create_directory(path: &Path, recursive: bool) -> Result<(), FsError> {
    if recursive {
        std::fs::create_dir_all(path)?;
    } else {
        std::fs::create_dir(path)?;
    }
    Ok(())
}

/// `fs/getMetadata` of `entry` (a symbolic link not followed for `isSymlink`, followed for the
/// rest).
pub fn metadata(entry: &Path) -> Result<FsGetMetadataResponse, FsError> {
    let link = std::fs::symlink_metadata(entry)?;
    let target = if link.file_type().is_symlink() {
        std::fs::metadata(entry).unwrap_or_else(|_| link.clone())
    } else {
        link.clone()
    };
    Ok(FsGetMetadataResponse {
        is_directory: target.is_dir(),
        is_file: target.is_file(),
        is_symlink: link.file_type().is_symlink(),
        created_at_ms: unix_ms(target.created()),
        modified_at_ms: unix_ms(target.modified()),
    })
}

/// `fs/readDirectory`: the direct children, in the order the file system lists them.
pub fn read_directory(path: &Path, shown: &str) -> Result<Vec<FsReadDirectoryEntry>, FsError> {
    read_directory_capped(path, shown, FS_MAX_DIRECTORY_ENTRIES)
}

fn read_directory_capped(
    path: &Path,
    shown: &str,
    cap: usize,
) -> Result<Vec<FsReadDirectoryEntry>, FsError> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(path)? {
        if entries.len() == cap {
            return Err(FsError::Invalid(format!(
                "directory `{shown}` has more than {cap} entries, the limit of fs/readDirectory"
            )));
        }
        let entry = entry?;
        let file_type = entry.file_type()?;
        // A symbolic link is described by what it leads to, as the reference does.
        let (is_directory, is_file) = if file_type.is_symlink() {
            std::fs::metadata(entry.path())
                .map(|target| (target.is_dir(), target.is_file()))
                .unwrap_or((false, false))
        } else {
            (file_type.is_dir(), file_type.is_file())
        };
        entries.push(FsReadDirectoryEntry {
            file_name: entry.file_name().to_string_lossy().into_owned(),
            is_directory,
            is_file,
        });
    }
    Ok(entries)
}

/// `fs/remove` of `entry` (a symbolic link is removed, not its target).
pub fn remove(entry: &Path, recursive: bool, force: bool) -> Result<(), FsError> {
    let metadata = match std::fs::symlink_metadata(entry) {
        Ok(metadata) => metadata,
        Err(error) if force && error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(error.into()),
    };
    if metadata.is_dir() {
        if recursive {
            std::fs::remove_dir_all(entry)?;
        } else {
            std::fs::remove_dir(entry)?;
        }
    } else {
        std::fs::remove_file(entry)?;
    }
    Ok(())
}

/// `fs/copy`: a file, or with `recursive` a directory tree (symbolic links inside it are
/// copied as links, never followed).
pub fn copy(source: &Path, destination: &Path, recursive: bool) -> Result<(), FsError> {
    let metadata = std::fs::metadata(source)?;
    if !metadata.is_dir() {
        std::fs::copy(source, destination)?;
        return Ok(());
    }
    if !recursive {
        return Err(FsError::Invalid(
            "fs/copy requires recursive: true when sourcePath is a directory".to_string(),
        ));
    }
    if destination.starts_with(source) {
        return Err(FsError::Invalid(
            "fs/copy cannot copy a directory into itself".to_string(),
        ));
    }
    let mut budget = FS_MAX_COPY_ENTRIES;
    copy_tree(source, destination, &mut budget)
}

fn copy_tree(source: &Path, destination: &Path, budget: &mut usize) -> Result<(), FsError> {
    std::fs::create_dir(destination)?;
    for entry in std::fs::read_dir(source)? {
        let entry = entry?;
        *budget = budget.checked_sub(1).ok_or_else(|| {
            FsError::Invalid(format!(
                "fs/copy stops at {FS_MAX_COPY_ENTRIES} entries; the tree is larger"
            ))
        })?;
        let from = entry.path();
        let to = destination.join(entry.file_name());
        let file_type = entry.file_type()?;
        if file_type.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&from)?, &to)?;
        } else if file_type.is_dir() {
            copy_tree(&from, &to, budget)?;
        } else {
            std::fs::copy(&from, &to)?;
        }
    }
    Ok(())
}

fn too_large(shown: &str, bytes: u64) -> FsError {
    FsError::Invalid(format!(
        "file `{shown}` has {bytes} bytes, over the limit of {FS_MAX_FILE_BYTES} for fs/readFile"
    ))
}

fn unix_ms(time: std::io::Result<SystemTime>) -> i64 {
    time.ok()
        .and_then(|time| time.duration_since(SystemTime::UNIX_EPOCH).ok())
        .map_or(0, |since| {
            i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_over_the_cap_is_refused_not_cut_short() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a", "b", "c"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        assert_eq!(read_directory_capped(dir.path(), "d", 3).unwrap().len(), 3);
        match read_directory_capped(dir.path(), "d", 2) {
            Err(FsError::Invalid(message)) => assert_eq!(
                message,
                "directory `d` has more than 2 entries, the limit of fs/readDirectory"
            ),
            other => panic!("{other:?}"),
        }
    }
}
