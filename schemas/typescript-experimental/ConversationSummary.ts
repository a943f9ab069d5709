// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { GitInfo } from "./GitInfo";
import type { SessionSource } from "./SessionSource";

/**
 * A stored thread as the first-generation conversation API describes it.
 */
export type ConversationSummary = { 
/**
 * Thread id.
 */
conversationId: string, 
/**
 * Absolute path of the rollout file.
 */
path: string, 
/**
 * The first user message; `""` before the first turn.
 */
preview: string, 
/**
 * Creation time, RFC 3339 UTC with milliseconds (Tandem stores it to the second, so the
 * milliseconds are `000`).
 */
timestamp: string | null, 
/**
 * Last update time, RFC 3339 UTC with milliseconds.
 */
updatedAt: string | null, 
/**
 * Model provider id.
 */
modelProvider: string, 
/**
 * Working directory (absolute).
 */
cwd: string, 
/**
 * Version of the server protocol that created the thread.
 */
cliVersion: string, 
/**
 * Where the thread was created.
 */
source: SessionSource, 
/**
 * Git metadata of the working directory, when known.
 */
gitInfo: GitInfo | null, };
