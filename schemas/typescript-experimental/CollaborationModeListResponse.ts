// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CollaborationModeMask } from "./CollaborationModeMask";

/**
 * Result of `collaborationMode/list`.
 */
export type CollaborationModeListResponse = { 
/**
 * The presets, in the order a client should offer them.
 */
data: Array<CollaborationModeMask>, };
