// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadUnsubscribeStatus } from "./ThreadUnsubscribeStatus";

/**
 * Result of `thread/unsubscribe`.
 */
export type ThreadUnsubscribeResponse = { 
/**
 * What happened.
 */
status: ThreadUnsubscribeStatus, };
