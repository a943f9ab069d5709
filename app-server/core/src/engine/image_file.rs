//! Image files named from outside the server: a client's `localImage` input and the model's
//! `view_image` call, read into `data:` URLs for the model.
//!
//! The path is not trusted, so a file is read on the blocking pool (never on an async worker,
//! never under a lock) and only when it is a regular file of at most [`MAX_IMAGE_BYTES`]
//! holding a PNG, JPEG, GIF or WebP image: `/dev/zero` would be read forever and opening a
//! FIFO would block until a writer appears. The type is checked with `stat` before opening
//! (opening a device can act on it), and again with `fstat` on a descriptor opened with
//! `O_NONBLOCK`, so a path replaced by a FIFO in between neither blocks nor gets read.

use std::collections::HashMap;
use std::fs::{File, Metadata, OpenOptions};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use app_server_protocol::item::UserInput;
use base64::Engine as _;

/// Largest image sent to the model.
pub(crate) const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;

/// Why an image file cannot be sent to the model; each message names the path.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ImageFileError {
    /// The file cannot be inspected, opened or read.
    #[error("cannot read {path}: {error}")]
    Unreadable { path: String, error: std::io::Error },
    /// A directory, device, FIFO or socket.
    #[error("{path} is not a regular file")]
    NotRegularFile { path: String },
    /// Over [`MAX_IMAGE_BYTES`].
    #[error("{path} is too large ({size} bytes; the limit is {MAX_IMAGE_BYTES})")]
    TooLarge { path: String, size: u64 },
    /// Not one of the image types every provider takes.
    #[error("{path} is not a PNG, JPEG, GIF or WebP image")]
    NotAnImage { path: String },
}

/// The local images of one user input, read before the input is recorded, by path.
#[derive(Debug, Default)]
pub(crate) struct LocalImages {
    by_path: HashMap<String, Result<String, ImageFileError>>,
}

impl LocalImages {
    /// Reads every `localImage` of `inputs` (paths as given, relative ones against the
    /// server's working directory) in one task on the blocking pool.
    pub(crate) async fn read(inputs: &[UserInput]) -> Self {
        let mut paths: Vec<String> = inputs
            .iter()
            .filter_map(|input| match input {
                UserInput::LocalImage { path, .. } => Some(path.clone()),
                _ => None,
            })
            .collect();
        if paths.is_empty() {
            return Self::default();
        }
        paths.sort();
        paths.dedup();
        let reading = tokio::task::spawn_blocking(move || {
            paths
                .into_iter()
                .map(|path| {
                    let url = read_data_url(Path::new(&path));
                    (path, url)
                })
                .collect::<HashMap<_, _>>()
        });
        match reading.await {
            Ok(by_path) => Self { by_path },
            // Only a panic or a runtime shutdown gets here; every image then counts as
            // unreadable (`data_url` answers `None`).
            Err(error) => {
                tracing::error!(%error, "reading local images failed");
                Self::default()
            }
        }
    }

    /// The `data:` URL of the image at `path`, or why it cannot be sent; `None` when it was
    /// not read.
    pub(crate) fn data_url(&self, path: &str) -> Option<&Result<String, ImageFileError>> {
        self.by_path.get(path)
    }

    /// Why the first image of `inputs` that cannot be sent is refused, if any.
    pub(crate) fn first_refusal(&self, inputs: &[UserInput]) -> Option<String> {
        inputs.iter().find_map(|input| match input {
            UserInput::LocalImage { path, .. } => match self.data_url(path) {
                Some(Ok(_)) => None,
                Some(Err(error)) => Some(error.to_string()),
                None => Some(format!("{path} could not be read")),
            },
            _ => None,
        })
    }
}

/// The image at `path` as a `data:` URL, read on the blocking pool.
pub(crate) async fn image_data_url(path: PathBuf) -> Result<String, ImageFileError> {
    let shown = path.display().to_string();
    match tokio::task::spawn_blocking(move || read_data_url(&path)).await {
        Ok(result) => result,
        Err(error) => Err(ImageFileError::Unreadable {
            path: shown,
            error: std::io::Error::other(error.to_string()),
        }),
    }
}

/// Reads the image at `path` (blocking; see the module documentation).
fn read_data_url(path: &Path) -> Result<String, ImageFileError> {
    let unreadable = |error| ImageFileError::Unreadable {
        path: path.display().to_string(),
        error,
    };
    let metadata = std::fs::metadata(path).map_err(unreadable)?;
    check_file(path, &metadata)?;
    let file: File = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(unreadable)?;
    // What counts is the file that is open: the path may name another one by now.
    let metadata = file.metadata().map_err(unreadable)?;
    check_file(path, &metadata)?;
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    // The file may have grown since `fstat`: never read more than one byte past the limit.
    file.take(MAX_IMAGE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    let size = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    if size > MAX_IMAGE_BYTES {
        return Err(ImageFileError::TooLarge {
            path: path.display().to_string(),
            size,
        });
    }
    let mime = image_mime(&bytes).ok_or_else(|| ImageFileError::NotAnImage {
        path: path.display().to_string(),
    })?;
    let encoded = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Ok(format!("data:{mime};base64,{encoded}"))
}

/// Refuses anything but a regular file within the size limit.
fn check_file(path: &Path, metadata: &Metadata) -> Result<(), ImageFileError> {
    if !metadata.is_file() {
        return Err(ImageFileError::NotRegularFile {
            path: path.display().to_string(),
        });
    }
    if metadata.len() > MAX_IMAGE_BYTES {
        return Err(ImageFileError::TooLarge {
            path: path.display().to_string(),
            size: metadata.len(),
        });
    }
    Ok(())
}

/// The image type from the file's magic bytes.
fn image_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("image/jpeg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";

    fn refusal(path: &Path) -> String {
        match read_data_url(path) {
            Ok(url) => panic!("{} was read: {url}", path.display()),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn an_image_becomes_a_data_url() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a.jpg");
        std::fs::write(&path, PNG).expect("write");
        let url = read_data_url(&path).expect("read");
        assert!(url.starts_with("data:image/png;base64,"), "{url}");
    }

    #[test]
    fn devices_fifos_directories_and_other_files_are_refused_without_blocking() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(status.success());
        assert_eq!(
            refusal(&fifo),
            format!("{} is not a regular file", fifo.display())
        );
        assert_eq!(
            refusal(Path::new("/dev/zero")),
            "/dev/zero is not a regular file"
        );
        assert_eq!(
            refusal(dir.path()),
            format!("{} is not a regular file", dir.path().display())
        );
        let text = dir.path().join("notes.png");
        std::fs::write(&text, "not an image").expect("write");
        assert_eq!(
            refusal(&text),
            format!("{} is not a PNG, JPEG, GIF or WebP image", text.display())
        );
        let large = dir.path().join("large.png");
        let file = File::create(&large).expect("create");
        file.set_len(MAX_IMAGE_BYTES + 1).expect("set_len");
        assert_eq!(
            refusal(&large),
            format!(
                "{} is too large (20971521 bytes; the limit is 20971520)",
                large.display()
            )
        );
        let missing = dir.path().join("missing.png");
        assert!(refusal(&missing).starts_with(&format!("cannot read {}: ", missing.display())));
    }
}
