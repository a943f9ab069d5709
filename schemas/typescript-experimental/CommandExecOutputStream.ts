// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Which output stream a chunk came from.
 */
export type CommandExecOutputStream = "stdout" | "stderr";
