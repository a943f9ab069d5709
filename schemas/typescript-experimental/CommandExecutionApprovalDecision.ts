// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A decision on a command.
 */
export type CommandExecutionApprovalDecision = "accept" | "acceptForSession" | { "acceptWithExecpolicyAmendment": { 
/**
 * The argv prefix (snake_case on the wire).
 */
execpolicy_amendment: Array<string>, } } | "decline" | "cancel";
