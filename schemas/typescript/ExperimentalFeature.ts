// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ExperimentalFeatureStage } from "./ExperimentalFeatureStage";

/**
 * One feature flag.
 */
export type ExperimentalFeature = { 
/**
 * The flag's key under `[features]`.
 */
name: string, 
/**
 * Its stage.
 */
stage: ExperimentalFeatureStage, 
/**
 * A name to show, for beta features.
 */
displayName: string | null, 
/**
 * What it does, for beta features.
 */
description: string | null, 
/**
 * Text shown when it is introduced, for beta features.
 */
announcement: string | null, 
/**
 * Whether it is on.
 */
enabled: boolean, 
/**
 * Whether it is on unless configured.
 */
defaultEnabled: boolean, };
