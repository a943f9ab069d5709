// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `account/read`.
 */
export type GetAccountParams = { 
/**
 * Refresh the login's token first; accepted and ignored (an API key has no token).
 */
refreshToken?: boolean, };
