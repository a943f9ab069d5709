// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ExternalAgentConfigMigrationItem } from "./ExternalAgentConfigMigrationItem";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Result of `externalAgentConfig/detect`.
 */
export type ExternalAgentConfigDetectResponse = { 
/**
 * What could be imported: home-scoped items first, then each repository's.
 */
items: Array<ExternalAgentConfigMigrationItem>, 
/**
 * Always empty: Tandem has no connectors.
 */
connectors: Array<JsonValue>, };
