// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * How the model's reasoning is summarised.
 */
export type ReasoningSummary = "auto" | "concise" | "detailed" | "none";
