// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Who reviews approval requests.
 */
export type ApprovalsReviewer = "user" | "auto_review" | "guardian_subagent";
