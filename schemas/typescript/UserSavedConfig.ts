// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ReasoningEffort } from "./ReasoningEffort";
import type { ReasoningSummary } from "./ReasoningSummary";
import type { SandboxMode } from "./SandboxMode";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * The settings of `config.toml` that the conversation API exposes.
 */
export type UserSavedConfig = { 
/**
 * `approval_policy`.
 */
approvalPolicy: string | null, 
/**
 * `sandbox_mode`.
 */
sandboxMode: SandboxMode | null, 
/**
 * `sandbox_workspace_write` settings.
 */
sandboxSettings: JsonValue | null, 
/**
 * `model`.
 */
model: string | null, 
/**
 * `model_reasoning_effort`.
 */
modelReasoningEffort: ReasoningEffort | null, 
/**
 * `model_reasoning_summary`.
 */
modelReasoningSummary: ReasoningSummary | null, 
/**
 * `model_verbosity`.
 */
modelVerbosity: string | null, 
/**
 * `tools` table.
 */
tools: JsonValue | null, 
/**
 * `profile`: the default profile.
 */
profile: string | null, 
/**
 * `profiles`, by name.
 */
profiles: { [key in string]: JsonValue }, };
