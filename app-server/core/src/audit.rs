//! The audit trail: one JSONL file, `$TANDEM_HOME/log/audit.jsonl` (0600 in a 0700
//! directory), with who (principal and front end) started which thread, ran which command
//! under which sandbox, approved or declined what, changed which setting, and which requests
//! the operator's policy refused.
//!
//! Records are encoded by the caller (secrets masked by [`crate::redact`]) and written by one
//! thread, so no file I/O happens on an async worker. The queue is bounded: when the writer
//! falls behind by [`QUEUE_CAPACITY`] records, further records are counted as dropped and the
//! count is written with the next record that fits. The file is rotated at
//! [`ROTATE_AT_BYTES`], keeping [`KEEP_ROTATED`] older files (`audit.jsonl.1` the newest).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::Duration;

use app_server_protocol::thread_requests::ThreadStartResponse;
use serde::Serialize;

use crate::clock::unix_millis;
use crate::engine::approval::{ApprovalReply, ApprovalRequest};
use crate::principal::Principal;
use crate::redact::redact_patterns;

/// Records that may wait for the writer before new ones are dropped.
pub const QUEUE_CAPACITY: usize = 4096;
/// The file is rotated once it reaches this size.
pub const ROTATE_AT_BYTES: u64 = 16 * 1024 * 1024;
/// Rotated files kept beside the current one.
pub const KEEP_ROTATED: usize = 4;

/// What happened, as recorded.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum AuditEvent {
    /// A thread was created (start, fork, `newConversation`, the `codex` tool).
    ThreadStarted {
        /// The new thread.
        thread_id: String,
        /// Its working directory.
        cwd: String,
        /// The sandbox its commands run under.
        sandbox: String,
        /// When the user is asked before a command runs.
        approval_policy: String,
    },
    /// A thread was deleted (`thread/delete`).
    ThreadDeleted {
        /// The deleted thread.
        thread_id: String,
    },
    /// A command ran (the model's, `command/exec`, `execOneOffCommand`).
    CommandRun {
        /// The thread it ran in, if any.
        thread_id: Option<String>,
        /// The command line.
        command: String,
        /// Where it ran.
        cwd: String,
        /// The sandbox it ran under.
        sandbox: String,
    },
    /// The user answered a question of the agent's.
    Approval {
        /// The thread asking.
        thread_id: String,
        /// What was asked (`command`, `file_change`, …).
        request: String,
        /// The answer (`accept`, `decline`, …).
        decision: String,
    },
    /// A setting was changed by a client.
    SettingChanged {
        /// The key.
        key: String,
        /// The new value, as written.
        value: String,
    },
    /// The operator's policy refused a request.
    Refused {
        /// The setting that refused it (`clients.max_sandbox`, `clients.allow_client_config`).
        setting: String,
        /// Why, as told to the client.
        reason: String,
    },
}

impl AuditEvent {
    /// The record of a thread just created.
    pub fn thread_started(response: &ThreadStartResponse) -> AuditEvent {
        AuditEvent::ThreadStarted {
            thread_id: response.thread.id.clone(),
            cwd: response.cwd.clone(),
            sandbox: wire_name(&response.sandbox),
            approval_policy: wire_name(&response.approval_policy),
        }
    }

    /// The record of a question and how it ended. Only decisions are kept, never the text of
    /// the user's answers.
    pub fn approval(request: &ApprovalRequest, reply: &ApprovalReply) -> AuditEvent {
        AuditEvent::Approval {
            thread_id: request.thread_id().to_string(),
            request: request.kind_name().to_string(),
            decision: reply.decision_name(),
        }
    }
}

/// A value's name on the wire (`accept`, `decline`, `workspaceWrite`, …): a string as is, the
/// `type` of a tagged object, else the object's only key.
pub fn wire_name(value: &impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        Ok(serde_json::Value::Object(fields)) => match fields.get("type") {
            Some(serde_json::Value::String(kind)) => kind.clone(),
            _ => fields
                .keys()
                .next()
                .cloned()
                .unwrap_or_else(|| "answered".to_string()),
        },
        _ => "answered".to_string(),
    }
}

#[derive(Serialize)]
struct Record<'a> {
    ts_ms: i64,
    principal: &'a str,
    front_end: &'a str,
    #[serde(flatten)]
    event: &'a AuditEvent,
    #[serde(skip_serializing_if = "Option::is_none")]
    dropped_before: Option<u64>,
}

enum Job {
    Line(Vec<u8>),
    Flush(SyncSender<()>),
}

/// The audit trail of one server process. Cheap to clone.
#[derive(Clone)]
pub struct AuditLog {
    inner: Option<Arc<Inner>>,
}

struct Inner {
    queue: SyncSender<Job>,
    dropped: AtomicU64,
}

impl AuditLog {
    /// Records nothing (tests, and tools that act for nobody).
    pub fn disabled() -> AuditLog {
        AuditLog { inner: None }
    }

    /// The audit trail under `home`; when the directory or the writer thread cannot be set up,
    /// says so on the log and records nothing.
    pub fn open(home: &Path) -> AuditLog {
        match Writer::open(audit_path(home)) {
            Ok(writer) => {
                let (queue, jobs) = sync_channel(QUEUE_CAPACITY);
                let started = std::thread::Builder::new()
                    .name("tandem-audit".into())
                    .spawn(move || writer.run(jobs));
                match started {
                    Ok(_) => AuditLog {
                        inner: Some(Arc::new(Inner {
                            queue,
                            dropped: AtomicU64::new(0),
                        })),
                    },
                    Err(error) => {
                        tracing::error!(%error, "cannot start the audit writer; not auditing");
                        AuditLog::disabled()
                    }
                }
            }
            Err(error) => {
                tracing::error!(%error, "cannot open the audit log; not auditing");
                AuditLog::disabled()
            }
        }
    }

    /// Records `event` done by `principal` through `front_end`. Never blocks.
    pub fn record(&self, principal: &Principal, front_end: &str, event: &AuditEvent) {
        let Some(inner) = &self.inner else {
            return;
        };
        let dropped = inner.dropped.swap(0, Ordering::Relaxed);
        let record = Record {
            ts_ms: unix_millis(),
            principal: principal.name(),
            front_end,
            event,
            dropped_before: (dropped > 0).then_some(dropped),
        };
        let Ok(encoded) = serde_json::to_string(&record) else {
            return;
        };
        let mut line = redact_patterns(&encoded).into_owned().into_bytes();
        line.push(b'\n');
        match inner.queue.try_send(Job::Line(line)) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                inner.dropped.fetch_add(dropped + 1, Ordering::Relaxed);
            }
            Err(TrySendError::Disconnected(_)) => {}
        }
    }

    /// Waits (at most `timeout`) until every record queued so far is written. Blocking: call
    /// it at shutdown or from a blocking thread.
    pub fn flush(&self, timeout: Duration) {
        let Some(inner) = &self.inner else {
            return;
        };
        let (done, finished) = sync_channel(1);
        if inner.queue.send(Job::Flush(done)).is_ok() {
            let _ = finished.recv_timeout(timeout);
        }
    }
}

impl std::fmt::Debug for AuditLog {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AuditLog")
            .field("enabled", &self.inner.is_some())
            .finish()
    }
}

/// Where the audit trail of `home` is written.
pub fn audit_path(home: &Path) -> PathBuf {
    home.join("log").join("audit.jsonl")
}

struct Writer {
    path: PathBuf,
    file: File,
    size: u64,
}

impl Writer {
    fn open(path: PathBuf) -> io::Result<Writer> {
        if let Some(directory) = path.parent() {
            create_private_dir(directory)?;
        }
        let file = open_private(&path)?;
        let size = file.metadata()?.len();
        Ok(Writer { path, file, size })
    }

    fn run(mut self, jobs: Receiver<Job>) {
        while let Ok(job) = jobs.recv() {
            match job {
                Job::Line(line) => {
                    if let Err(error) = self.write(&line) {
                        tracing::error!(path = %self.path.display(), %error, "cannot write the audit log");
                    }
                }
                Job::Flush(done) => {
                    let _ = self.file.flush();
                    let _ = done.send(());
                }
            }
        }
    }

    fn write(&mut self, line: &[u8]) -> io::Result<()> {
        if self.size > 0 && self.size + line.len() as u64 > ROTATE_AT_BYTES {
            self.rotate()?;
        }
        self.file.write_all(line)?;
        self.size += line.len() as u64;
        Ok(())
    }

    fn rotate(&mut self) -> io::Result<()> {
        let rotated = |index: usize| PathBuf::from(format!("{}.{index}", self.path.display()));
        let _ = std::fs::remove_file(rotated(KEEP_ROTATED));
        for index in (1..KEEP_ROTATED).rev() {
            let _ = std::fs::rename(rotated(index), rotated(index + 1));
        }
        std::fs::rename(&self.path, rotated(1))?;
        self.file = open_private(&self.path)?;
        self.size = 0;
        Ok(())
    }
}

fn create_private_dir(directory: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(directory)
}

fn open_private(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    // A file created earlier with wider permissions is narrowed.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn records_are_written_one_json_object_per_line_with_secrets_masked() {
        let home = tempfile::tempdir().unwrap();
        let audit = AuditLog::open(home.path());
        let alice = Principal::named("alice");
        audit.record(
            &alice,
            "mcp-server http",
            &AuditEvent::CommandRun {
                thread_id: Some("thread-1".into()),
                command: "curl -H 'Authorization: Bearer abcdefghijkl' https://example.com".into(),
                cwd: "/work".into(),
                sandbox: "workspace-write".into(),
            },
        );
        audit.record(
            &alice,
            "mcp-server http",
            &AuditEvent::Refused {
                setting: "clients.max_sandbox".into(),
                reason:
                    "sandbox `dangerFullAccess` is beyond what this server lets a client obtain"
                        .into(),
            },
        );
        audit.flush(Duration::from_secs(5));
        let path = audit_path(home.path());
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["event"], "command_run");
        assert_eq!(lines[0]["principal"], "alice");
        assert_eq!(
            lines[0]["command"],
            "curl -H 'Authorization: Bearer [REDACTED]' https://example.com"
        );
        assert_eq!(lines[1]["event"], "refused");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dir_mode = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(dir_mode, 0o700);
    }

    #[test]
    fn a_full_file_is_rotated_and_older_files_are_kept() {
        let home = tempfile::tempdir().unwrap();
        let path = audit_path(home.path());
        let mut writer = Writer::open(path.clone()).unwrap();
        let line = vec![b'x'; 1024 * 1024];
        for _ in 0..(ROTATE_AT_BYTES / (1024 * 1024) + 1) {
            writer.write(&line).unwrap();
        }
        let rotated = PathBuf::from(format!("{}.1", path.display()));
        assert_eq!(
            std::fs::metadata(&rotated).unwrap().len(),
            ROTATE_AT_BYTES,
            "the full file moved aside"
        );
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 1024 * 1024);
    }
}
