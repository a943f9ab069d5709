// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadUnreadPosition } from "./ThreadUnreadPosition";

/**
 * A stored thread's read state.
 */
export type ThreadReadState = { 
/**
 * The first unread position; `null` when everything is read.
 */
firstUnread?: ThreadUnreadPosition | null, 
/**
 * Opaque revision, changed by every edit and by every newly ended turn that needs
 * attention; `thread/readState/update` must name the revision its caller saw.
 */
revision: string, };
