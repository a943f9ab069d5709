// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { AgentMessageContent } from "./AgentMessageContent";
import type { MessagePhase } from "./MessagePhase";
import type { UserInput } from "./UserInput";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * A turn item as Codex's `item_started` / `item_completed` carry it (tagged by `type`,
 * PascalCase).
 */
export type TurnItem = { "type": "UserMessage", 
/**
 * Item id.
 */
id: string, 
/**
 * The inputs.
 */
content: Array<UserInput>, } | { "type": "AgentMessage", 
/**
 * Item id.
 */
id: string, 
/**
 * The text so far, as one `Text` part (none in `item_started`).
 */
content: Array<AgentMessageContent>, 
/**
 * Commentary or final answer, when the model says so.
 */
phase: MessagePhase | null, 
/**
 * Memory citation; always `null` in Tandem.
 */
memory_citation: JsonValue | null, } | { "type": "Reasoning", 
/**
 * Item id.
 */
id: string, 
/**
 * Summary parts.
 */
summary_text: Array<string>, 
/**
 * Raw reasoning parts.
 */
raw_content: Array<string>, } | { "type": "Plan", 
/**
 * Item id.
 */
id: string, 
/**
 * The plan.
 */
text: string, };
