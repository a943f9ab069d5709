// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { InputItem } from "./InputItem";
import type { LegacyApprovalPolicy } from "./LegacyApprovalPolicy";
import type { Personality } from "./Personality";
import type { ReasoningEffort } from "./ReasoningEffort";
import type { ReasoningSummary } from "./ReasoningSummary";
import type { SandboxPolicy } from "./SandboxPolicy";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Parameters of `sendUserTurn`: start a turn with explicit settings, which stay in effect
 * for later turns. Legacy.
 */
export type SendUserTurnParams = { 
/**
 * The conversation (thread) id.
 */
conversationId: string, 
/**
 * The user's input.
 */
items: Array<InputItem>, 
/**
 * Working directory.
 */
cwd: string, 
/**
 * Approval policy (`on-failure` is a deprecated alias of `on-request`).
 */
approvalPolicy: LegacyApprovalPolicy, 
/**
 * Sandbox, in object form.
 */
sandboxPolicy: SandboxPolicy, 
/**
 * Model slug.
 */
model: string, 
/**
 * Reasoning effort.
 */
effort?: ReasoningEffort | null, 
/**
 * Reasoning summary mode.
 */
summary: ReasoningSummary, 
/**
 * Personality (`friendly`, `pragmatic`, `none`): accepted and ignored. In the reference
 * `none` puts an empty string where the personality text goes; Tandem's instructions have
 * no personality text, so every value sends the same prompt.
 */
personality?: Personality | null, 
/**
 * JSON Schema the final answer must follow.
 */
outputSchema?: JsonValue | null, };
