// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ApprovalsReviewer } from "./ApprovalsReviewer";
import type { AskForApproval } from "./AskForApproval";
import type { Personality } from "./Personality";
import type { SandboxMode } from "./SandboxMode";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Parameters of `thread/resume`: load a stored thread and subscribe to its events.
 */
export type ThreadResumeParams = { 
/**
 * Thread to resume.
 */
threadId: string, 
/**
 * Model override.
 */
model?: string | null, 
/**
 * Model provider override.
 */
modelProvider?: string | null, 
/**
 * Service-tier override. Accepted and echoed, but never sent to the provider, so it has
 * no effect.
 */
serviceTier?: string | null, 
/**
 * Working-directory override.
 */
cwd?: string | null, 
/**
 * Approval-policy override.
 */
approvalPolicy?: AskForApproval | null, 
/**
 * Reviewer override. Stored and echoed; approvals still go to the client whatever it
 * says.
 */
approvalsReviewer?: ApprovalsReviewer | null, 
/**
 * Sandbox override.
 */
sandbox?: SandboxMode | null, 
/**
 * Config overrides.
 */
config?: { [key in string]: JsonValue } | null, 
/**
 * Base-instructions override.
 */
baseInstructions?: string | null, 
/**
 * Developer-instructions override.
 */
developerInstructions?: string | null, 
/**
 * Deprecated; accepted and ignored.
 */
personality?: Personality | null, 
/**
 * Leave `thread.turns` empty (page with `thread/turns/list` instead).
 */
excludeTurns?: boolean | null, 
};
