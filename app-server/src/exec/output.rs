//! What `tandem exec` prints, written by one plain thread so that a slow reader of stdout never
//! blocks an async worker.
//!
//! With `--json`, stdout carries one [`ExecEvent`] per line and nothing else. Without it, stderr
//! carries a readable transcript and stdout only the final message, so that
//! `tandem exec "…" > answer.txt` keeps the answer. `--output-last-message FILE` receives the
//! final message in both modes when the turn ends.

use std::io::Write;
use std::path::PathBuf;

use app_server_protocol::tables::ServerNotification;
use tokio::sync::{mpsc, oneshot};

use crate::exec::events::{EventMapper, ExecEvent, ExecItemDetails, TurnEnd};

/// Capacity of the output thread's queue.
pub const OUTPUT_QUEUE: usize = 256;

/// A message for the output thread.
pub enum ToOutput {
    /// The run's thread is known: prints `thread.started` (and the transcript's header).
    Thread {
        /// The thread's id.
        thread_id: String,
        /// Lines describing the run, for the readable transcript.
        header: Vec<String>,
        /// The prompt, for the readable transcript.
        prompt: String,
    },
    /// A notification of the engine.
    Notification(Box<ServerNotification>),
}

/// How the output is written.
pub struct OutputOptions {
    /// One JSON event per line on stdout.
    pub json: bool,
    /// Where the final message goes at the end, if anywhere.
    pub last_message_file: Option<PathBuf>,
}

/// Starts the output thread. The returned receiver yields how the turn ended, as soon as it has;
/// the thread itself returns once the queue's senders are gone.
pub fn start(
    options: OutputOptions,
    queue: mpsc::Receiver<ToOutput>,
) -> std::io::Result<(
    oneshot::Receiver<TurnEnd>,
    std::thread::JoinHandle<std::io::Result<()>>,
)> {
    let (ended, end) = oneshot::channel();
    let thread = std::thread::Builder::new()
        .name("exec-output".to_string())
        .spawn(move || write_all(options, queue, ended))?;
    Ok((end, thread))
}

fn write_all(
    options: OutputOptions,
    mut queue: mpsc::Receiver<ToOutput>,
    ended: oneshot::Sender<TurnEnd>,
) -> std::io::Result<()> {
    let mut writer = Writer {
        json: options.json,
        stdout: std::io::stdout(),
        stderr: std::io::stderr(),
    };
    let mut mapper: Option<EventMapper> = None;
    let mut ended = Some(ended);
    while let Some(message) = queue.blocking_recv() {
        let events = match message {
            ToOutput::Thread {
                thread_id,
                header,
                prompt,
            } => {
                if !writer.json {
                    writer.text(&header.join("\n"));
                    writer.text(&format!("user\n{prompt}"));
                }
                mapper = Some(EventMapper::new(thread_id.clone()));
                vec![ExecEvent::ThreadStarted { thread_id }]
            }
            ToOutput::Notification(notification) => match &mut mapper {
                Some(mapper) => mapper.map(&notification),
                None => Vec::new(),
            },
        };
        for event in &events {
            writer.event(event);
        }
        if let Some(mapper) = &mapper
            && let Some(end) = &mapper.end
            && let Some(ended) = ended.take()
        {
            let last = mapper.last_message.clone();
            if !writer.json
                && let Some(text) = &last
            {
                writer.final_message(text);
            }
            if let Some(path) = &options.last_message_file {
                write_last_message(&mut writer, path, last.as_deref());
            }
            let _ = ended.send(end.clone());
        }
    }
    Ok(())
}

/// Writes the final message to `--output-last-message`'s file (empty when there was none, as
/// the reference does, with a warning).
fn write_last_message(writer: &mut Writer, path: &std::path::Path, message: Option<&str>) {
    if message.is_none() {
        writer.text(&format!(
            "warning: no final message; writing an empty {}",
            path.display()
        ));
    }
    if let Err(error) = std::fs::write(path, message.unwrap_or_default()) {
        writer.text(&format!(
            "warning: cannot write the final message to {}: {error}",
            path.display()
        ));
    }
}

struct Writer {
    json: bool,
    stdout: std::io::Stdout,
    stderr: std::io::Stderr,
}

impl Writer {
    /// A line of the readable transcript (stderr). A closed stderr loses it.
    fn text(&mut self, text: &str) {
        let mut stderr = self.stderr.lock();
        let _ = writeln!(stderr, "{text}");
    }

    fn final_message(&mut self, text: &str) {
        let mut stdout = self.stdout.lock();
        let _ = writeln!(stdout, "{text}");
        let _ = stdout.flush();
    }

    fn event(&mut self, event: &ExecEvent) {
        if self.json {
            let mut stdout = self.stdout.lock();
            match serde_json::to_string(event) {
                Ok(line) => {
                    // A reader that went away loses the rest; the turn still ends normally.
                    let _ = writeln!(stdout, "{line}");
                    let _ = stdout.flush();
                }
                Err(error) => tracing::error!(%error, "cannot encode an exec event"),
            }
            return;
        }
        if let Some(text) = readable(event) {
            self.text(&text);
        }
    }
}

/// The readable transcript's lines for one event, if any.
fn readable(event: &ExecEvent) -> Option<String> {
    match event {
        ExecEvent::ThreadStarted { .. } | ExecEvent::TurnStarted {} => None,
        ExecEvent::TurnCompleted { usage } => Some(format!(
            "tokens used\n{}",
            usage.input_tokens + usage.output_tokens
        )),
        ExecEvent::TurnFailed { error } => Some(format!("turn failed: {}", error.message)),
        ExecEvent::Error { message } => Some(format!("ERROR: {message}")),
        ExecEvent::ItemStarted { item } => match &item.details {
            ExecItemDetails::CommandExecution { command, .. } => Some(format!("exec\n{command}")),
            ExecItemDetails::McpToolCall { server, tool, .. } => {
                Some(format!("tool {server}.{tool}"))
            }
            ExecItemDetails::TodoList { items } => Some(plan(items)),
            _ => None,
        },
        ExecEvent::ItemUpdated { item } => match &item.details {
            ExecItemDetails::TodoList { items } => Some(plan(items)),
            _ => None,
        },
        ExecEvent::ItemCompleted { item } => match &item.details {
            ExecItemDetails::AgentMessage { text } => Some(format!("codex\n{text}")),
            ExecItemDetails::Reasoning { text } => Some(format!("thinking\n{text}")),
            ExecItemDetails::CommandExecution {
                status,
                exit_code,
                aggregated_output,
                ..
            } => Some(match (*status, exit_code) {
                ("declined", _) => "declined".to_string(),
                (_, Some(code)) => format!("{}exited {code}", indent(aggregated_output)),
                (status, None) => format!("{}{status}", indent(aggregated_output)),
            }),
            ExecItemDetails::FileChange { changes, status } => {
                let files: Vec<String> = changes
                    .iter()
                    .map(|change| format!("{} {}", change.kind, change.path))
                    .collect();
                Some(format!("file update ({status})\n{}", files.join("\n")))
            }
            ExecItemDetails::McpToolCall { status, .. } => Some(format!("tool call {status}")),
            ExecItemDetails::TodoList { .. } => None,
            ExecItemDetails::Error { message } => Some(format!("warning: {message}")),
        },
    }
}

fn plan(items: &[crate::exec::events::TodoItem]) -> String {
    let steps: Vec<String> = items
        .iter()
        .map(|item| {
            format!(
                "  [{}] {}",
                if item.completed { "x" } else { " " },
                item.text
            )
        })
        .collect();
    format!("plan\n{}", steps.join("\n"))
}

/// A command's output, indented, with a newline after it when there is any.
fn indent(output: &str) -> String {
    let mut text = String::new();
    for line in output.lines().take(20) {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    text
}
