// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CommandExecTerminalSize } from "./CommandExecTerminalSize";

/**
 * Parameters of `process/spawn`.
 */
export type ProcessSpawnParams = { 
/**
 * The argv vector; must not be empty.
 */
command: Array<string>, 
/**
 * Absolute working directory.
 */
cwd: string, 
/**
 * The client's name for the process, unique among this connection's running processes;
 * the other `process/*` methods and the notifications carry it.
 */
processHandle: string, 
/**
 * Run in a pseudo-terminal (implies `streamStdin` and `streamStdoutStderr`).
 */
tty?: boolean | null, 
/**
 * Accept stdin through `process/writeStdin`.
 */
streamStdin?: boolean | null, 
/**
 * Send output as `process/outputDelta` instead of in `process/exited`.
 */
streamStdoutStderr?: boolean | null, 
/**
 * Cap on the output kept per stream, in bytes: omitted, 1 MiB; `null`, no cap.
 */
outputBytesCap?: number | null, 
/**
 * Timeout in milliseconds, after which the process is killed (exit code 124): omitted,
 * 10 s; `null`, none.
 */
timeoutMs?: number | null, 
/**
 * Environment changes on top of the environment the operator's
 * `shell_environment_policy` builds; `null` removes a variable.
 */
env?: { [key in string]: string | null } | null, 
/**
 * Initial terminal size (only with `tty`).
 */
size?: CommandExecTerminalSize | null, };
