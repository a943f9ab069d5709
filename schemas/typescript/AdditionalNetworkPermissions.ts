// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Network access asked for or granted.
 */
export type AdditionalNetworkPermissions = { 
/**
 * `true` to ask for (or grant) network access for commands.
 */
enabled?: boolean | null, };
