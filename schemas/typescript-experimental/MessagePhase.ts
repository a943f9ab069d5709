// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Whether agent text is commentary, a partial answer or the final answer.
 */
export type MessagePhase = "commentary" | "partial_answer" | "final_answer";
