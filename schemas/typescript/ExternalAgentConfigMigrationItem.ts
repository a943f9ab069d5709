// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ExternalAgentConfigMigrationItemType } from "./ExternalAgentConfigMigrationItemType";
import type { MigrationDetails } from "./MigrationDetails";

/**
 * One thing that can be imported.
 */
export type ExternalAgentConfigMigrationItem = { 
/**
 * What kind of thing it is.
 */
itemType: ExternalAgentConfigMigrationItemType, 
/**
 * What importing it does, for the user.
 */
description: string, 
/**
 * The repository it belongs to; `null` (or empty) for the user's home.
 */
cwd: string | null, 
/**
 * The names it covers (servers, hooks' events, skills), when it has several.
 */
details: MigrationDetails | null, };
