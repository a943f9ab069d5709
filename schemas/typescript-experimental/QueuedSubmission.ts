// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { UserInput } from "./UserInput";

/**
 * An input waiting for the thread's running turn to end; it then starts a turn of its own.
 */
export type QueuedSubmission = { 
/**
 * Id of the queued input (UUIDv7).
 */
id: string, 
/**
 * The input of the turn it will start.
 */
input: Array<UserInput>, 
/**
 * The client's id for the user message, echoed as the message item's `clientId`.
 */
clientUserMessageId: string, 
/**
 * Metadata the client attached; kept and echoed, never sent to the provider.
 */
responsesapiClientMetadata: { [key in string]: string } | null, };
