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
 * Slug of the model this one upgrades to; always `null` in Tandem, which knows no
 * upgrade paths.
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
 * Reasoning efforts the model supports, each with a description (`low`, `medium` and
 * `high` in Tandem, which does not know a provider's model limits).
 */
supportedReasoningEfforts: Array<ReasoningEffortOption>, 
/**
 * Reasoning effort used when none is chosen (`medium` in Tandem).
 */
defaultReasoningEffort: ReasoningEffort, 
/**
 * Input modalities (`text`, `image`).
 */
inputModalities: Array<InputModality>, 
/**
 * Whether the model takes a `personality` (`friendly`, `pragmatic`); always `false` in
 * Tandem, whose instructions have no personality text.
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
 * Whether this is the default model: `model` from config, else the provider's default
 * model.
 */
isDefault: boolean, };
