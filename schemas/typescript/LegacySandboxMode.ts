// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Sandbox mode of `newConversation`: the thread API's modes plus `external-sandbox`.
 */
export type LegacySandboxMode = "read-only" | "workspace-write" | "danger-full-access" | "external-sandbox";
