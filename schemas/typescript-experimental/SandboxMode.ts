// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Sandbox mode chosen for a thread (`thread/start.sandbox`); kebab-case on the wire.
 */
export type SandboxMode = "read-only" | "workspace-write" | "danger-full-access";
