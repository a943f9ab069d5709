// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Turn } from "./Turn";

/**
 * Result of `turn/start`: the turn, `inProgress`, before it starts streaming.
 */
export type TurnStartResponse = { 
/**
 * The turn (`items: []`, `startedAt: null`); on a busy thread, the running turn.
 */
turn: Turn, };
