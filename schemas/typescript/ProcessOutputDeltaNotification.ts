// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CommandExecOutputStream } from "./CommandExecOutputStream";

/**
 * `process/outputDelta`: a chunk of a streaming process's output.
 */
export type ProcessOutputDeltaNotification = { 
/**
 * The process.
 */
processHandle: string, 
/**
 * Which stream (a terminal's output is `stdout`).
 */
stream: CommandExecOutputStream, 
/**
 * The bytes, base64-encoded.
 */
deltaBase64: string, 
/**
 * Whether the stream reached `outputBytesCap` (later output is dropped).
 */
capReached: boolean, };
