// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ModeKind } from "./ModeKind";
import type { ReasoningEffort } from "./ReasoningEffort";

/**
 * A collaboration-mode preset: a partial mask over the client's current
 * [`CollaborationMode`], which the client applies and sends as `turn/start.collaborationMode`.
 * Every field after `name` is tri-state: omitted keeps the current value, `null` clears it,
 * and a value sets it (`mode` and `model` cannot be cleared, so `null` there keeps too).
 */
export type CollaborationModeMask = { 
/**
 * Name shown to the user (`Plan`, `Default`).
 */
name: string, 
/**
 * The mode kind it selects; omitted keeps the current one.
 */
mode?: ModeKind, 
/**
 * The model it selects; omitted keeps the current one.
 */
model?: string, 
/**
 * The reasoning effort it selects: omitted keeps the current one, `null` clears it (the
 * model's default applies), a value sets it.
 */
reasoning_effort?: ReasoningEffort | null, 
/**
 * The developer instructions it selects: omitted keeps the current ones, `null` clears
 * them, a value sets them.
 */
developer_instructions?: string | null, };
