// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { SandboxPolicy } from "./SandboxPolicy";

/**
 * Parameters of `execOneOffCommand`: run a command outside any conversation. Legacy.
 */
export type ExecOneOffCommandParams = { 
/**
 * argv; must not be empty.
 */
command: Array<string>, 
/**
 * Kill it after this many milliseconds (default 10 s).
 */
timeoutMs?: number | null, 
/**
 * Working directory; the server's when omitted.
 */
cwd?: string | null, 
/**
 * Sandbox; read-only when omitted.
 */
sandboxPolicy?: SandboxPolicy | null, };
