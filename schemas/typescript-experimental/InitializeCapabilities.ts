// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { RequestUserInputMethod } from "./RequestUserInputMethod";

/**
 * Capabilities a client declares at `initialize`; fixed for the connection.
 */
export type InitializeCapabilities = { 
/**
 * Opt into experimental methods, fields and notifications.
 */
experimentalApi?: boolean | null, 
/**
 * Exact notification methods this connection does not want to receive.
 */
optOutNotificationMethods?: Array<string> | null, 
/**
 * Which server request carries the model's `request_user_input` questions:
 * `item/tool/requestUserInput` (the default) or `tool/requestUserInput`. Either needs
 * `experimentalApi`.
 */
requestUserInputMethod?: RequestUserInputMethod | null, };
