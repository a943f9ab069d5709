// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ParsedCommand } from "./ParsedCommand";

/**
 * Params of the server request `execCommandApproval`: may this command run? Legacy; sent
 * for conversations instead of `item/commandExecution/requestApproval`.
 */
export type ExecCommandApprovalParams = { 
/**
 * The conversation (thread) id.
 */
conversationId: string, 
/**
 * The model's call id.
 */
callId: string, 
/**
 * Approval id; `null` (one approval per call).
 */
approvalId: string | null, 
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
 * What the command does, as far as it could be parsed.
 */
parsedCmd: Array<ParsedCommand>, };
