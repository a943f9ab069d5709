// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { AuthMode } from "./AuthMode";

/**
 * Params of `authStatusChange` (legacy): the auth mode changed (sent with `account/updated`).
 */
export type AuthStatusChangeNotification = { 
/**
 * The new auth mode; `null` after a logout.
 */
authMethod: AuthMode | null, };
