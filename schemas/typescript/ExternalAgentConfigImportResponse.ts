// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `externalAgentConfig/import`; the outcome follows as
 * `externalAgentConfig/import/progress` (one per item) and
 * `externalAgentConfig/import/completed`.
 */
export type ExternalAgentConfigImportResponse = { 
/**
 * Names this import in its notifications.
 */
importId: string, };
