// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `item/commandExecution/terminalInteraction`: the model wrote to (or polled) a command it
 * left running (`write_stdin`).
 */
export type TerminalInteractionNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn in which the model wrote.
 */
turnId: string, 
/**
 * The `commandExecution` item of the running command.
 */
itemId: string, 
/**
 * The command's session id, as the model names it.
 */
processId: string, 
/**
 * What was written to its stdin; empty for a poll.
 */
stdin: string, };
