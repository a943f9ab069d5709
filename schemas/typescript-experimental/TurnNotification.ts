// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Turn } from "./Turn";

/**
 * `turn/started` and `turn/completed`.
 */
export type TurnNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn; in `turn/completed`, its final status.
 */
turn: Turn, };
