// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { SortDirection } from "./SortDirection";
import type { TurnItemsView } from "./TurnItemsView";

/**
 * Parameters of `thread/turns/list`: a page of a thread's turns.
 */
export type ThreadTurnsListParams = { 
/**
 * Thread whose turns to list.
 */
threadId: string, 
/**
 * Opaque cursor from a previous page.
 */
cursor?: string | null, 
/**
 * Page size.
 */
limit?: number | null, 
/**
 * Order (default `desc`, newest first).
 */
sortDirection?: SortDirection | null, 
/**
 * Which items to include (default `summary`).
 */
itemsView?: TurnItemsView | null, };
