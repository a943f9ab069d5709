// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * What a command approval is about.
 */
export type CommandExecutionApprovalKind = "command" | "writeStdin" | "humanCommand";
