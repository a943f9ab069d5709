// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * One hit of `history/search`. @experimental
 */
export type HistorySearchHit = { 
/**
 * 1-based rank.
 */
rank: number, 
/**
 * The event's id; pass it to `history/open`.
 */
eventUid: string, 
/**
 * The session (thread) id.
 */
sessionId: string, 
/**
 * Position of the event in its session, from 0.
 */
eventOrder: number, 
/**
 * Turn number in the session, from 1.
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
 * `user_message`, `agent_message`, `reasoning`, `command`, `file_change`, `tool_call`,
 * `tool_output` or `error`.
 */
class: string, 
/**
 * BM25 score (rounded to 4 decimals).
 */
score: number, 
/**
 * Distinct query terms the event contains.
 */
matchedTerms: number, 
/**
 * Text around the first matching term, on one line.
 */
snippet: string, };
