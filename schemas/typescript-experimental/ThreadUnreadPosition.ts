// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Where a thread's unread part begins (tagged by `type`).
 */
export type ThreadUnreadPosition = { "type": "threadStart" } | { "type": "turn", 
/**
 * The turn.
 */
turnId: string, };
