// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ToolRequestUserInputOption } from "./ToolRequestUserInputOption";

/**
 * One question for the user.
 */
export type ToolRequestUserInputQuestion = { 
/**
 * Question id, the key of its answer.
 */
id: string, 
/**
 * Short header.
 */
header: string, 
/**
 * The question.
 */
question: string, 
/**
 * Whether a free-form "other" answer is allowed.
 */
isOther: boolean, 
/**
 * Whether the answer is secret (do not echo it).
 */
isSecret: boolean, 
/**
 * Choices, if any.
 */
options: Array<ToolRequestUserInputOption> | null, };
