// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ActivePermissionProfile } from "./ActivePermissionProfile";
import type { EventDuration } from "./EventDuration";
import type { FileChange } from "./FileChange";
import type { MessagePhase } from "./MessagePhase";
import type { ParsedCommand } from "./ParsedCommand";
import type { PlanItem } from "./PlanItem";
import type { RateLimitSnapshot } from "./RateLimitSnapshot";
import type { ReasoningEffort } from "./ReasoningEffort";
import type { ReviewDecision } from "./ReviewDecision";
import type { TokenUsageInfo } from "./TokenUsageInfo";
import type { TurnItem } from "./TurnItem";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * One Codex event: what happened in a session, tagged by `type` (snake_case).
 */
export type EventMsg = { "type": "session_configured", 
/**
 * Session id; equal to `thread_id` for root threads.
 */
session_id: string, 
/**
 * Thread id.
 */
thread_id: string, 
/**
 * Model slug in effect.
 */
model: string, 
/**
 * Model provider id in effect.
 */
model_provider_id: string, 
/**
 * Approval policy in effect (`untrusted`, `on-request`, `never`).
 */
approval_policy: string, 
/**
 * Who reviews approvals; always `user` in Tandem.
 */
approvals_reviewer: string, 
/**
 * The sandbox as a permission profile: file-system entries and network access.
 */
permission_profile: JsonValue, 
/**
 * The named profile in effect (`:read-only`, `:workspace-write`,
 * `:danger-full-access`).
 */
active_permission_profile: ActivePermissionProfile, 
/**
 * Working directory (absolute).
 */
cwd: string, 
/**
 * Reasoning effort in effect, when one is set.
 */
reasoning_effort?: ReasoningEffort, 
/**
 * Absolute path of the rollout file; `null` for ephemeral threads.
 */
rollout_path: string | null, } | { "type": "mcp_startup_complete", 
/**
 * Servers that started.
 */
ready: Array<string>, 
/**
 * Servers that failed to start.
 */
failed: Array<JsonValue>, 
/**
 * Servers whose start was cancelled.
 */
cancelled: Array<string>, } | { "type": "warning", 
/**
 * The warning.
 */
message: string, } | { "type": "error", 
/**
 * The error message.
 */
message: string, } | { "type": "task_started", 
/**
 * Turn id.
 */
turn_id: string, 
/**
 * Start time (Unix seconds).
 */
started_at: number | null, 
/**
 * The model's context window in tokens, when known.
 */
model_context_window: number | null, 
/**
 * Collaboration mode of the turn (`default` or `plan`).
 */
collaboration_mode_kind: string, } | { "type": "item_started", 
/**
 * Thread id.
 */
thread_id: string, 
/**
 * Turn id.
 */
turn_id: string, 
/**
 * The item as it starts.
 */
item: TurnItem, 
/**
 * Start time (Unix milliseconds).
 */
started_at_ms: number, } | { "type": "item_completed", 
/**
 * Thread id.
 */
thread_id: string, 
/**
 * Turn id.
 */
turn_id: string, 
/**
 * The item's final state.
 */
item: TurnItem, 
/**
 * Start time (Unix milliseconds).
 */
started_at_ms: number, 
/**
 * Completion time (Unix milliseconds).
 */
completed_at_ms: number, } | { "type": "user_message", 
/**
 * The text of the message (text inputs joined).
 */
message: string, 
/**
 * Image URLs of the message.
 */
images: Array<string>, 
/**
 * Local image paths of the message.
 */
local_images: Array<string>, 
/**
 * Audio URLs; always empty in Tandem.
 */
audio: Array<string>, 
/**
 * Local audio paths; always empty in Tandem.
 */
local_audio: Array<string>, 
/**
 * UI elements of the text; always empty in Tandem.
 */
text_elements: Array<JsonValue>, } | { "type": "agent_message_content_delta", 
/**
 * Thread id.
 */
thread_id: string, 
/**
 * Turn id.
 */
turn_id: string, 
/**
 * The agent message item's id.
 */
item_id: string, 
/**
 * The appended text.
 */
delta: string, } | { "type": "agent_message", 
/**
 * The whole text.
 */
message: string, 
/**
 * Commentary or final answer, when the model says so.
 */
phase: MessagePhase | null, 
/**
 * Memory citation; always `null` in Tandem.
 */
memory_citation: JsonValue | null, } | { "type": "agent_reasoning_delta", 
/**
 * The appended text.
 */
delta: string, } | { "type": "agent_reasoning_raw_content_delta", 
/**
 * The appended text.
 */
delta: string, } | { "type": "agent_reasoning", 
/**
 * The summary text.
 */
text: string, } | { "type": "exec_approval_request", 
/**
 * Always `command`.
 */
kind: string, 
/**
 * The model's call id.
 */
call_id: string, 
/**
 * Turn id.
 */
turn_id: string, 
/**
 * Execution environment; always `local`.
 */
environmentId: string, 
/**
 * When the request was made (Unix milliseconds).
 */
started_at_ms: number, 
/**
 * The command as argv.
 */
command: Array<string>, 
/**
 * Working directory.
 */
cwd: string, 
/**
 * Why approval is needed.
 */
reason: string | null, 
/**
 * The prefix that `approved_execpolicy_amendment` would allow from now on.
 */
proposed_execpolicy_amendment: Array<string> | null, 
/**
 * The decisions the client may answer with.
 */
available_decisions: Array<ReviewDecision>, 
/**
 * What the command does, as far as it could be parsed.
 */
parsed_cmd: Array<ParsedCommand>, } | { "type": "exec_command_begin", 
/**
 * The model's call id.
 */
call_id: string, 
/**
 * Process id, when known.
 */
process_id: string | null, 
/**
 * Turn id.
 */
turn_id: string, 
/**
 * Start time (Unix milliseconds).
 */
started_at_ms: number, 
/**
 * The command as argv.
 */
command: Array<string>, 
/**
 * Working directory as a `file://` URL, as Codex sends it.
 */
cwd: string, 
/**
 * What the command does, as far as it could be parsed.
 */
parsed_cmd: Array<ParsedCommand>, 
/**
 * What started the command (`agent`, `unified_exec_startup`, …).
 */
source: string, } | { "type": "exec_command_output_delta", 
/**
 * The model's call id.
 */
call_id: string, 
/**
 * `stdout` (Tandem captures stdout and stderr interleaved).
 */
stream: string, 
/**
 * The bytes, base64-encoded.
 */
chunk: string, } | { "type": "exec_command_end", 
/**
 * The model's call id.
 */
call_id: string, 
/**
 * Process id, when known.
 */
process_id: string | null, 
/**
 * Turn id.
 */
turn_id: string, 
/**
 * End time (Unix milliseconds).
 */
completed_at_ms: number, 
/**
 * The command as argv.
 */
command: Array<string>, 
/**
 * Working directory as a `file://` URL, as Codex sends it.
 */
cwd: string, 
/**
 * What the command does, as far as it could be parsed.
 */
parsed_cmd: Array<ParsedCommand>, 
/**
 * What started the command.
 */
source: string, 
/**
 * Standard output. Tandem captures stdout and stderr interleaved, so this is the
 * whole output.
 */
stdout: string, 
/**
 * Standard error; empty in Tandem (see `stdout`).
 */
stderr: string, 
/**
 * stdout and stderr interleaved.
 */
aggregated_output: string, 
/**
 * Exit code (`-1` when the command did not exit by itself).
 */
exit_code: number, 
/**
 * Run time.
 */
duration: EventDuration, 
/**
 * The output as the model saw it.
 */
formatted_output: string, 
/**
 * `completed`, `failed` or `declined`.
 */
status: string, } | { "type": "apply_patch_approval_request", 
/**
 * The model's call id.
 */
call_id: string, 
/**
 * Turn id.
 */
turn_id: string, 
/**
 * When the request was made (Unix milliseconds).
 */
started_at_ms: number, 
/**
 * The changes by absolute path.
 */
changes: { [key in string]: FileChange }, 
/**
 * Why approval is needed.
 */
reason?: string, 
/**
 * A directory the patch would make writable for the rest of the session.
 */
grant_root?: string, } | { "type": "patch_apply_begin", 
/**
 * The model's call id.
 */
call_id: string, 
/**
 * Turn id.
 */
turn_id: string, 
/**
 * Whether it was applied without asking the user.
 */
auto_approved: boolean, 
/**
 * The changes by absolute path.
 */
changes: { [key in string]: FileChange }, } | { "type": "patch_apply_end", 
/**
 * The model's call id.
 */
call_id: string, 
/**
 * Turn id.
 */
turn_id: string, 
/**
 * The summary the model saw (`Success. Updated the following files: …`).
 */
stdout: string, 
/**
 * Why it failed, if it did.
 */
stderr: string, 
/**
 * Whether every change was written.
 */
success: boolean, 
/**
 * The changes by absolute path.
 */
changes: { [key in string]: FileChange }, 
/**
 * `completed`, `failed` or `declined`.
 */
status: string, } | { "type": "turn_diff", 
/**
 * The unified diff of the turn so far.
 */
unified_diff: string, } | { "type": "plan_update", 
/**
 * Why the plan changed.
 */
explanation: string | null, 
/**
 * The steps.
 */
plan: Array<PlanItem>, } | { "type": "plan_delta", 
/**
 * The thread.
 */
thread_id: string, 
/**
 * The turn.
 */
turn_id: string, 
/**
 * The plan item.
 */
item_id: string, 
/**
 * Text appended to the plan.
 */
delta: string, } | { "type": "patch_apply_updated", 
/**
 * The patch's call id (its `fileChange` item).
 */
call_id: string, 
/**
 * The changes by absolute path.
 */
changes: { [key in string]: FileChange }, } | { "type": "mcp_tool_call_progress", 
/**
 * The call id (its `mcpToolCall` item).
 */
call_id: string, 
/**
 * The server's message, or its progress as numbers.
 */
message: string, } | { "type": "terminal_interaction", 
/**
 * The command's call id (its `commandExecution` item).
 */
call_id: string, 
/**
 * The command's session id, as the model names it.
 */
process_id: string, 
/**
 * What was written to its stdin; empty for a poll.
 */
stdin: string, } | { "type": "context_compacted", } | { "type": "token_count", 
/**
 * Usage totals; `null` before the first response.
 */
info: TokenUsageInfo | null, 
/**
 * Rate limits; Tandem reports none, so every window is `null`.
 */
rate_limits: RateLimitSnapshot | null, } | { "type": "task_complete", 
/**
 * Turn id.
 */
turn_id: string, 
/**
 * The last agent message of the turn.
 */
last_agent_message: string | null, 
/**
 * Start time (Unix seconds).
 */
started_at: number | null, 
/**
 * Completion time (Unix seconds).
 */
completed_at: number | null, 
/**
 * Duration in milliseconds.
 */
duration_ms: number | null, 
/**
 * Time from the turn's start to the first streamed token, in milliseconds.
 */
time_to_first_token_ms: number | null, } | { "type": "turn_aborted", 
/**
 * Turn id.
 */
turn_id: string, 
/**
 * `interrupted` or `failed`.
 */
reason: string, 
/**
 * Start time (Unix seconds).
 */
started_at: number | null, 
/**
 * Completion time (Unix seconds).
 */
completed_at: number | null, 
/**
 * Duration in milliseconds.
 */
duration_ms: number | null, };
