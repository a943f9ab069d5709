// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Counts of one refresh. @experimental
 */
export type IndexRefreshStats = { 
/**
 * Files the walk found (after ignore rules and globs).
 */
scannedFiles: number, 
/**
 * Files (re)indexed because they are new or their content changed.
 */
updatedFiles: number, 
/**
 * Files removed from the index because they are gone.
 */
removedFiles: number, 
/**
 * Chunks in the index after the refresh.
 */
indexedChunks: number, 
/**
 * Files skipped: unreadable, binary or not UTF-8.
 */
skippedFiles: number, 
/**
 * Chunks embedded by this refresh.
 */
embeddedChunks: number, };
