// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `command/exec`, once the process exits.
 */
export type CommandExecResponse = { 
/**
 * Exit code (124 on timeout).
 */
exitCode: number, 
/**
 * Buffered stdout (empty when streamed).
 */
stdout: string, 
/**
 * Buffered stderr (empty when streamed).
 */
stderr: string, };
