// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { SortDirection } from "./SortDirection";
import type { ThreadListCwdFilter } from "./ThreadListCwdFilter";
import type { ThreadSortKey } from "./ThreadSortKey";
import type { ThreadSourceKind } from "./ThreadSourceKind";

/**
 * Parameters of `thread/list`. Every field is optional.
 */
export type ThreadListParams = { 
/**
 * Opaque cursor from a previous page's `nextCursor`.
 */
cursor?: string | null, 
/**
 * Page size (at least 1); omitted means every thread.
 */
limit?: number | null, 
/**
 * Sort key (default `created_at`).
 */
sortKey?: ThreadSortKey | null, 
/**
 * Sort direction (default `desc`, newest first).
 */
sortDirection?: SortDirection | null, 
/**
 * Only threads of these providers.
 */
modelProviders?: Array<string> | null, 
/**
 * Only threads from these sources; omitted or empty means interactive ones (`cli`, `vscode`).
 */
sourceKinds?: Array<ThreadSourceKind> | null, 
/**
 * Only threads created by these clients (`clientInfo.name`).
 */
originators?: Array<string> | null, 
/**
 * `true`: archived threads only; otherwise non-archived only.
 */
archived?: boolean | null, 
/**
 * Only threads with this working directory (or one of these).
 */
cwd?: ThreadListCwdFilter | null, 
/**
 * Case-sensitive substring of the name or preview.
 */
searchTerm?: string | null, 
/**
 * Threads to leave out.
 */
excludedThreadIds?: Array<string> | null, 
/**
 * Only threads of this section (`threadSection/*`); `null` means threads of no section,
 * and leaving it out means every thread.
 */
sectionId?: string | null, 
};
