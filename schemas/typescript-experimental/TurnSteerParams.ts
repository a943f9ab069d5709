// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { UserInput } from "./UserInput";

/**
 * Parameters of `turn/steer`: add input to the running turn.
 */
export type TurnSteerParams = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * Additional input.
 */
input: Array<UserInput>, 
/**
 * Id of the turn the client believes is running.
 */
expectedTurnId: string, 
/**
 * Client-chosen id echoed as the user message's `clientId`.
 */
clientUserMessageId?: string | null, };
