// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ApprovalsReviewer } from "./ApprovalsReviewer";
import type { AskForApproval } from "./AskForApproval";
import type { CollaborationMode } from "./CollaborationMode";
import type { Personality } from "./Personality";
import type { ReasoningEffort } from "./ReasoningEffort";
import type { ReasoningSummary } from "./ReasoningSummary";
import type { SandboxPolicy } from "./SandboxPolicy";
import type { UserInput } from "./UserInput";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Parameters of `turn/start`. Overrides apply to this turn and persist for later turns,
 * except `outputSchema`, which applies to this turn only.
 */
export type TurnStartParams = { 
/**
 * Thread to run the turn on.
 */
threadId: string, 
/**
 * The user's input; `[]` runs a turn without a user message.
 */
input: Array<UserInput>, 
/**
 * Client-chosen id echoed as the user message's `clientId`.
 */
clientUserMessageId?: string | null, 
/**
 * Working-directory override.
 */
cwd?: string | null, 
/**
 * Approval-policy override.
 */
approvalPolicy?: AskForApproval | null, 
/**
 * Reviewer override. Stored for the thread and echoed; approvals still go to the client
 * whatever it says.
 */
approvalsReviewer?: ApprovalsReviewer | null, 
/**
 * Sandbox override, in object form.
 */
sandboxPolicy?: SandboxPolicy | null, 
/**
 * Model override.
 */
model?: string | null, 
/**
 * Service-tier override. Accepted and ignored: Tandem has no service tiers.
 */
serviceTier?: string | null, 
/**
 * Reasoning-effort override.
 */
effort?: ReasoningEffort | null, 
/**
 * Reasoning-summary override.
 */
summary?: ReasoningSummary | null, 
/**
 * Deprecated; accepted and ignored.
 */
personality?: Personality | null, 
/**
 * JSON Schema the final answer must follow (this turn only).
 */
outputSchema?: JsonValue | null, 
/**
 * Collaboration mode for this and later turns. @experimental
 */
collaborationMode?: CollaborationMode | null, };
