// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { GatewayAuth } from "./GatewayAuth";

/**
 * The settings of a provider, by kind.
 */
export type ProviderSettings = { "type": "openai" } | { "type": "customGateway", 
/**
 * How it authenticates.
 */
auth: GatewayAuth, } | { "type": "bedrock", 
/**
 * The AWS profile.
 */
profile: string | null, 
/**
 * The AWS region.
 */
region: string | null, } | { "type": "gcp", 
/**
 * The credential file on the server's host.
 */
credentialFile: string | null, 
/**
 * The location.
 */
location: string | null, 
/**
 * The project.
 */
projectId: string | null, };
