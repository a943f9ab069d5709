//! What the model sees: instructions, the environment context and the conversation.

use app_server_protocol::item::UserInput;
use app_server_protocol::policy::{AskForApproval, SandboxPolicy};

use crate::engine::image_file::LocalImages;
use crate::model::{ContentItem, ResponseItem};
use crate::store::ThreadMeta;

/// Tandem's built-in base instructions (replaced by `instructions` in config or
/// `baseInstructions` on `thread/start`).
pub const BASE_INSTRUCTIONS: &str = "You are Tandem, a coding agent running on the user's machine and working in their project.
Be concise and precise. Read before you edit, prefer small verifiable steps, and explain what you did.
Use the tools you are given to inspect and change the workspace; never claim to have run something you did not run.
When the `query_project` tool is available, search the project index with it before opening files, then read only what it points to.";

/// The instructions sent with every request of a thread.
pub fn instructions(meta: &ThreadMeta) -> String {
    let mut text = meta
        .base_instructions
        .clone()
        .unwrap_or_else(|| BASE_INSTRUCTIONS.to_string());
    if let Some(developer) = &meta.developer_instructions {
        text.push_str("\n\n");
        text.push_str(developer);
    }
    text.push_str("\n\n");
    text.push_str(&permissions_text(meta.approval_policy, &meta.sandbox));
    text
}

fn permissions_text(approval: AskForApproval, sandbox: &SandboxPolicy) -> String {
    let sandbox = match sandbox {
        SandboxPolicy::DangerFullAccess => "`danger-full-access`: commands run without a sandbox",
        SandboxPolicy::ReadOnly { .. } => "`read-only`: commands may read files but not write them",
        SandboxPolicy::WorkspaceWrite { .. } => {
            "`workspace-write`: commands may write inside the workspace; `.git` stays read-only"
        }
        SandboxPolicy::ExternalSandbox { .. } => "`external`: the host sandboxes commands",
    };
    let approval = match approval {
        AskForApproval::Untrusted => {
            "`untrusted`: the user approves every command that is not known to be safe"
        }
        AskForApproval::OnRequest => {
            "`on-request`: ask for approval when a command needs to leave the sandbox"
        }
        AskForApproval::Granular(config) if config.sandbox_approval => {
            "`granular`: ask for approval when a command needs to leave the sandbox"
        }
        AskForApproval::Granular(_) => {
            "`granular`: approvals to leave the sandbox are never asked; blocked actions fail"
        }
        AskForApproval::Never => "`never`: approvals are never asked; blocked actions fail",
    };
    format!(
        "<permissions instructions>\nsandbox_mode is {sandbox}.\napproval_policy is {approval}.\n</permissions instructions>"
    )
}

/// The `<environment_context>` message sent before the first turn (and when the cwd changes).
pub fn environment_context(cwd: &str, date: &str) -> ResponseItem {
    let shell = std::env::var("SHELL")
        .ok()
        .and_then(|shell| shell.rsplit('/').next().map(str::to_string))
        .unwrap_or_else(|| "bash".to_string());
    ResponseItem::Message {
        id: None,
        role: "user".into(),
        content: vec![ContentItem::InputText {
            text: format!(
                "<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>{shell}</shell>\n  <current_date>{date}</current_date>\n  <timezone>Etc/UTC</timezone>\n</environment_context>"
            ),
        }],
    }
}

/// The user message for the model from the turn's inputs. Local images, read beforehand into
/// `images`, are inlined as data URLs; one that cannot be sent becomes a note, so that later
/// turns know it is missing (the turn that carried it fails, see `input_rejection`).
pub fn user_message(inputs: &[UserInput], images: &LocalImages) -> ResponseItem {
    let content = inputs
        .iter()
        .map(|input| match input {
            UserInput::Text { text, .. } => ContentItem::InputText { text: text.clone() },
            UserInput::Image { url, .. } => ContentItem::InputImage {
                image_url: url.clone(),
            },
            UserInput::LocalImage { path, .. } => match images.data_url(path) {
                Some(Ok(url)) => ContentItem::InputImage {
                    image_url: url.clone(),
                },
                Some(Err(error)) => ContentItem::InputText {
                    text: format!("[image {path} could not be read: {error}]"),
                },
                None => ContentItem::InputText {
                    text: format!("[image {path} could not be read]"),
                },
            },
            UserInput::Skill { name, path } => ContentItem::InputText {
                text: format!("<skill>\n<name>{name}</name>\n<path>{path}</path>\n</skill>"),
            },
            UserInput::Mention { name, path } => ContentItem::InputText {
                text: format!("<mention>\n<name>{name}</name>\n<path>{path}</path>\n</mention>"),
            },
            // A turn with audio fails before it reaches the model (`audio_rejection`); later
            // turns see the note.
            UserInput::Audio { .. } | UserInput::LocalAudio { .. } => ContentItem::InputText {
                text: AUDIO_OMITTED.to_string(),
            },
        })
        .collect();
    ResponseItem::Message {
        id: None,
        role: "user".into(),
        content,
    }
}

/// What the model sees in place of an audio input of an earlier turn.
const AUDIO_OMITTED: &str = "[audio input omitted: the model provider does not take audio]";

/// The error that fails a turn whose input holds audio: none of Tandem's model providers
/// take audio, and dropping it silently would answer a question the user did not ask.
pub fn audio_rejection(inputs: &[UserInput]) -> Option<String> {
    inputs
        .iter()
        .any(|input| matches!(input, UserInput::Audio { .. } | UserInput::LocalAudio { .. }))
        .then(|| {
            "audio input is not supported: the model providers of this server take text and images only"
                .to_string()
        })
}

/// The first text input, used as the thread preview.
pub fn preview_text(inputs: &[UserInput]) -> Option<String> {
    inputs.iter().find_map(|input| match input {
        UserInput::Text { text, .. } => Some(text.clone()),
        _ => None,
    })
}

/// Today's date (UTC) as `YYYY-MM-DD`.
pub fn today() -> String {
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    now.chars().take(10).collect()
}
