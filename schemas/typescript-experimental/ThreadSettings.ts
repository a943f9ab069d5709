// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ApprovalsReviewer } from "./ApprovalsReviewer";
import type { AskForApproval } from "./AskForApproval";
import type { CollaborationMode } from "./CollaborationMode";
import type { Personality } from "./Personality";
import type { ReasoningEffort } from "./ReasoningEffort";
import type { ReasoningSummary } from "./ReasoningSummary";
import type { SandboxPolicy } from "./SandboxPolicy";
import type { ThreadEnvironment } from "./ThreadEnvironment";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * The settings a thread's next turn starts with.
 */
export type ThreadSettings = { 
/**
 * Plugins disabled for the thread; always empty in Tandem.
 */
disabledPluginIds: Array<string>, 
/**
 * The working directory (absolute).
 */
cwd: string, 
/**
 * The environments of the next turns: the local one, in the working directory.
 */
environments: Array<ThreadEnvironment> | null, 
/**
 * The approval policy.
 */
approvalPolicy: AskForApproval, 
/**
 * Who reviews approvals.
 */
approvalsReviewer: ApprovalsReviewer, 
/**
 * The sandbox, in object form.
 */
sandboxPolicy: SandboxPolicy, 
/**
 * The active permission profile; always `null` in Tandem.
 */
activePermissionProfile: JsonValue | null, 
/**
 * The model.
 */
model: string, 
/**
 * The model provider (a key of `model_providers`).
 */
modelProvider: string, 
/**
 * The service tier last set, never sent to the provider.
 */
serviceTier: string | null, 
/**
 * The reasoning effort.
 */
effort: ReasoningEffort | null, 
/**
 * The reasoning summary.
 */
summary: ReasoningSummary | null, 
/**
 * The collaboration mode; `default` with the thread's model and effort unless one was
 * chosen.
 */
collaborationMode: CollaborationMode, 
/**
 * Deprecated; always `explicitRequestOnly`.
 */
multiAgentMode: string, 
/**
 * Deprecated; always `null` in Tandem.
 */
personality: Personality | null, };
