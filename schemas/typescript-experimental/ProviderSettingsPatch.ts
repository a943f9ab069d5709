// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A change to one provider's settings; fields left out keep their value, `null` clears.
 */
export type ProviderSettingsPatch = { "type": "customGateway", 
/**
 * The provider to change; left out or `null` defines a new one.
 */
providerId?: string | null, 
/**
 * Its display name.
 */
name?: string, 
/**
 * Its endpoint (`null` clears it).
 */
baseUrl?: string | null, 
/**
 * The variable holding its key (`null` clears it).
 */
envKey?: string | null, } | { "type": "bedrock", 
/**
 * The provider to change.
 */
providerId: string, 
/**
 * The AWS profile.
 */
profile?: string | null, 
/**
 * The AWS region.
 */
region?: string | null, } | { "type": "gcp", 
/**
 * The provider to change.
 */
providerId: string, 
/**
 * The credential file on the server's host.
 */
credentialFile?: string | null, 
/**
 * The location.
 */
location?: string | null, 
/**
 * The project.
 */
projectId?: string | null, };
