//! `view_image`: shows the model a local image, as an `imageView` item.
//!
//! The image goes back as a user message with an `input_image` data URL right after the tool
//! output, the form every Responses and Chat Completions server accepts.

use std::path::{Path, PathBuf};

use app_server_protocol::item::ThreadItemDetails;
use base64::Engine as _;
use serde::Deserialize;

use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;
use crate::model::{ContentItem, ResponseItem};
use crate::sync::lock;

/// Largest image sent to the model.
const MAX_IMAGE_BYTES: u64 = 20 * 1024 * 1024;

/// `view_image` arguments (`model-wire.md` §2.6).
#[derive(Debug, Deserialize)]
struct ViewImageArgs {
    path: String,
}

impl TurnTask {
    /// `view_image`: reads the file, emits an `imageView` item and attaches the image.
    pub(super) async fn view_image(&mut self, call: &ToolCall) -> ToolOutcome {
        let args: ViewImageArgs = match call.arguments() {
            Ok(args) => args,
            Err(message) => return call.reply(message),
        };
        let cwd = PathBuf::from(&lock(&self.thread.state).meta.cwd);
        let path = cwd.join(&args.path);
        let data_url = match image_data_url(&path) {
            Ok(url) => url,
            Err(message) => return call.reply(format!("view_image failed: {message}")),
        };
        let details = ThreadItemDetails::ImageView {
            id: call.call_id.clone(),
            path: path.display().to_string(),
        };
        let started = self.start_item(details.clone()).await;
        let item = self.complete_item(&started, details).await;
        ToolOutcome {
            output: call.output("attached the image"),
            items: vec![item],
            interrupt: false,
            follow_up: vec![ResponseItem::Message {
                id: None,
                role: "user".into(),
                content: vec![ContentItem::InputImage {
                    image_url: data_url,
                }],
            }],
        }
    }
}

/// The file as a `data:` URL, or why it cannot be shown.
fn image_data_url(path: &Path) -> Result<String, String> {
    let metadata = std::fs::metadata(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    if !metadata.is_file() {
        return Err(format!("{} is not a file", path.display()));
    }
    if metadata.len() > MAX_IMAGE_BYTES {
        return Err(format!(
            "{} is too large ({} bytes; the limit is {MAX_IMAGE_BYTES})",
            path.display(),
            metadata.len()
        ));
    }
    let bytes =
        std::fs::read(path).map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let mime = image_mime(&bytes)
        .ok_or_else(|| format!("{} is not a PNG, JPEG, GIF or WebP image", path.display()))?;
    let encoded = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Ok(format!("data:{mime};base64,{encoded}"))
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
