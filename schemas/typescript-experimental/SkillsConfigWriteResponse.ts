// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `skills/config/write`.
 */
export type SkillsConfigWriteResponse = { 
/**
 * Whether the skill is now enabled.
 */
effectiveEnabled: boolean, };
