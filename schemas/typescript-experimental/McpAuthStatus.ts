// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * How an MCP server authenticates.
 */
export type McpAuthStatus = "unsupported" | "notLoggedIn" | "bearerToken" | "oAuth";
