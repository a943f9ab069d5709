// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * A notification: a message without an id that gets no reply.
 */
export type JSONRPCNotification = { 
/**
 * The notification method, such as `turn/started`.
 */
method: string, 
/**
 * Notification parameters.
 */
params?: JsonValue, };
