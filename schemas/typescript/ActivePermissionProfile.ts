// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * The named permission profile of a session.
 */
export type ActivePermissionProfile = { 
/**
 * `:read-only`, `:workspace-write` or `:danger-full-access`.
 */
id: string, };
