// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { FileChangeApprovalDecision } from "./FileChangeApprovalDecision";

/**
 * Answer to `item/fileChange/requestApproval`.
 */
export type FileChangeRequestApprovalResponse = { 
/**
 * The decision.
 */
decision: FileChangeApprovalDecision, };
