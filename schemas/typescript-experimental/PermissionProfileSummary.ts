// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * One permission profile a thread may run under.
 */
export type PermissionProfileSummary = { 
/**
 * The profile's id (`:read-only`, `:workspace`, `:danger-full-access`).
 */
id: string, 
/**
 * Text to show for it, when there is any.
 */
description: string | null, 
/**
 * Whether this client may choose it (within `[clients] max_sandbox`).
 */
allowed: boolean, };
