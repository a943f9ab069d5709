// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * One working directory or several.
 */
export type ThreadListCwdFilter = string | Array<string>;
