// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CommandAction } from "./CommandAction";
import type { CommandExecutionSource } from "./CommandExecutionSource";
import type { CommandExecutionStatus } from "./CommandExecutionStatus";
import type { DynamicToolCallOutputContentItem } from "./DynamicToolCallOutputContentItem";
import type { DynamicToolCallStatus } from "./DynamicToolCallStatus";
import type { FileUpdateChange } from "./FileUpdateChange";
import type { HookPromptFragment } from "./HookPromptFragment";
import type { McpToolCallError } from "./McpToolCallError";
import type { McpToolCallResult } from "./McpToolCallResult";
import type { McpToolCallStatus } from "./McpToolCallStatus";
import type { MessagePhase } from "./MessagePhase";
import type { PatchApplyStatus } from "./PatchApplyStatus";
import type { UserInput } from "./UserInput";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * One unit of a turn's content, with its lifecycle times. The payload stays flat on the wire:
 * `{"type": "agentMessage", "id": …, …, "startedAtMs": …, "completedAtMs": …}`.
 */
export type ThreadItem = { 
/**
 * When the item started (Unix milliseconds).
 */
startedAtMs: number | null, 
/**
 * When the item completed (Unix milliseconds); `null` while in progress.
 */
completedAtMs: number | null, } & ({ "type": "userMessage", 
/**
 * Item id (UUIDv7).
 */
id: string, 
/**
 * Client-chosen id of the message (`clientUserMessageId`).
 */
clientId: string | null, 
/**
 * The inputs, echoed with defaults filled in.
 */
content: Array<UserInput>, } | { "type": "agentMessage", 
/**
 * Moderation result; always `null` in Tandem.
 */
moderation: JsonValue | null, 
/**
 * Item id, as given by the model stream (for example `msg_2`).
 */
id: string, 
/**
 * The full text so far (`""` in `item/started`).
 */
text: string, 
/**
 * Whether this is commentary or the final answer, when the model says so.
 */
phase: MessagePhase | null, 
/**
 * Memory citation; always `null` in Tandem.
 */
memoryCitation: JsonValue | null, 
/**
 * Delivery mode; always `null` in Tandem.
 */
delivery: string | null, 
/**
 * Questions attached to the message; always `null` in Tandem.
 */
questions: JsonValue | null, } | { "type": "plan", 
/**
 * Item id.
 */
id: string, 
/**
 * The plan.
 */
text: string, } | { "type": "reasoning", 
/**
 * Item id, as given by the model stream (for example `rs_8`).
 */
id: string, 
/**
 * Summary parts (`item/reasoning/summaryTextDelta`).
 */
summary: Array<string>, 
/**
 * Raw reasoning parts (`item/reasoning/textDelta`).
 */
content: Array<string>, } | { "type": "commandExecution", 
/**
 * Item id: the model's `call_id`.
 */
id: string, 
/**
 * Plugin that ran the command; always `null` in Tandem.
 */
pluginId: string | null, 
/**
 * Script path; always `null` in Tandem.
 */
scriptPath: string | null, 
/**
 * The command, shell-joined (`/bin/bash -c '…'`).
 */
command: string, 
/**
 * Working directory (absolute).
 */
cwd: string, 
/**
 * Process id once the command runs.
 */
processId: string | null, 
/**
 * What started the command.
 */
source: CommandExecutionSource, 
/**
 * Lifecycle status.
 */
status: CommandExecutionStatus, 
/**
 * What the command does, as far as it could be parsed.
 */
commandActions: Array<CommandAction>, 
/**
 * stdout and stderr interleaved; `null` until the command ran.
 */
aggregatedOutput: string | null, 
/**
 * Exit code; `null` until the command ran.
 */
exitCode: number | null, 
/**
 * Run time in milliseconds; `null` until the command ran.
 */
durationMs: number | null, } | { "type": "fileChange", 
/**
 * Item id: the model's `call_id`.
 */
id: string, 
/**
 * One entry per file.
 */
changes: Array<FileUpdateChange>, 
/**
 * Lifecycle status.
 */
status: PatchApplyStatus, } | { "type": "dynamicToolCall", 
/**
 * Item id: the model's `call_id`.
 */
id: string, 
/**
 * The namespace a client-declared tool belongs to; `null` for a top-level tool.
 */
namespace: string | null, 
/**
 * Tool name, as the model called it.
 */
tool: string, 
/**
 * The arguments as the model sent them (`null` when they were not valid JSON).
 */
arguments: JsonValue, 
/**
 * Lifecycle status.
 */
status: DynamicToolCallStatus, 
/**
 * What the tool returned to the model; `null` while in progress.
 */
contentItems: Array<DynamicToolCallOutputContentItem> | null, 
/**
 * Whether the call succeeded; `null` while in progress.
 */
success: boolean | null, 
/**
 * Run time in milliseconds; `null` while in progress.
 */
durationMs: number | null, } | { "type": "mcpToolCall", 
/**
 * Item id: the model's `call_id`.
 */
id: string, 
/**
 * The server's name under `[mcp_servers]`.
 */
server: string, 
/**
 * The tool's name on the server.
 */
tool: string, 
/**
 * Lifecycle status.
 */
status: McpToolCallStatus, 
/**
 * The arguments the model passed.
 */
arguments: JsonValue, 
/**
 * App context; always `null` in Tandem.
 */
appContext: JsonValue | null, 
/**
 * MCP app resource; always `null` in Tandem.
 */
mcpAppResourceUri?: string | null, 
/**
 * MCP app UI; always `null` in Tandem.
 */
mcpAppUi: JsonValue | null, 
/**
 * Plugin; always `null` in Tandem.
 */
pluginId: string | null, 
/**
 * Whether the server marks the tool read-only (`annotations.readOnlyHint`).
 */
readOnlyHint: boolean | null, 
/**
 * The server's result once completed; `null` otherwise.
 */
result: McpToolCallResult | null, 
/**
 * Why the call failed; `null` otherwise.
 */
error: McpToolCallError | null, 
/**
 * Time from the call to its end in milliseconds; `null` while in progress.
 */
durationMs: number | null, } | { "type": "imageView", 
/**
 * Item id.
 */
id: string, 
/**
 * Absolute path of the image.
 */
path: string, } | { "type": "contextCompaction", 
/**
 * Item id.
 */
id: string, } | { "type": "hookPrompt", 
/**
 * Item id.
 */
id: string, 
/**
 * One reason per hook run that blocked.
 */
fragments: Array<HookPromptFragment>, } | { "type": "enteredReviewMode", 
/**
 * Item id.
 */
id: string, 
/**
 * What is reviewed, in a few words (`current changes`, `commit 1a2b3c4`, …).
 */
review: string, } | { "type": "exitedReviewMode", 
/**
 * Item id.
 */
id: string, 
/**
 * The review as text: the overall explanation, then each finding with its title,
 * location and body (or why there is no review).
 */
review: string, });
