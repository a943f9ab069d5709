// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A service tier of a model.
 */
export type ModelServiceTier = { 
/**
 * Tier id.
 */
id: string, 
/**
 * Display name.
 */
name: string, 
/**
 * Description.
 */
description: string, };
