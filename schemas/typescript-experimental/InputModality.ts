// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * An input modality.
 */
export type InputModality = "text" | "image";
