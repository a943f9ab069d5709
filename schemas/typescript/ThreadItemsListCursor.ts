// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadItemsListAnchor } from "./ThreadItemsListAnchor";

/**
 * Where a `thread/items/list` page starts.
 */
export type ThreadItemsListCursor = string | ThreadItemsListAnchor;
