// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `getAuthStatus` (legacy).
 */
export type GetAuthStatusParams = { 
/**
 * Whether to include the stored API key as `authToken`; honoured only where the operator
 * lets the server reveal stored credentials (`clients.reveal_credentials`).
 */
includeToken?: boolean | null, 
/**
 * Whether to refresh the token first. Accepted and ignored.
 */
refreshToken?: boolean | null, };
