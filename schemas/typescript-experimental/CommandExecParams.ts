// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CommandExecTerminalSize } from "./CommandExecTerminalSize";
import type { SandboxPolicy } from "./SandboxPolicy";

/**
 * Parameters of `command/exec`: run an argv vector without a thread or turn.
 */
export type CommandExecParams = { 
/**
 * The argv vector; must not be empty.
 */
command: Array<string>, 
/**
 * Client-chosen id, required for `tty` and streaming, used by write/resize/terminate.
 */
processId?: string | null, 
/**
 * Run in a pseudo-terminal.
 */
tty?: boolean | null, 
/**
 * Accept stdin through `command/exec/write`.
 */
streamStdin?: boolean | null, 
/**
 * Stream output as `command/exec/outputDelta` instead of buffering it.
 */
streamStdoutStderr?: boolean | null, 
/**
 * Cap on buffered output bytes per stream.
 */
outputBytesCap?: number | null, 
/**
 * Disable the output cap.
 */
disableOutputCap?: boolean | null, 
/**
 * Timeout in milliseconds; on timeout the exit code is 124.
 */
timeoutMs?: number | null, 
/**
 * Disable the timeout.
 */
disableTimeout?: boolean | null, 
/**
 * Working directory.
 */
cwd?: string | null, 
/**
 * Environment changes; `null` removes a variable.
 */
env?: { [key in string]: string | null } | null, 
/**
 * Initial terminal size for `tty`.
 */
size?: CommandExecTerminalSize | null, 
/**
 * Sandbox for the command (default: the configured sandbox).
 */
sandboxPolicy?: SandboxPolicy | null, };
