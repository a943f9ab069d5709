// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * The kinds of things an import covers. Tandem imports `AGENTS_MD`, `SKILLS`,
 * `MCP_SERVER_CONFIG` and `HOOKS`; the others fail as not supported.
 */
export type ExternalAgentConfigMigrationItemType = "AGENTS_MD" | "CONFIG" | "SKILLS" | "PLUGINS" | "MCP_SERVER_CONFIG" | "SUBAGENTS" | "HOOKS" | "COMMANDS" | "MEMORY" | "SESSIONS";
