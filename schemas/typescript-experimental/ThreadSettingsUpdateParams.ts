// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ApprovalsReviewer } from "./ApprovalsReviewer";
import type { AskForApproval } from "./AskForApproval";
import type { CollaborationMode } from "./CollaborationMode";
import type { Personality } from "./Personality";
import type { ReasoningEffort } from "./ReasoningEffort";
import type { ReasoningSummary } from "./ReasoningSummary";
import type { SandboxPolicy } from "./SandboxPolicy";

/**
 * Parameters of `thread/settings/update`. Every setting left out (or `null`) stays as it
 * is; the thread's running turn, if any, keeps the settings it started with.
 */
export type ThreadSettingsUpdateParams = { 
/**
 * The thread; it must be loaded.
 */
threadId: string, 
/**
 * The approval policy of the next turns.
 */
approvalPolicy?: AskForApproval | null, 
/**
 * Who reviews approvals; stored and reported, approvals still go to the client.
 */
approvalsReviewer?: ApprovalsReviewer | null, 
/**
 * The collaboration mode of the next turns.
 */
collaborationMode?: CollaborationMode | null, 
/**
 * The working directory of the next turns; a relative one is resolved against the
 * server's working directory.
 */
cwd?: string | null, 
/**
 * Plugins to disable. Accepted and ignored: Tandem has no plugins.
 */
disabledPluginIds?: Array<string> | null, 
/**
 * The reasoning effort of the next turns.
 */
effort?: ReasoningEffort | null, 
/**
 * Execution environments. Accepted and ignored: Tandem runs every turn locally.
 */
environments: Array<unknown> | null, 
/**
 * The model of the next turns.
 */
model?: string | null, 
/**
 * Deprecated; accepted and ignored.
 */
multiAgentMode?: string | null, 
/**
 * A permission profile id. Accepted and ignored (Tandem names sandboxes with
 * `sandboxPolicy`), but refused together with `sandboxPolicy`, as the reference does.
 */
permissions?: string | null, 
/**
 * Deprecated; accepted and ignored.
 */
personality?: Personality | null, 
/**
 * The sandbox of the next turns, within the operator's `clients.max_sandbox`.
 */
sandboxPolicy?: SandboxPolicy | null, 
/**
 * The service tier: left out keeps it, `null` clears it. Reported back, never sent to
 * the provider.
 */
serviceTier?: string | null, 
/**
 * The reasoning summary of the next turns.
 */
summary?: ReasoningSummary | null, };
