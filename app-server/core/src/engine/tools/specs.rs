//! The tool definitions offered to the model, with the names and argument shapes that
//! Codex-tuned models expect (`model-wire.md` §2).

use serde_json::json;

use crate::model::ToolSpec;

/// Every tool the engine offers, in a stable order.
pub fn specs() -> Vec<ToolSpec> {
    vec![
        exec_command(),
        write_stdin(),
        apply_patch(),
        update_plan(),
        request_user_input(),
        view_image(),
    ]
}

fn exec_command() -> ToolSpec {
    ToolSpec {
        name: "exec_command".into(),
        description: "Runs a command in a PTY or pipes, returning output or a session ID for ongoing interaction.".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "cmd": {"type": "string", "description": "Shell command to execute."},
                "workdir": {"type": "string", "description": "Optional working directory to run the command in; defaults to the turn cwd."},
                "shell": {"type": "string", "description": "Shell binary to launch. Defaults to the user's default shell."},
                "login": {"type": "boolean", "description": "Whether to run the shell with -l/-i semantics. Defaults to true."},
                "tty": {"type": "boolean", "description": "Whether to allocate a TTY for the command. Defaults to false (plain pipes); set to true to open a PTY and access TTY process."},
                "yield_time_ms": {"type": "number", "description": "How long to wait (in milliseconds) for output before yielding."},
                "max_output_tokens": {"type": "number", "description": "Maximum number of tokens to return. Excess output will be truncated."},
                "sandbox_permissions": {"type": "string", "description": "Sandbox permissions for the command. Set to \"require_escalated\" to request running without sandbox restrictions; defaults to \"use_default\"."},
                "justification": {"type": "string", "description": "Only set if sandbox_permissions is \"require_escalated\". One sentence asking the user whether to allow the command, shown in the approval request."},
                "prefix_rule": {"type": "array", "items": {"type": "string"}, "description": "Only set if sandbox_permissions is \"require_escalated\". A command prefix the user could approve for similar future commands."}
            },
            "required": ["cmd"],
            "additionalProperties": false
        }),
    }
}

fn write_stdin() -> ToolSpec {
    ToolSpec {
        name: "write_stdin".into(),
        description:
            "Writes characters to an existing unified exec session and returns recent output."
                .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "session_id": {"type": "number", "description": "Identifier of the running unified exec session."},
                "chars": {"type": "string", "description": "Bytes to write to stdin (may be empty to poll)."},
                "yield_time_ms": {"type": "number", "description": "How long to wait (in milliseconds) for output before yielding."},
                "max_output_tokens": {"type": "number", "description": "Maximum number of tokens to return. Excess output will be truncated."}
            },
            "required": ["session_id"],
            "additionalProperties": false
        }),
    }
}

fn apply_patch() -> ToolSpec {
    ToolSpec {
        name: "apply_patch".into(),
        description: "Use the `apply_patch` tool to edit files. The input is the whole patch: `*** Begin Patch`, then one or more `*** Add File: <path>` (lines prefixed with +), `*** Delete File: <path>` or `*** Update File: <path>` (optionally `*** Move to: <path>`, then `@@` hunks with ' ', '-', '+' lines), then `*** End Patch`. Paths are relative to the working directory.".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "input": {"type": "string", "description": "The entire contents of the apply_patch command"}
            },
            "required": ["input"],
            "additionalProperties": false
        }),
    }
}

fn update_plan() -> ToolSpec {
    ToolSpec {
        name: "update_plan".into(),
        description: "Updates the task plan. Provide an optional explanation and a list of plan items, each with a step and status. At most one step can be in_progress at a time.".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "explanation": {"type": "string"},
                "plan": {
                    "type": "array",
                    "description": "The list of steps",
                    "items": {
                        "type": "object",
                        "properties": {
                            "step": {"type": "string"},
                            "status": {"type": "string", "description": "One of: pending, in_progress, completed"}
                        },
                        "required": ["step", "status"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["plan"],
            "additionalProperties": false
        }),
    }
}

fn request_user_input() -> ToolSpec {
    ToolSpec {
        name: "request_user_input".into(),
        description: "Request user input for one to three short questions and wait for the response. Only available in Plan mode.".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "questions": {
                    "type": "array",
                    "description": "Questions to show the user. Prefer 1 and do not exceed 3.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string", "description": "Stable identifier for mapping answers (snake_case)."},
                            "header": {"type": "string", "description": "Short header label shown in the UI (12 or fewer chars)."},
                            "question": {"type": "string", "description": "Single-sentence prompt shown to the user."},
                            "options": {
                                "type": "array",
                                "description": "Provide 2-3 mutually exclusive choices. Put the recommended option first and suffix its label with \"(Recommended)\". Do not include an \"Other\" option; the client adds a free-form answer.",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "label": {"type": "string", "description": "User-facing label (1-5 words)."},
                                        "description": {"type": "string", "description": "One short sentence explaining impact/tradeoff if selected."}
                                    },
                                    "required": ["label", "description"],
                                    "additionalProperties": false
                                }
                            }
                        },
                        "required": ["id", "header", "question", "options"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["questions"],
            "additionalProperties": false
        }),
    }
}

fn view_image() -> ToolSpec {
    ToolSpec {
        name: "view_image".into(),
        description: "View a local image from the filesystem (only use if given a full filepath by the user, and the image isn't already attached to the thread context).".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Local filesystem path to an image file"}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
    }
}
