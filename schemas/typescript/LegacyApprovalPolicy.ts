// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Approval policy of the conversation API: the thread API's values plus the deprecated
 * `on-failure`, which Tandem treats as `on-request`.
 */
export type LegacyApprovalPolicy = "untrusted" | "on-failure" | "on-request" | "never";
