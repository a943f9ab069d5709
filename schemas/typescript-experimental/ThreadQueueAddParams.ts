// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { UserInput } from "./UserInput";

/**
 * Parameters of `thread/queue/add`.
 */
export type ThreadQueueAddParams = { 
/**
 * The thread (loaded).
 */
threadId: string, 
/**
 * The input (at least one item).
 */
input: Array<UserInput>, 
/**
 * The client's id for the user message.
 */
clientUserMessageId: string, 
/**
 * Metadata kept with the input and echoed; never sent to the provider.
 */
responsesapiClientMetadata?: { [key in string]: string } | null, };
