// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { AuthMode } from "./AuthMode";

/**
 * Result of `getAuthStatus` (legacy): the same login state as `account/read`.
 */
export type GetAuthStatusResponse = { 
/**
 * How the user is logged in: `apikey` when a key is stored in `auth.json` or the default
 * provider's key variable is set, `null` otherwise.
 */
authMethod: AuthMode | null, 
/**
 * The API key in use, when `includeToken` is true and the server reveals stored
 * credentials (`clients.reveal_credentials`: on by default only for `tandem app-server`
 * on stdio, never on a network listener); `null` otherwise.
 */
authToken: string | null, 
/**
 * Whether the default provider needs an API key (it declares `env_key`).
 */
requiresOpenaiAuth: boolean | null, };
