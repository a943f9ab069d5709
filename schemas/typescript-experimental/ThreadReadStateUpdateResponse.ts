// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadReadState } from "./ThreadReadState";

/**
 * Result of `thread/readState/update`.
 */
export type ThreadReadStateUpdateResponse = { 
/**
 * The read state after the edit.
 */
readState: ThreadReadState, };
