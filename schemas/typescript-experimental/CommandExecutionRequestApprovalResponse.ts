// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CommandExecutionApprovalDecision } from "./CommandExecutionApprovalDecision";

/**
 * Answer to `item/commandExecution/requestApproval`.
 */
export type CommandExecutionRequestApprovalResponse = { 
/**
 * The decision.
 */
decision: CommandExecutionApprovalDecision, };
