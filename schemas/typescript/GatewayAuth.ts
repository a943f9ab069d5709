// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * How a gateway provider authenticates.
 */
export type GatewayAuth = { "mode": "none" } | { "mode": "environmentVariable", 
/**
 * The variable's name.
 */
envKey: string, } | { "mode": "externallyConfigured", 
/**
 * The variable's name, when one is also configured.
 */
envKey: string | null, };
