// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { LegacyApprovalPolicy } from "./LegacyApprovalPolicy";
import type { LegacySandboxMode } from "./LegacySandboxMode";
import type { NetworkAccess } from "./NetworkAccess";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Parameters of `newConversation`. Legacy.
 */
export type NewConversationParams = { 
/**
 * Model slug; the configured model when omitted.
 */
model?: string | null, 
/**
 * Model provider id; the configured provider when omitted.
 */
modelProvider?: string | null, 
/**
 * Config profile to apply.
 */
profile?: string | null, 
/**
 * Working directory; the server's when omitted.
 */
cwd?: string | null, 
/**
 * Approval policy (`on-failure` is a deprecated alias of `on-request`).
 */
approvalPolicy?: LegacyApprovalPolicy | null, 
/**
 * Sandbox mode.
 */
sandbox?: LegacySandboxMode | null, 
/**
 * With `sandbox: "external-sandbox"`: the network access the host sandbox grants.
 */
networkAccess?: NetworkAccess | null, 
/**
 * Config overrides (`key.path` → value), as `-c` takes them.
 */
config?: { [key in string]: JsonValue } | null, 
/**
 * Replaces the built-in instructions.
 */
baseInstructions?: string | null, 
/**
 * Extra developer instructions.
 */
developerInstructions?: string | null, 
/**
 * Prompt that asks for the summary when this conversation's history is compacted (on
 * request and automatically), in place of `compact_prompt` from config and the built-in
 * prompt. It is stored with the thread, so a resumed conversation keeps it; on
 * `resumeConversation` a value replaces the stored one.
 */
compactPrompt?: string | null, 
/**
 * Offer the `update_plan` tool; accepted, the tool is always offered.
 */
includePlanTool?: boolean | null, 
/**
 * Offer the `apply_patch` tool; accepted, the tool is always offered.
 */
includeApplyPatchTool?: boolean | null, };
