// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Outcome of `thread/unsubscribe`.
 */
export type ThreadUnsubscribeStatus = "unsubscribed" | "notSubscribed" | "notLoaded";
