// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `thread/shellCommand`: `{}`, sent before the command's turn starts.
 */
export type ThreadShellCommandResponse = Record<symbol, never>;
