// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { SandboxMode } from "./SandboxMode";

/**
 * The restrictions of the operator's policy that a client can observe.
 */
export type ConfigRequirements = { 
/**
 * The sandbox modes a client may obtain (`[clients] max_sandbox` and below).
 */
allowedSandboxModes: Array<SandboxMode> | null, };
