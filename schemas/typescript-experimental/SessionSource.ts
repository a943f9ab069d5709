// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Where a thread was created.
 */
export type SessionSource = "cli" | "vscode" | "exec" | "appServer" | "unknown" | { "custom": string };
