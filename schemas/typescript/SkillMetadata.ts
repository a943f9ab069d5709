// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { SkillScope } from "./SkillScope";

/**
 * One skill.
 */
export type SkillMetadata = { 
/**
 * `name` of the front matter.
 */
name: string, 
/**
 * `description` of the front matter.
 */
description: string, 
/**
 * `metadata.short-description` of the front matter; absent when it has none.
 */
shortDescription?: string, 
/**
 * Absolute path of the `SKILL.md` file.
 */
path: string, 
/**
 * Where the skill was found.
 */
scope: SkillScope, 
/**
 * Whether the model is told about it (`[[skills.config]]` in `config.toml`; default on).
 */
enabled: boolean, 
/**
 * The plugin that ships the skill; always `null`, since Tandem loads no plugin skills.
 */
pluginId: string | null, };
