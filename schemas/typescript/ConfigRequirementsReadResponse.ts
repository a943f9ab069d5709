// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ConfigRequirements } from "./ConfigRequirements";

/**
 * Result of `configRequirements/read`.
 */
export type ConfigRequirementsReadResponse = { 
/**
 * What the operator's policy restricts; `null` when it restricts nothing a client could
 * choose.
 */
requirements: ConfigRequirements | null, 
/**
 * Whether speed modes are gated one by one; always `null`: Tandem has no speed modes.
 */
supportsIndependentSpeedModes: boolean | null, };
