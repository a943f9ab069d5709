// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { InputModality } from "./InputModality";
import type { ModelAvailabilityNux } from "./ModelAvailabilityNux";
import type { ModelServiceTier } from "./ModelServiceTier";
import type { ReasoningEffort } from "./ReasoningEffort";
import type { ReasoningEffortOption } from "./ReasoningEffortOption";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * A model the client can choose.
 */
export type Model = { 
/**
 * Model id.
 */
id: string, 
/**
 * Model slug sent to the provider.
 */
model: string, 
/**
 * Slug of the model this one upgrades to.
 */
upgrade: string | null, 
/**
 * Upgrade details; always `null` in Tandem.
 */
upgradeInfo: JsonValue | null, 
/**
 * Availability notice.
 */
availabilityNux: ModelAvailabilityNux | null, 
/**
 * Display name.
 */
displayName: string, 
/**
 * Short description.
 */
description: string, 
/**
 * Specialty label.
 */
modelSpecialty: string | null, 
/**
 * Hidden models are listed only with `includeHidden`.
 */
hidden: boolean, 
/**
 * Reasoning efforts the model supports.
 */
supportedReasoningEfforts: Array<ReasoningEffortOption>, 
/**
 * Default reasoning effort.
 */
defaultReasoningEffort: ReasoningEffort, 
/**
 * Input modalities (`text`, `image`).
 */
inputModalities: Array<InputModality>, 
/**
 * Whether personalities are supported.
 */
supportsPersonality: boolean, 
/**
 * Multi-agent protocol version.
 */
multiAgentVersion: string | null, 
/**
 * Extra speed tiers.
 */
additionalSpeedTiers: Array<string>, 
/**
 * Service tiers.
 */
serviceTiers: Array<ModelServiceTier>, 
/**
 * Default service tier.
 */
defaultServiceTier: string | null, 
/**
 * Access programs; always `null` in Tandem.
 */
availableAccessPrograms: JsonValue | null, 
/**
 * Whether this is the default model.
 */
isDefault: boolean, };
