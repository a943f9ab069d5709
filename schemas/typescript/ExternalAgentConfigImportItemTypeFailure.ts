// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ExternalAgentConfigMigrationItemType } from "./ExternalAgentConfigMigrationItemType";

/**
 * One thing not imported.
 */
export type ExternalAgentConfigImportItemTypeFailure = { 
/**
 * Its kind.
 */
itemType: ExternalAgentConfigMigrationItemType, 
/**
 * Its repository; `null` for the home.
 */
cwd: string | null, 
/**
 * What was to be read.
 */
source: string | null, 
/**
 * Where it failed: `read` or `write`.
 */
failureStage: string, 
/**
 * Why.
 */
message: string, 
/**
 * Always `null`.
 */
errorType: string | null, 
/**
 * Always `null`.
 */
subErrorType: string | null, };
