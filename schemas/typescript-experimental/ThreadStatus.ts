// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadActiveFlag } from "./ThreadActiveFlag";

/**
 * Runtime status of a thread (tagged by `type`).
 */
export type ThreadStatus = { "type": "notLoaded" } | { "type": "idle" } | { "type": "systemError" } | { "type": "active", 
/**
 * What the running turn is waiting for, if anything.
 */
activeFlags: Array<ThreadActiveFlag>, };
