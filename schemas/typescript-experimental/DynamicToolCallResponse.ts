// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { DynamicToolCallOutputContentItem } from "./DynamicToolCallOutputContentItem";

/**
 * Result of `item/tool/call`: what the tool returned, passed to the model.
 */
export type DynamicToolCallResponse = { 
/**
 * The output, in order; cut to Tandem's tool output cap (1 MiB) before the model, the
 * item or the rollout sees it.
 */
contentItems: Array<DynamicToolCallOutputContentItem>, 
/**
 * Whether the call succeeded (the item's status is `completed` or `failed`).
 */
success: boolean, };
