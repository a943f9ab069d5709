// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * A stored conversation.
 */
export type ConversationSummary = { 
/**
 * The conversation (thread) id.
 */
conversationId: string, 
/**
 * Absolute path of the rollout file.
 */
path: string, 
/**
 * The first user message.
 */
preview: string, 
/**
 * Creation time (RFC 3339).
 */
timestamp: string | null, 
/**
 * Last update time (RFC 3339).
 */
updatedAt: string | null, 
/**
 * Model provider id.
 */
modelProvider: string, 
/**
 * Working directory.
 */
cwd: string, 
/**
 * Version of the server that created it.
 */
cliVersion: string, 
/**
 * Who created it (`vscode`, `cli`, `exec`, `mcp`, …).
 */
source: JsonValue, 
/**
 * Git state at creation; `null` when unknown.
 */
gitInfo: JsonValue | null, };
