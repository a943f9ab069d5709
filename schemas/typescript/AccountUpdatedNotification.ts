// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { AuthMode } from "./AuthMode";
import type { PlanType } from "./PlanType";

/**
 * Params of `account/updated`: the login changed (after a login or a logout).
 */
export type AccountUpdatedNotification = { 
/**
 * The new auth mode; `null` after a logout.
 */
authMode: AuthMode | null, 
/**
 * The plan; always `null`.
 */
planType: PlanType | null, };
