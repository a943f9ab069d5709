// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `model/list`.
 */
export type ModelListParams = { 
/**
 * Opaque cursor (a stringified offset).
 */
cursor?: string | null, 
/**
 * Page size.
 */
limit?: number | null, 
/**
 * Include hidden models.
 */
includeHidden?: boolean | null, 
/**
 * List this provider's models instead of the configured one's.
 */
modelProvider?: string | null, };
