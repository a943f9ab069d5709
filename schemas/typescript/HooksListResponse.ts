// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { HooksListEntry } from "./HooksListEntry";

/**
 * Result of `hooks/list`.
 */
export type HooksListResponse = { 
/**
 * One entry per working directory.
 */
data: Array<HooksListEntry>, };
