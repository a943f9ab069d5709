// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { IndexProgressPhase } from "./IndexProgressPhase";

/**
 * Progress of the refresh run by an `index/refresh` or `index/query` request, sent to the
 * connection that made it, before its response. Lossy: a slow client may miss some.
 * @experimental
 */
export type IndexProgressNotification = { 
/**
 * The repository being refreshed, as the request named it (resolved against the server's
 * working directory, not canonicalised).
 */
repoRoot: string, 
/**
 * The phase.
 */
phase: IndexProgressPhase, 
/**
 * Units done in this phase: files found (`scanning`), changed files indexed (`indexing`)
 * or chunks embedded (`embedding`).
 */
done: number, 
/**
 * Units of this phase in all; `null` while scanning, whose total is not known in advance.
 */
total: number | null, };
