// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CommandAction } from "./CommandAction";
import type { CommandExecutionApprovalDecision } from "./CommandExecutionApprovalDecision";
import type { CommandExecutionApprovalKind } from "./CommandExecutionApprovalKind";

/**
 * Parameters of `item/commandExecution/requestApproval`: may this command run?
 */
export type CommandExecutionRequestApprovalParams = { 
/**
 * What is being approved.
 */
kind: CommandExecutionApprovalKind, 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * The commandExecution item (the model's `call_id`).
 */
itemId: string, 
/**
 * When the item started (Unix milliseconds).
 */
startedAtMs: number, 
/**
 * Execution environment (`local`).
 */
environmentId: string | null, 
/**
 * Why approval is needed (for example, to run outside the sandbox).
 */
reason?: string | null, 
/**
 * The command, shell-joined.
 */
command?: string | null, 
/**
 * Working directory.
 */
cwd?: string | null, 
/**
 * What the command does.
 */
commandActions?: Array<CommandAction> | null, 
/**
 * Argv prefix that `acceptWithExecpolicyAmendment` would allow from now on.
 */
proposedExecpolicyAmendment?: Array<string> | null, 
/**
 * Decisions the client may answer with. @experimental
 */
availableDecisions?: Array<CommandExecutionApprovalDecision> | null, };
