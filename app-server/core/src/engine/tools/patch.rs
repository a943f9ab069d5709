//! `apply_patch` (and `apply_patch` heredocs run through `exec_command`): `fileChange` items,
//! file-change approvals, atomic writes and the turn's aggregated diff.
//!
//! Item flow (transcript `d`): `item/started` with the proposed changes, then (when the user
//! must be asked) `waitingOnApproval`, the request, `serverRequest/resolved`, `active`; then
//! `item/completed` and `turn/diff/updated`.

use std::path::{Path, PathBuf};

use app_server_protocol::item::{PatchApplyStatus, ThreadItem, ThreadItemDetails};
use app_server_protocol::notifications::TurnDiffUpdatedNotification;
use app_server_protocol::server_requests::{
    FileChangeApprovalDecision, FileChangeRequestApprovalParams,
};
use app_server_protocol::tables::ServerNotification;
use app_server_protocol::thread::ThreadActiveFlag;
use schemars::JsonSchema;
use serde::Deserialize;

use crate::engine::approval::{ApprovalAnswer, ApprovalReply, ApprovalRequest};
use crate::engine::tools::policy::{PatchAssessment, assess_patch};
use crate::engine::tools::registry::ModelCall;
use crate::engine::tools::{ToolCall, ToolOutcome};
use crate::engine::turn::TurnTask;
use crate::sync::lock;
use crate::tools::apply_patch::parser::parse_patch;
use crate::tools::apply_patch::plan::{FileChangeKind, PatchPlan, plan_patch};
use crate::tools::{Tool, ToolFuture};

/// The model sees this when the user declines a patch.
pub const PATCH_DECLINED_OUTPUT: &str = "patch rejected by user";

/// How the patch reached the engine; the success output differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchForm {
    /// The `apply_patch` tool (function or freeform).
    Tool,
    /// An `apply_patch <<'EOF'` heredoc inside `exec_command`.
    Heredoc,
}

/// `apply_patch` (`model-wire.md` §2.3), as a function or as a freeform tool (its raw input is `input`).
pub(crate) struct ApplyPatch;

impl Tool for ApplyPatch {
    const NAME: &'static str = "apply_patch";
    const DESCRIPTION: &'static str = "Use the `apply_patch` tool to edit files. The input is the whole patch: `*** Begin Patch`, then one or more `*** Add File: <path>` (lines prefixed with +), `*** Delete File: <path>` or `*** Update File: <path>` (optionally `*** Move to: <path>`, then `@@` hunks with ' ', '-', '+' lines), then `*** End Patch`. Paths are relative to the working directory.";
    type Args = ApplyPatchArgs;
    type Context<'a> = ModelCall<'a>;
    type Output = ToolOutcome;

    fn run<'a>(context: Self::Context<'a>, args: ApplyPatchArgs) -> ToolFuture<'a, ToolOutcome> {
        Box::pin(context.task.apply_patch_tool(context.call, args))
    }
}

/// `apply_patch` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub(crate) struct ApplyPatchArgs {
    /// The entire contents of the apply_patch command
    input: String,
}

enum PatchVerdict {
    Apply,
    ApplyForSession,
    Declined,
    Cancelled,
    Failed(String),
    Withdrawn,
}

impl TurnTask {
    /// `apply_patch` as a tool: the freeform input or the function's `input` argument.
    async fn apply_patch_tool(&mut self, call: &ToolCall, args: ApplyPatchArgs) -> ToolOutcome {
        let text = args.input;
        let cwd = PathBuf::from(&lock(&self.thread.state).meta.cwd);
        self.apply_patch_text(call, &text, &cwd, PatchForm::Tool)
            .await
    }

    /// Parses, plans, asks about and applies a patch relative to `cwd`.
    pub(super) async fn apply_patch_text(
        &mut self,
        call: &ToolCall,
        text: &str,
        cwd: &Path,
        form: PatchForm,
    ) -> ToolOutcome {
        let patch = match parse_patch(text) {
            Ok(patch) => patch,
            Err(error) => return call.reply(format!("apply_patch verification failed: {error}")),
        };
        let plan = match plan_patch(&patch, cwd) {
            Ok(plan) => plan,
            Err(error) => return call.reply(format!("apply_patch verification failed: {error}")),
        };
        let (policy, sandbox, thread_cwd) = {
            let state = lock(&self.thread.state);
            (
                state.meta.approval_policy,
                state.meta.sandbox.clone(),
                PathBuf::from(&state.meta.cwd),
            )
        };
        // Judged where each write really lands: a symbolic link that a command placed in the
        // workspace must not carry a patch outside the writable roots or the ceiling.
        let lexical = touched_paths(&plan);
        let (thread_cwd, paths) = {
            let fallback = (thread_cwd.clone(), lexical.clone());
            tokio::task::spawn_blocking(move || {
                let cwd = landing_path(&thread_cwd);
                let paths = lexical.iter().map(|path| landing_path(path)).collect();
                (cwd, paths)
            })
            .await
            .unwrap_or(fallback)
        };
        let approved_for_session = {
            let approved = lock(&self.thread.tools.approved_patch_paths);
            paths.iter().all(|path| approved.contains(path))
        } || (lock(&self.thread.tools.approved_tools)
            .contains("apply_patch")
            && paths.iter().all(|path| {
                path.starts_with(&thread_cwd)
                    && !path.components().any(|part| {
                        part == std::path::Component::ParentDir || part.as_os_str() == ".git"
                    })
            }));
        let within_ceiling = paths
            .iter()
            .all(|path| self.engine.access.may_write(&sandbox, &thread_cwd, path));
        let assessment = assess_patch(
            &policy,
            &sandbox,
            &thread_cwd,
            &paths,
            approved_for_session,
            within_ceiling,
        );
        if let PatchAssessment::Refuse(message) = &assessment {
            return call.reply(message.clone());
        }
        let started = self
            .start_item(ThreadItemDetails::FileChange {
                id: call.call_id.clone(),
                changes: plan.changes(),
                status: PatchApplyStatus::InProgress,
            })
            .await;
        if let PatchAssessment::Ask { reason } = assessment {
            self.set_waiting(Some(ThreadActiveFlag::WaitingOnApproval))
                .await;
            let verdict = self.ask_patch(call, &started, reason).await;
            // Interrupted while waiting: the turn's end announces the status.
            if !matches!(verdict, PatchVerdict::Withdrawn) {
                self.set_waiting(None).await;
            }
            let (status, output, interrupt) = match verdict {
                PatchVerdict::Apply => (None, String::new(), false),
                PatchVerdict::ApplyForSession => {
                    lock(&self.thread.tools.approved_patch_paths).extend(paths.iter().cloned());
                    lock(&self.thread.tools.approved_tools).insert("apply_patch".to_string());
                    (None, String::new(), false)
                }
                PatchVerdict::Declined => (
                    Some(PatchApplyStatus::Declined),
                    PATCH_DECLINED_OUTPUT.to_string(),
                    false,
                ),
                PatchVerdict::Cancelled => (
                    Some(PatchApplyStatus::Declined),
                    PATCH_DECLINED_OUTPUT.to_string(),
                    true,
                ),
                PatchVerdict::Failed(message) => (
                    Some(PatchApplyStatus::Failed),
                    format!("patch approval request failed: {message}"),
                    false,
                ),
                PatchVerdict::Withdrawn => {
                    return ToolOutcome {
                        output: call.output("aborted: the turn was interrupted"),
                        items: Vec::new(),
                        interrupt: true,
                        follow_up: Vec::new(),
                    };
                }
            };
            if let Some(status) = status {
                let item = self
                    .complete_item(&started, file_change(call, &plan, status))
                    .await;
                return ToolOutcome {
                    output: call.output(output),
                    items: vec![item],
                    interrupt,
                    follow_up: Vec::new(),
                };
            }
        }
        self.diff.track(&plan);
        // Writing and fsyncing the files is blocking I/O: it runs on the blocking pool.
        let applying = plan.clone();
        let (status, output) = match tokio::task::spawn_blocking(move || applying.apply()).await {
            Ok(Ok(applied)) => (
                PatchApplyStatus::Completed,
                success_output(&applied.summary(), form),
            ),
            Ok(Err(error)) => (PatchApplyStatus::Failed, error.to_string()),
            Err(error) => (
                PatchApplyStatus::Failed,
                format!("apply_patch failed: {error}"),
            ),
        };
        let item = self
            .complete_item(&started, file_change(call, &plan, status))
            .await;
        self.emit_turn_diff().await;
        ToolOutcome {
            output: call.output(output),
            items: vec![item],
            interrupt: false,
            follow_up: Vec::new(),
        }
    }

    async fn ask_patch(
        &self,
        call: &ToolCall,
        started: &ThreadItem,
        reason: Option<String>,
    ) -> PatchVerdict {
        let params = FileChangeRequestApprovalParams {
            thread_id: self.thread.id.clone(),
            turn_id: self.turn_id.clone(),
            item_id: call.call_id.clone(),
            started_at_ms: started.started_at_ms.unwrap_or_default(),
            reason,
            grant_root: None,
        };
        match self.ask(ApprovalRequest::FileChange(params)).await {
            ApprovalReply::Answered(ApprovalAnswer::FileChange(decision)) => match decision {
                FileChangeApprovalDecision::Accept => PatchVerdict::Apply,
                FileChangeApprovalDecision::AcceptForSession => PatchVerdict::ApplyForSession,
                FileChangeApprovalDecision::Decline => PatchVerdict::Declined,
                FileChangeApprovalDecision::Cancel => PatchVerdict::Cancelled,
            },
            ApprovalReply::Answered(other) => PatchVerdict::Failed(format!(
                "the client answered a file-change approval with {}",
                other.kind()
            )),
            ApprovalReply::Failed(message) => PatchVerdict::Failed(message),
            ApprovalReply::Withdrawn => PatchVerdict::Withdrawn,
        }
    }

    /// Sends the turn's aggregated diff, when the turn changed any file.
    pub async fn emit_turn_diff(&self) {
        let diff = self.diff.unified_diff();
        if diff.is_empty() {
            return;
        }
        self.engine
            .sink
            .emit(ServerNotification::TurnDiffUpdated(
                TurnDiffUpdatedNotification {
                    thread_id: self.thread.id.clone(),
                    turn_id: self.turn_id.clone(),
                    diff,
                },
            ))
            .await;
    }
}

/// Every absolute path the plan writes: sources, move destinations and deletions.
/// Where a write to `path` lands: every symbolic link among its existing ancestors (and the
/// file itself) followed, the components that do not exist yet appended as written.
fn landing_path(path: &Path) -> PathBuf {
    let mut existing = path;
    let mut missing = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            let mut landed = real;
            landed.extend(missing.iter().rev());
            return landed;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                missing.push(name.to_os_string());
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

fn touched_paths(plan: &PatchPlan) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for file in plan.files() {
        paths.push(file.path.clone());
        if let FileChangeKind::Update {
            move_path: Some(destination),
        } = &file.kind
        {
            paths.push(destination.clone());
        }
    }
    paths
}

fn file_change(call: &ToolCall, plan: &PatchPlan, status: PatchApplyStatus) -> ThreadItemDetails {
    ThreadItemDetails::FileChange {
        id: call.call_id.clone(),
        changes: plan.changes(),
        status,
    }
}

/// The success text the model gets (`model-wire.md` §2.3).
fn success_output(summary: &str, form: PatchForm) -> String {
    let inner = format!("Exit code: 0\nWall time: 0 seconds\nOutput:\n{summary}");
    match form {
        PatchForm::Tool => inner,
        PatchForm::Heredoc => format!("Wall time: 0.0000 seconds\nOutput:\n{inner}"),
    }
}
