// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { SkillsListEntry } from "./SkillsListEntry";

/**
 * Result of `skills/list`.
 */
export type SkillsListResponse = { 
/**
 * One entry per requested working directory, in the order asked.
 */
data: Array<SkillsListEntry>, };
