// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A command the model started with `exec_command` that is still running (reachable with
 * `write_stdin`).
 */
export type ThreadBackgroundTerminal = { 
/**
 * The `commandExecution` item that started it.
 */
itemId: string, 
/**
 * The unified-exec session id the model writes to (`processId` of the item).
 */
processId: string, 
/**
 * The command line, as the item shows it.
 */
command: string, 
/**
 * Its working directory.
 */
cwd: string, 
/**
 * The operating system's process id; Tandem does not report it (`null`).
 */
osPid: number | null, 
/**
 * CPU use; Tandem does not measure it (`null`).
 */
cpuPercent: number | null, 
/**
 * Resident memory; Tandem does not measure it (`null`).
 */
rssKb: number | null, };
