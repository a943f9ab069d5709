// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `listConversations`. Legacy.
 */
export type ListConversationsParams = { 
/**
 * Page size (default 25).
 */
pageSize?: number | null, 
/**
 * Opaque cursor from a previous page.
 */
cursor?: string | null, 
/**
 * Only conversations of these model providers.
 */
modelProviders?: Array<string> | null, };
