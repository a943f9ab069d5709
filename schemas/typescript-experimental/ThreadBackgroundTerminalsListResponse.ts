// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadBackgroundTerminal } from "./ThreadBackgroundTerminal";

/**
 * Result of `thread/backgroundTerminals/list`, in the order the commands started.
 */
export type ThreadBackgroundTerminalsListResponse = { 
/**
 * The running commands of this page.
 */
data: Array<ThreadBackgroundTerminal>, 
/**
 * The cursor of the next page; `null` on the last one.
 */
nextCursor: string | null, };
