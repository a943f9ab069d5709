// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `skills/changed`: the skills a client would list changed (sent after
 * `skills/extraRoots/set` changed the roots); list them again to see how.
 */
export type SkillsChangedNotification = Record<symbol, never>;
