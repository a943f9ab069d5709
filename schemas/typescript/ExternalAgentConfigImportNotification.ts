// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ExternalAgentConfigImportTypeResult } from "./ExternalAgentConfigImportTypeResult";

/**
 * `externalAgentConfig/import/progress` and `externalAgentConfig/import/completed`.
 */
export type ExternalAgentConfigImportNotification = { 
/**
 * The import.
 */
importId: string, 
/**
 * What happened: one item's outcome in a progress notification, every item's in the
 * completion.
 */
itemTypeResults: Array<ExternalAgentConfigImportTypeResult>, };
