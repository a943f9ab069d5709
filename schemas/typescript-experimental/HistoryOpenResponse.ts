// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { HistoryWindowEvent } from "./HistoryWindowEvent";

/**
 * Result of `history/open`. A missing event is a result with `found: false`, not an error.
 * @experimental
 */
export type HistoryOpenResponse = { 
/**
 * Whether the event exists.
 */
found: boolean, 
/**
 * The requested event id.
 */
eventUid: string, 
/**
 * The target's session; `null` when not found.
 */
sessionId: string | null, 
/**
 * The target's turn number; `null` when not found.
 */
turnSeq: number | null, 
/**
 * The target's position; `null` when not found.
 */
eventOrder: number | null, 
/**
 * The effective `before`; `null` when not found.
 */
before: number | null, 
/**
 * The effective `after`; `null` when not found.
 */
after: number | null, 
/**
 * The window in conversation order (empty when not found).
 */
events: Array<HistoryWindowEvent>, };
