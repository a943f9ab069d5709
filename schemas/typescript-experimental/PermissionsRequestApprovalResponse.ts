// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { GrantedPermissionProfile } from "./GrantedPermissionProfile";
import type { PermissionGrantScope } from "./PermissionGrantScope";

/**
 * Result of `item/permissions/requestApproval`.
 */
export type PermissionsRequestApprovalResponse = { 
/**
 * What the client grants; empty grants nothing.
 */
permissions: GrantedPermissionProfile, 
/**
 * For the turn (default) or for the rest of the thread.
 */
scope: PermissionGrantScope, 
/**
 * Review every later command of the turn before it runs (accepted; Tandem's approval
 * policy already decides that).
 */
strictAutoReview?: boolean | null, };
