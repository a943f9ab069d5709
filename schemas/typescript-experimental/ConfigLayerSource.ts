// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A config layer's origin (tagged by `type`).
 */
export type ConfigLayerSource = { "type": "user", 
/**
 * Path of the file.
 */
file: string, 
/**
 * Active profile.
 */
profile: string | null, } | { "type": "sessionFlags" } | { "type": "default" };
