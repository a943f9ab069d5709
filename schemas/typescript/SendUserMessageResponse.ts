// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `sendUserMessage` and `sendUserTurn`: the turn runs; its events follow as
 * `codex/event`.
 */
export type SendUserMessageResponse = Record<symbol, never>;
