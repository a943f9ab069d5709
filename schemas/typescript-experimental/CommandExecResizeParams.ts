// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CommandExecTerminalSize } from "./CommandExecTerminalSize";

/**
 * Parameters of `command/exec/resize`.
 */
export type CommandExecResizeParams = { 
/**
 * The command's `processId`.
 */
processId: string, 
/**
 * New terminal size.
 */
size: CommandExecTerminalSize, };
