// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `mcpServerStatus/list`.
 */
export type ListMcpServerStatusParams = { 
/**
 * Opaque cursor from a previous page's `nextCursor`.
 */
cursor?: string | null, 
/**
 * Page size (default: all).
 */
limit?: number | null, 
/**
 * Tandem extension: the loaded thread whose servers to report (each thread runs its own
 * servers). Without it, the most recently started loaded thread's servers, or the
 * configured servers with no tools when no thread is loaded.
 */
threadId?: string | null, };
