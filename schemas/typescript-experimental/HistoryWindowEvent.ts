// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * One event of a `history/open` window. @experimental
 */
export type HistoryWindowEvent = { 
/**
 * `before`, `target` or `after`.
 */
position: string, 
/**
 * The event's id.
 */
eventUid: string, 
/**
 * Position in the session.
 */
eventOrder: number, 
/**
 * Turn number.
 */
turnSeq: number, 
/**
 * Turn id.
 */
turnId: string, 
/**
 * When the event was recorded (RFC 3339, UTC).
 */
timestamp: string, 
/**
 * The event class (as in [`HistorySearchHit::class`]).
 */
class: string, 
/**
 * The searchable text.
 */
text: string, 
/**
 * The rollout line's payload as recorded.
 */
payload: JsonValue, 
/**
 * Token usage in effect when the event was recorded; `null` before the first usage.
 */
tokenUsage: JsonValue, };
