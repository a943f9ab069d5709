// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ClientInfo } from "./ClientInfo";
import type { InitializeCapabilities } from "./InitializeCapabilities";

/**
 * Parameters of `initialize`, the first request of every connection.
 */
export type InitializeParams = { 
/**
 * Who the client is; `name` becomes the thread `originator` and prefixes `userAgent`.
 */
clientInfo: ClientInfo, 
/**
 * Client capabilities; omitted means all off.
 */
capabilities?: InitializeCapabilities | null, };
