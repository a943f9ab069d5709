// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { PermissionProfileSummary } from "./PermissionProfileSummary";

/**
 * Result of `permissionProfile/list`.
 */
export type PermissionProfileListResponse = { 
/**
 * The profiles of this page.
 */
data: Array<PermissionProfileSummary>, 
/**
 * Cursor of the next page; `null` on the last.
 */
nextCursor: string | null, };
