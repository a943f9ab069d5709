// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `thread/settings/update` (empty); `thread/settings/updated` follows when a
 * setting changed.
 */
export type ThreadSettingsUpdateResponse = Record<symbol, never>;
