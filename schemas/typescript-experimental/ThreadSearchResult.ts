// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Thread } from "./Thread";

/**
 * One thread found by `thread/search`.
 */
export type ThreadSearchResult = { 
/**
 * The text around the thread's best match.
 */
snippet: string, 
/**
 * The thread, without its turns.
 */
thread: Thread, };
