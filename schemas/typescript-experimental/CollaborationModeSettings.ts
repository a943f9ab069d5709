// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ReasoningEffort } from "./ReasoningEffort";

/**
 * Settings of a collaboration mode (snake_case on the wire).
 */
export type CollaborationModeSettings = { 
/**
 * Model used in this mode.
 */
model: string, 
/**
 * Reasoning effort used in this mode.
 */
reasoning_effort?: ReasoningEffort | null, 
/**
 * Extra developer instructions for this mode.
 */
developer_instructions?: string | null, };
