// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `turn/steer`.
 */
export type TurnSteerResponse = { 
/**
 * The running turn.
 */
turnId: string, };
