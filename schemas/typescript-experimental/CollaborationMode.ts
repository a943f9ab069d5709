// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CollaborationModeSettings } from "./CollaborationModeSettings";
import type { ModeKind } from "./ModeKind";

/**
 * A collaboration mode: `default`, or `plan`, in which the model may ask the user questions.
 */
export type CollaborationMode = { 
/**
 * Which mode.
 */
mode: ModeKind, 
/**
 * Settings applied in this mode.
 */
settings: CollaborationModeSettings, };
