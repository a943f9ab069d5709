// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CommandExecTerminalSize } from "./CommandExecTerminalSize";

/**
 * Parameters of `process/resizePty`.
 */
export type ProcessResizePtyParams = { 
/**
 * A running `tty` process of this connection.
 */
processHandle: string, 
/**
 * The new size.
 */
size: CommandExecTerminalSize, };
