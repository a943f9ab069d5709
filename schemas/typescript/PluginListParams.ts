// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `plugin/list`.
 */
export type PluginListParams = { 
/**
 * Working directories whose repository marketplaces to list (Tandem has none).
 */
cwds?: Array<string> | null, 
/**
 * Accepted for compatibility: there is no remote catalogue to fetch.
 */
forceRefetch?: boolean | null, 
/**
 * Marketplace kinds to list; only `local` is served, any other (a remote catalogue)
 * answers "not supported by this server".
 */
marketplaceKinds?: Array<string> | null, };
