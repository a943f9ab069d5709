// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `config/read`.
 */
export type ConfigReadParams = { 
/**
 * Also return each config layer.
 */
includeLayers?: boolean | null, 
/**
 * Resolve project-specific settings for this directory.
 */
cwd?: string | null, };
