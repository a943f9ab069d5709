// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A decision on a file change.
 */
export type FileChangeApprovalDecision = "accept" | "acceptForSession" | "decline" | "cancel";
