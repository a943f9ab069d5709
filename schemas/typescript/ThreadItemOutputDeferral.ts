// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Which saved outputs a client would rather fetch separately.
 */
export type ThreadItemOutputDeferral = { 
/**
 * Nonempty output of successful commands.
 */
commandExecution?: boolean | null, 
/**
 * Nonempty plain-text results of successful MCP tool calls.
 */
mcpToolCall?: boolean | null, };
