// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `getUserAgent`.
 */
export type GetUserAgentResponse = { 
/**
 * The user agent the server sends to model providers.
 */
userAgent: string, };
