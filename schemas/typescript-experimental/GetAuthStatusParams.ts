// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `getAuthStatus` (legacy). Both fields are accepted and ignored.
 */
export type GetAuthStatusParams = { 
/**
 * Whether to include the token. Accepted and ignored: Tandem holds no login token.
 */
includeToken?: boolean | null, 
/**
 * Whether to refresh the token first. Accepted and ignored.
 */
refreshToken?: boolean | null, };
