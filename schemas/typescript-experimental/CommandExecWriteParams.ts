// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `command/exec/write`: send stdin bytes to a running command.
 */
export type CommandExecWriteParams = { 
/**
 * The command's `processId`.
 */
processId: string, 
/**
 * Bytes to write, base64-encoded.
 */
deltaBase64?: string | null, 
/**
 * Close stdin after writing.
 */
closeStdin?: boolean | null, };
