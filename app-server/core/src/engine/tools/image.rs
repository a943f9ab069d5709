//! `view_image`: shows the model a local image, as an `imageView` item.
//!
//! The image goes back as a user message with an `input_image` data URL right after the tool
//! output, the form every Responses and Chat Completions server accepts. The file is read by
//! `engine::image_file` (off the async workers, regular files only).

use std::path::PathBuf;

use app_server_protocol::item::ThreadItemDetails;
use serde::Deserialize;

use crate::engine::image_file::image_data_url;
use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;
use crate::model::{ContentItem, ResponseItem};
use crate::sync::lock;

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
        let data_url = match image_data_url(path.clone()).await {
            Ok(url) => url,
            Err(error) => return call.reply(format!("view_image failed: {error}")),
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
