// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Result of `getAuthStatus` (legacy). Tandem has no OpenAI login: providers take their keys
 * from the environment, so the answer is always `{authMethod: null, authToken: null,
 * requiresOpenaiAuth: false}`.
 */
export type GetAuthStatusResponse = { 
/**
 * How the user is logged in; always `null` in Tandem.
 */
authMethod: JsonValue | null, 
/**
 * The login token; always `null` in Tandem.
 */
authToken: string | null, 
/**
 * Whether an OpenAI login is required; always `false` in Tandem.
 */
requiresOpenaiAuth: boolean | null, };
