// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * What `thread/readState/update` does (tagged by `type`).
 */
export type ThreadReadStateOperation = { "type": "read" } | { "type": "unread" };
