// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ExternalAgentConfigMigrationItemType } from "./ExternalAgentConfigMigrationItemType";

/**
 * One thing imported.
 */
export type ExternalAgentConfigImportItemTypeSuccess = { 
/**
 * Its kind.
 */
itemType: ExternalAgentConfigMigrationItemType, 
/**
 * Its repository; `null` for the home.
 */
cwd: string | null, 
/**
 * What was read (a file, or a server, skill or event name).
 */
source: string | null, 
/**
 * What was written (a file, or the name in `config.toml`).
 */
target: string | null, 
/**
 * Always `null` (sessions are not imported).
 */
title: string | null, };
