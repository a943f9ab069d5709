// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/shellCommand`.
 */
export type ThreadShellCommandParams = { 
/**
 * The thread (loaded, with no running turn).
 */
threadId: string, 
/**
 * A shell command line, run by the user's shell as a login shell (`bash -lc` unless
 * `$SHELL` names another), so pipes, redirections and quoting work. Unlike the
 * reference, Tandem runs it under the thread's sandbox, within the operator's
 * `clients.max_sandbox`, with the environment `[shell_environment_policy]` builds.
 */
command: string, 
/**
 * Kill the command after this many milliseconds (default one hour; `0` kills it at once).
 * Negative values are refused.
 */
timeoutMs?: number | null, };
