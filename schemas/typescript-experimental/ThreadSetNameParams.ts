// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/name/set`.
 */
export type ThreadSetNameParams = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * New name; must not be empty.
 */
name: string, };
