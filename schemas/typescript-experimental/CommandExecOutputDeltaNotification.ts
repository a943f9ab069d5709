// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CommandExecOutputStream } from "./CommandExecOutputStream";

/**
 * `command/exec/outputDelta`: a chunk of a streaming `command/exec`.
 */
export type CommandExecOutputDeltaNotification = { 
/**
 * The command's `processId`.
 */
processId: string, 
/**
 * Which stream.
 */
stream: CommandExecOutputStream, 
/**
 * The bytes, base64-encoded.
 */
deltaBase64: string, 
/**
 * Whether the output cap was reached (later output is dropped).
 */
capReached: boolean, };
