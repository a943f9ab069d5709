// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `process/exited`: a process ended; the last notification about it.
 */
export type ProcessExitedNotification = { 
/**
 * The process.
 */
processHandle: string, 
/**
 * The exit code: 124 on timeout, 128 + the signal for a signal (137 when killed).
 */
exitCode: number, 
/**
 * The output kept, when it was not streamed (else empty).
 */
stdout: string, 
/**
 * The error output kept, when it was not streamed (else empty).
 */
stderr: string, 
/**
 * Whether stdout reached `outputBytesCap`.
 */
stdoutCapReached: boolean, 
/**
 * Whether stderr reached `outputBytesCap`.
 */
stderrCapReached: boolean, 
/**
 * Whether collecting output after the exit ran out of time; always `false` here, where
 * output is collected until both streams close.
 */
outputDrainTimedOut: boolean | null, };
