// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `skills/config/write`: exactly one of `path` and `name`.
 */
export type SkillsConfigWriteParams = { 
/**
 * The absolute path of the skill's `SKILL.md`: the setting applies to that file.
 */
path?: string | null, 
/**
 * A skill name: the setting applies to every skill of that name.
 */
name?: string | null, 
/**
 * Whether the skill is listed to the model.
 */
enabled: boolean, };
