// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { GitInfo } from "./GitInfo";
import type { ReasoningEffort } from "./ReasoningEffort";
import type { SessionSource } from "./SessionSource";
import type { ThreadHistoryMode } from "./ThreadHistoryMode";
import type { ThreadSection } from "./ThreadSection";
import type { ThreadStatus } from "./ThreadStatus";
import type { Turn } from "./Turn";

/**
 * A conversation: its metadata, status and (when requested) its turns.
 */
export type Thread = { 
/**
 * Thread id (UUIDv7, lowercase, hyphenated).
 */
id: string, 
/**
 * Session id; equal to `id` for root threads.
 */
sessionId: string, 
/**
 * Id of the thread this one was forked from.
 */
forkedFromId: string | null, 
/**
 * Id of the parent thread for sub-agent threads; `null` for root threads.
 */
parentThreadId: string | null, 
/**
 * The first user message, used as a preview; `""` before the first turn.
 */
preview: string, 
/**
 * Ephemeral threads are never written to disk and are not listed.
 */
ephemeral: boolean, 
/**
 * The section the thread's owner put it in (`thread/section/move`), if any.
 */
section: ThreadSection | null, 
/**
 * When the thread entered its section (Unix seconds); `null` outside a section.
 */
sectionEnteredAt: number | null, 
/**
 * Project id; always `null` in Tandem.
 */
projectId: string | null, 
/**
 * How history is stored; new threads are `paginated`.
 */
historyMode: ThreadHistoryMode, 
/**
 * Model provider id (a key of `model_providers` in config.toml).
 */
modelProvider: string, 
/**
 * Model slug.
 */
model: string | null, 
/**
 * Reasoning effort in effect.
 */
reasoningEffort: ReasoningEffort | null, 
/**
 * Creation time (Unix seconds).
 */
createdAt: number, 
/**
 * Last update time (Unix seconds).
 */
updatedAt: number, 
/**
 * Last activity time (Unix seconds).
 */
recencyAt: number | null, 
/**
 * Runtime status.
 */
status: ThreadStatus, 
/**
 * Absolute path of the rollout file; `null` for ephemeral threads.
 */
path: string | null, 
/**
 * Working directory (absolute).
 */
cwd: string, 
/**
 * Version of the server protocol that created the thread.
 */
cliVersion: string, 
/**
 * `clientInfo.name` of the client that created the thread.
 */
originator: string | null, 
/**
 * Where the thread was created; `vscode` for every app-server thread.
 */
source: SessionSource, 
/**
 * Free-form label of what started the thread.
 */
threadSource: string | null, 
/**
 * Nickname of a sub-agent thread.
 */
agentNickname: string | null, 
/**
 * Role of a sub-agent thread.
 */
agentRole: string | null, 
/**
 * Git metadata of the working directory.
 */
gitInfo: GitInfo | null, 
/**
 * User-chosen name (`thread/name/set`).
 */
name: string | null, 
/**
 * Turns; populated only where a method says so (`includeTurns`, resume, fork).
 */
turns: Array<Turn>, };
