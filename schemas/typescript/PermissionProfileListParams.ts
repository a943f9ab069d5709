// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `permissionProfile/list`.
 */
export type PermissionProfileListParams = { 
/**
 * Opaque cursor from a previous page's `nextCursor`.
 */
cursor?: string | null, 
/**
 * Page size (default: all).
 */
limit?: number | null, 
/**
 * A working directory whose project settings apply; accepted, and the same for every
 * directory (Tandem has no project config layers).
 */
cwd?: string | null, };
