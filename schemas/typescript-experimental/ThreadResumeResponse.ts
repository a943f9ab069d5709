// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ApprovalsReviewer } from "./ApprovalsReviewer";
import type { AskForApproval } from "./AskForApproval";
import type { CollaborationMode } from "./CollaborationMode";
import type { ReasoningEffort } from "./ReasoningEffort";
import type { SandboxPolicy } from "./SandboxPolicy";
import type { Thread } from "./Thread";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Result of `thread/resume`.
 */
export type ThreadResumeResponse = { 
/**
 * The resumed thread, with its turns unless `excludeTurns`.
 */
thread: Thread, 
/**
 * Model in effect.
 */
model: string, 
/**
 * Model provider in effect.
 */
modelProvider: string, 
/**
 * The service tier the request named, echoed; Tandem does not send it to the provider.
 */
serviceTier: string | null, 
/**
 * Disabled plugin ids; always empty in Tandem.
 */
disabledPluginIds: Array<string>, 
/**
 * Working directory (absolute).
 */
cwd: string, 
/**
 * Workspace roots visible at runtime (the cwd). @experimental
 */
runtimeWorkspaceRoots: Array<string>, 
/**
 * Files the instructions came from.
 */
instructionSources: Array<string>, 
/**
 * Approval policy in effect.
 */
approvalPolicy: AskForApproval, 
/**
 * Who reviews approvals, as requested; approvals go to the client whatever it says.
 */
approvalsReviewer: ApprovalsReviewer, 
/**
 * Sandbox in effect, in object form.
 */
sandbox: SandboxPolicy, 
/**
 * Active permission profile; always `null` in Tandem. @experimental
 */
activePermissionProfile: JsonValue | null, 
/**
 * Reasoning effort in effect.
 */
reasoningEffort: ReasoningEffort | null, 
/**
 * Collaboration mode in effect.
 */
collaborationMode: CollaborationMode | null, 
/**
 * Multi-agent mode; always `explicitRequestOnly` in Tandem. @experimental
 */
multiAgentMode: string | null, 
/**
 * First page of turns; always `null` in Tandem. @experimental
 */
initialTurnsPage: JsonValue | null, 
/**
 * Cursor for paging older turns with `thread/turns/list`.
 */
turnsBackwardsCursor: string | null, 
/**
 * Cursor for paging older items.
 */
itemsBackwardsCursor: string | null, };
