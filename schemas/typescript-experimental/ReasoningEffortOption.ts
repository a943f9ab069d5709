// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ReasoningEffort } from "./ReasoningEffort";

/**
 * A reasoning effort with its description.
 */
export type ReasoningEffortOption = { 
/**
 * The effort.
 */
reasoningEffort: ReasoningEffort, 
/**
 * What it means.
 */
description: string, };
