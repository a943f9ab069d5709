// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `turn/interrupt`.
 */
export type TurnInterruptParams = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The running turn.
 */
turnId: string, };
