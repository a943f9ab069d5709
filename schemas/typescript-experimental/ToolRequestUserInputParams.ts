// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ToolRequestUserInputQuestion } from "./ToolRequestUserInputQuestion";

/**
 * Parameters of `item/tool/requestUserInput`: questions the model asks the user.
 */
export type ToolRequestUserInputParams = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * The tool call (the model's `call_id`).
 */
itemId: string, 
/**
 * One to three questions.
 */
questions: Array<ToolRequestUserInputQuestion>, 
/**
 * Whether the turn waits for the answer.
 */
isBlocking: boolean, 
/**
 * Resolve automatically after this many milliseconds; `null` means never.
 */
autoResolutionMs: number | null, };
