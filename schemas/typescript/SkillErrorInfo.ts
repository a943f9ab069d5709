// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A `SKILL.md` file that is not a valid skill.
 */
export type SkillErrorInfo = { 
/**
 * Absolute path of the file.
 */
path: string, 
/**
 * What is wrong with it, such as ``missing field `description` ``.
 */
message: string, };
