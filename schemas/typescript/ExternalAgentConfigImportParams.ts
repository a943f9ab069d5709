// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ExternalAgentConfigMigrationItem } from "./ExternalAgentConfigMigrationItem";

/**
 * Parameters of `externalAgentConfig/import`.
 */
export type ExternalAgentConfigImportParams = { 
/**
 * The items to import, as `externalAgentConfig/detect` gave them (at most 256).
 */
migrationItems: Array<ExternalAgentConfigMigrationItem>, 
/**
 * Accepted for compatibility and ignored.
 */
migrationSource?: string | null, 
/**
 * Accepted for compatibility and ignored.
 */
providerId?: string | null, 
/**
 * Accepted for compatibility and ignored.
 */
source?: string | null, };
