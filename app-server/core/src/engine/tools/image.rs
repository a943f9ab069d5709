//! `view_image`: shows the model a local image, as an `imageView` item.
//!
//! The image goes back as a user message with an `input_image` data URL right after the tool
//! output, the form every Responses and Chat Completions server accepts. The file is read by
//! `engine::image_file` (off the async workers, regular files only).

use std::path::PathBuf;

use app_server_protocol::item::ThreadItemDetails;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::engine::image_file::image_data_url;
use crate::engine::tools::registry::ModelCall;
use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;
use crate::model::{ContentItem, ResponseItem};
use crate::sync::lock;
use crate::tools::{Tool, ToolFuture};

/// `view_image` (`model-wire.md` §2.6).
pub(crate) struct ViewImage;

impl Tool for ViewImage {
    const NAME: &'static str = "view_image";
    const DESCRIPTION: &'static str = "View a local image from the filesystem (only use if given a full filepath by the user, and the image isn't already attached to the thread context).";
    type Args = ViewImageArgs;
    type Context<'a> = ModelCall<'a>;
    type Output = ToolOutcome;

    fn run<'a>(context: Self::Context<'a>, args: ViewImageArgs) -> ToolFuture<'a, ToolOutcome> {
        Box::pin(context.task.view_image(context.call, args))
    }
}

/// `view_image` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct ViewImageArgs {
    /// Local filesystem path to an image file
    path: String,
}

impl TurnTask {
    /// `view_image`: reads the file, emits an `imageView` item and attaches the image.
    async fn view_image(&mut self, call: &ToolCall, args: ViewImageArgs) -> ToolOutcome {
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
