// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Detail level for image inputs.
 */
export type ImageDetail = "auto" | "low" | "high" | "original";
