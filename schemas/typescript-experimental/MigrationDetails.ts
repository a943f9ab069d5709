// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { NamedMigration } from "./NamedMigration";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * The names an item covers.
 */
export type MigrationDetails = { 
/**
 * Plugins; always empty.
 */
plugins: Array<JsonValue>, 
/**
 * Skills, by name.
 */
skills: Array<NamedMigration>, 
/**
 * Sessions; always empty.
 */
sessions: Array<JsonValue>, 
/**
 * MCP servers, by name.
 */
mcpServers: Array<NamedMigration>, 
/**
 * Hooks, by event name.
 */
hooks: Array<NamedMigration>, 
/**
 * Sub-agents; always empty.
 */
subagents: Array<NamedMigration>, 
/**
 * Commands; always empty.
 */
commands: Array<NamedMigration>, };
