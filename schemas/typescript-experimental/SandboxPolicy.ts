// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { NetworkAccess } from "./NetworkAccess";

/**
 * The sandbox a command runs under, in its full object form (tagged by `type`).
 */
export type SandboxPolicy = { "type": "dangerFullAccess" } | { "type": "readOnly", 
/**
 * Whether commands may use the network.
 */
networkAccess?: boolean, } | { "type": "externalSandbox", 
/**
 * Network access granted by the host sandbox.
 */
networkAccess?: NetworkAccess, } | { "type": "workspaceWrite", 
/**
 * Extra absolute directories that commands may write to.
 */
writableRoots?: Array<string>, 
/**
 * Whether commands may use the network.
 */
networkAccess?: boolean, 
/**
 * Do not make `$TMPDIR` writable.
 */
excludeTmpdirEnvVar?: boolean, 
/**
 * Do not make `/tmp` writable.
 */
excludeSlashTmp?: boolean, };
