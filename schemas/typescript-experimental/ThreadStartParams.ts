// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ApprovalsReviewer } from "./ApprovalsReviewer";
import type { AskForApproval } from "./AskForApproval";
import type { DynamicToolSpec } from "./DynamicToolSpec";
import type { Personality } from "./Personality";
import type { SandboxMode } from "./SandboxMode";
import type { ThreadStartSource } from "./ThreadStartSource";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Parameters of `thread/start`. Every field is optional.
 */
export type ThreadStartParams = { 
/**
 * Model slug; defaults to the configured model.
 */
model?: string | null, 
/**
 * Model provider id; unknown ids are rejected.
 */
modelProvider?: string | null, 
/**
 * Service tier. Accepted and echoed in the response, but never sent to the provider:
 * Tandem has no service tiers, so it has no effect.
 */
serviceTier?: string | null, 
/**
 * Working directory; a relative path is resolved against the server's cwd.
 */
cwd?: string | null, 
/**
 * Approval policy for the thread.
 */
approvalPolicy?: AskForApproval | null, 
/**
 * Who reviews approvals. Stored and echoed, but every approval still goes to the client:
 * Tandem has no automatic reviewer, so `auto_review` has no effect.
 */
approvalsReviewer?: ApprovalsReviewer | null, 
/**
 * Sandbox mode for the thread.
 */
sandbox?: SandboxMode | null, 
/**
 * Config overrides (dotted keys of config.toml) for this thread.
 */
config?: { [key in string]: JsonValue } | null, 
/**
 * Service name. Accepted and ignored: Tandem reports no service name to the provider.
 */
serviceName?: string | null, 
/**
 * Replaces the built-in base instructions.
 */
baseInstructions?: string | null, 
/**
 * Extra developer instructions.
 */
developerInstructions?: string | null, 
/**
 * Deprecated; accepted and ignored.
 */
personality?: Personality | null, 
/**
 * Ephemeral threads are never written to disk.
 */
ephemeral?: boolean | null, 
/**
 * Why the session started. Accepted and ignored.
 */
sessionStartSource?: ThreadStartSource | null, 
/**
 * Free-form label stored as `thread.threadSource`.
 */
threadSource?: string | null, 
/**
 * Asks the reference server to record extra event kinds in the rollout. Accepted and
 * ignored: Tandem's rollout always records every completed item. `true` requires
 * `capabilities.experimentalApi`. @experimental
 */
persistExtendedHistory?: boolean | null, 
/**
 * Tools the client offers the model for the whole thread (kept across resumes); the
 * model's calls come back as `item/tool/call` requests. Names follow the Responses API
 * (letters, digits, `_`, `-`) and must not repeat or take a name Tandem's own tools use.
 * @experimental
 */
dynamicTools?: Array<DynamicToolSpec> | null, };
