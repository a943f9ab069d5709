// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Where a skill was found.
 */
export type SkillScope = "user" | "repo" | "system" | "admin";
