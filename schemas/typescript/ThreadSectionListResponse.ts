// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadSection } from "./ThreadSection";

/**
 * Result of `threadSection/list`.
 */
export type ThreadSectionListResponse = { 
/**
 * This page's sections.
 */
data: Array<ThreadSection>, 
/**
 * The cursor of the next page; `null` on the last one.
 */
nextCursor: string | null, };
