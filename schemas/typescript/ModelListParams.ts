// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `model/list`.
 */
export type ModelListParams = { 
/**
 * Opaque cursor: the `nextCursor` of the previous page (a stringified offset); anything
 * else is refused with `-32600 "invalid cursor: <cursor>"`.
 */
cursor?: string | null, 
/**
 * Page size (at least 1; every model when absent).
 */
limit?: number | null, 
/**
 * Tandem extension: the first-generation name of `limit`, accepted as its alias; when
 * both are sent, `limit` wins.
 */
pageSize?: number | null, 
/**
 * Include hidden models.
 */
includeHidden?: boolean | null, 
/**
 * List this provider's models instead of the configured one's.
 */
modelProvider?: string | null, };
