// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Where an MCP server's startup stands.
 */
export type McpServerStartupState = "starting" | "ready" | "failed" | "cancelled";
