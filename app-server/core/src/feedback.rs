//! Feedback bundles (`feedback/save`): a ZIP file on this machine holding a report, a
//! manifest and attachments (a thread's rollout, the server's logs), every text attachment
//! passed through the secret masking of `redact.rs` before it is written.
//!
//! What goes in is capped: [`MAX_ATTACHMENT_BYTES`] of each file (the end of a log, which is
//! where the trouble is), [`MAX_LOG_FILES`] log files. The file is created new (`O_EXCL`), so
//! an existing file is never replaced, and a bundle that fails half-way is removed. Blocks:
//! call it from a blocking thread.

use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The most bytes of one attached file kept (its end).
pub const MAX_ATTACHMENT_BYTES: u64 = 8 * 1024 * 1024;
/// The most log files attached.
pub const MAX_LOG_FILES: usize = 16;

/// One file of a bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    /// Its name in the bundle (without directory).
    pub filename: String,
    /// Its MIME type.
    pub content_type: &'static str,
    /// Its contents, already masked.
    pub bytes: Vec<u8>,
}

impl Attachment {
    /// The file at `path`, its last [`MAX_ATTACHMENT_BYTES`] masked for secrets by
    /// `redactor`; `None` when it cannot be read or is not a regular file.
    pub fn read(
        path: &Path,
        content_type: &'static str,
        redactor: &crate::redact::Redactor,
    ) -> Option<Attachment> {
        let mut file = std::fs::File::open(path).ok()?;
        let metadata = file.metadata().ok()?;
        if !metadata.is_file() {
            return None;
        }
        let skip = metadata.len().saturating_sub(MAX_ATTACHMENT_BYTES);
        file.seek(SeekFrom::Start(skip)).ok()?;
        let mut bytes = Vec::new();
        file.take(MAX_ATTACHMENT_BYTES)
            .read_to_end(&mut bytes)
            .ok()?;
        let text = String::from_utf8_lossy(&bytes);
        let masked = redactor.redact(&text).into_owned();
        Some(Attachment {
            filename: path.file_name()?.to_string_lossy().into_owned(),
            content_type,
            bytes: masked.into_bytes(),
        })
    }
}

/// The log files of `home/log`, newest first, at most [`MAX_LOG_FILES`].
pub fn log_files(home: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(home.join("log")) else {
        return Vec::new();
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let metadata = entry.metadata().ok().filter(std::fs::Metadata::is_file)?;
            Some((metadata.modified().ok()?, entry.path()))
        })
        .collect();
    files.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    files
        .into_iter()
        .take(MAX_LOG_FILES)
        .map(|(_, path)| path)
        .collect()
}

/// Writes a new bundle at `path`: `report.json` (`report`), `manifest.json` and each
/// attachment as `attachments/NNNN/FILENAME`. Fails when `path` exists.
pub fn write_bundle(path: &Path, report: &Value, attachments: &[Attachment]) -> Result<(), String> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::AlreadyExists => "the save path already exists".to_owned(),
            _ => format!("cannot create {}: {error}", path.display()),
        })?;
    let written = write_entries(file, report, attachments);
    if written.is_err() {
        let _ = std::fs::remove_file(path);
    }
    written.map_err(|error| format!("cannot write {}: {error}", path.display()))
}

fn write_entries(
    file: std::fs::File,
    report: &Value,
    attachments: &[Attachment],
) -> Result<(), Box<dyn std::error::Error>> {
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o600);
    let mut archive = zip::ZipWriter::new(file);
    archive.start_file("report.json", options)?;
    archive.write_all(serde_json::to_string_pretty(report)?.as_bytes())?;
    let mut manifest = Vec::new();
    for (index, attachment) in attachments.iter().enumerate() {
        let entry = format!("attachments/{index:04}/{}", attachment.filename);
        archive.start_file(entry.as_str(), options)?;
        archive.write_all(&attachment.bytes)?;
        manifest.push(json!({
            "entry": entry,
            "filename": attachment.filename,
            "contentType": attachment.content_type,
        }));
    }
    archive.start_file("manifest.json", options)?;
    archive.write_all(serde_json::to_string(&manifest)?.as_bytes())?;
    archive.finish()?.sync_all()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn a_bundle_holds_its_report_manifest_and_masked_attachments() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("server.log");
        std::fs::write(&log, "token sk-abcdefghijklmnopqrstuvwxyz0123456789 used\n").unwrap();
        let redactor = crate::redact::Redactor::new();
        let attachment = Attachment::read(&log, "text/plain", &redactor).unwrap();
        assert!(!String::from_utf8_lossy(&attachment.bytes).contains("sk-abcdefghij"));
        let bundle = dir.path().join("feedback.zip");
        write_bundle(&bundle, &json!({"classification": "bug"}), &[attachment]).unwrap();
        let mut archive = zip::ZipArchive::new(std::fs::File::open(&bundle).unwrap()).unwrap();
        let names: Vec<String> = (0..archive.len())
            .map(|index| {
                archive
                    .by_index(index)
                    .unwrap()
                    .name()
                    .unwrap()
                    .into_owned()
            })
            .collect();
        assert_eq!(
            names,
            [
                "report.json",
                "attachments/0000/server.log",
                "manifest.json"
            ]
        );
        let mut manifest = String::new();
        archive
            .by_name("manifest.json")
            .unwrap()
            .read_to_string(&mut manifest)
            .unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&manifest).unwrap(),
            json!([{"entry": "attachments/0000/server.log", "filename": "server.log", "contentType": "text/plain"}])
        );
        assert_eq!(
            write_bundle(&bundle, &json!({}), &[]),
            Err("the save path already exists".to_owned())
        );
    }
}
