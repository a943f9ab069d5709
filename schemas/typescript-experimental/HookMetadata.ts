// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { HookEventName } from "./HookEventName";
import type { HookSource } from "./HookSource";
import type { HookTrustStatus } from "./HookTrustStatus";

/**
 * One configured hook.
 */
export type HookMetadata = { 
/**
 * `SOURCE_PATH:EVENT:GROUP:HANDLER` (the event in snake case, the matcher group's and the
 * handler's positions from 0): the key of its `[hooks.state]` entry.
 */
key: string, 
/**
 * When it runs.
 */
eventName: HookEventName, 
/**
 * The tool-name pattern (a regular expression) of a tool event's matcher group; `null`
 * for every tool, and for events without matchers.
 */
matcher: string | null, 
/**
 * How long it may run, in seconds (`timeout`, default 600).
 */
timeoutSec: number, 
/**
 * `statusMessage`: what a client may show while it runs.
 */
statusMessage: string | null, 
/**
 * Accepted for compatibility; always `null`: hook context is not spilled to files.
 */
additionalContextLimit: number | null, 
/**
 * The configuration file that defines it.
 */
sourcePath: string, 
/**
 * The kind of configuration it came from; always `user` (`config.toml`).
 */
source: HookSource, 
/**
 * Always `null`: Tandem loads no plugin hooks.
 */
pluginId: string | null, 
/**
 * Always `null`: hooks come from no execution environment's requirements.
 */
environmentId: string | null, 
/**
 * Its position among all hooks, from 0.
 */
displayOrder: number, 
/**
 * Whether it is enabled (`enabled = false` in its `[hooks.state]` entry disables it).
 */
enabled: boolean, 
/**
 * Always `false`: Tandem has no administrator-managed hooks.
 */
isManaged: boolean, 
/**
 * `sha256:` and the hex SHA-256 of the hook as configured, the value its
 * `[hooks.state]` entry's `trusted_hash` must hold for it to run.
 */
currentHash: string, 
/**
 * Whether it runs: `trusted` when `trusted_hash` equals `currentHash`.
 */
trustStatus: HookTrustStatus, } & ({ "handlerType": "command", 
/**
 * The command line, run by `sh -c` in the thread's working directory.
 */
command: string, 
/**
 * Whether it was configured `async`; Tandem runs every hook to completion.
 */
async: boolean, });
