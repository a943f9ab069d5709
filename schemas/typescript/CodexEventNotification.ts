// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CodexEventMeta } from "./CodexEventMeta";
import type { EventMsg } from "./EventMsg";

/**
 * Params of `codex/event`: one Codex event with the envelope that says what it belongs to.
 */
export type CodexEventNotification = { 
/**
 * What the event belongs to.
 */
_meta: CodexEventMeta, 
/**
 * The turn id, or `""` for session-level events (`session_configured`,
 * `mcp_startup_complete`).
 */
id: string, 
/**
 * The event.
 */
msg: EventMsg, };
