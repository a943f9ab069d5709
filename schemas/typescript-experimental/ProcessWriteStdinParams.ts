// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `process/writeStdin`.
 */
export type ProcessWriteStdinParams = { 
/**
 * A running process of this connection started with `streamStdin` (or `tty`).
 */
processHandle: string, 
/**
 * Bytes to write, base64-encoded.
 */
deltaBase64?: string | null, 
/**
 * Close stdin after writing.
 */
closeStdin?: boolean | null, };
