// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { RequestPermissionProfile } from "./RequestPermissionProfile";

/**
 * Params of `item/permissions/requestApproval`.
 */
export type PermissionsRequestApprovalParams = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * The model's `request_permissions` call id.
 */
itemId: string, 
/**
 * The execution environment; always `null` in Tandem (one local environment).
 */
environmentId?: string | null, 
/**
 * When the request started (Unix milliseconds).
 */
startedAtMs: number, 
/**
 * The turn's working directory, against which relative paths are read.
 */
cwd: string, 
/**
 * Why the model asks, in its words.
 */
reason?: string | null, 
/**
 * What the model asks for.
 */
permissions: RequestPermissionProfile, };
