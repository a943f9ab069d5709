// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { RequestId } from "./RequestId";

/**
 * The envelope of a `codex/event`.
 */
export type CodexEventMeta = { 
/**
 * Over MCP, the id of the `tools/call` request whose turn produced the event; on the
 * app-server, the id of the `sendUserMessage` / `sendUserTurn` request that started the
 * turn. `null` for events that belong to no request.
 */
requestId: RequestId | null, 
/**
 * The thread (conversation) the event belongs to.
 */
threadId: string, };
