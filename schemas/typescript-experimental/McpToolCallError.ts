// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Why an MCP tool call produced no result.
 */
export type McpToolCallError = { 
/**
 * What went wrong (also what the model is told).
 */
message: string, };
