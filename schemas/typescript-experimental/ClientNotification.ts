// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { EmptyParams } from "./EmptyParams";

/**
 * A notification from the client to the server.
 */
export type ClientNotification =
  | { method: "initialized", params: EmptyParams };

/**
 * Each `ClientNotification` method with its params type.
 */
export type ClientNotificationMap = {
  /**
   * The client processed the `initialize` response (accepted, not enforced).
   */
  "initialized": { params: EmptyParams };
};
