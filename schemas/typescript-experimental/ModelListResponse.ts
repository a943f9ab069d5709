// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Model } from "./Model";

/**
 * Result of `model/list`.
 */
export type ModelListResponse = { 
/**
 * One page of models.
 */
data: Array<Model>, 
/**
 * Cursor of the next page; `null` on the last page.
 */
nextCursor: string | null, };
