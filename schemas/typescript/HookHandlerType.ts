// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * What kind of handler a hook has.
 */
export type HookHandlerType = "command" | "mcpTool" | "prompt" | "agent";
