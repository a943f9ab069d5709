// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ExternalAgentConfigImportItemTypeFailure } from "./ExternalAgentConfigImportItemTypeFailure";
import type { ExternalAgentConfigImportItemTypeSuccess } from "./ExternalAgentConfigImportItemTypeSuccess";
import type { ExternalAgentConfigMigrationItemType } from "./ExternalAgentConfigMigrationItemType";

/**
 * The outcome of importing one item.
 */
export type ExternalAgentConfigImportTypeResult = { 
/**
 * The item's kind.
 */
itemType: ExternalAgentConfigMigrationItemType, 
/**
 * What was imported.
 */
successes: Array<ExternalAgentConfigImportItemTypeSuccess>, 
/**
 * What was not, and why.
 */
failures: Array<ExternalAgentConfigImportItemTypeFailure>, };
