// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ReasoningEffort } from "./ReasoningEffort";

/**
 * Parameters of `setDefaultModel`: writes `model` and `model_reasoning_effort` to
 * `config.toml`, keeping its comments and layout; `null` removes the key. Legacy.
 */
export type SetDefaultModelParams = { 
/**
 * The default model; `null` removes it.
 */
model?: string | null, 
/**
 * The default reasoning effort; `null` removes it.
 */
reasoningEffort?: ReasoningEffort | null, };
