// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { SkillErrorInfo } from "./SkillErrorInfo";
import type { SkillMetadata } from "./SkillMetadata";

/**
 * The skills one working directory sees.
 */
export type SkillsListEntry = { 
/**
 * The working directory, as requested.
 */
cwd: string, 
/**
 * Its skills: the repository's first, then the user's and the extra roots', each group in
 * name order; a file reached through two roots is listed once.
 */
skills: Array<SkillMetadata>, 
/**
 * The `SKILL.md` files that could not be read as skills.
 */
errors: Array<SkillErrorInfo>, };
