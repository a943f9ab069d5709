// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { PlanType } from "./PlanType";

/**
 * The logged-in account.
 */
export type Account = { "type": "apiKey" } | { "type": "chatgpt", 
/**
 * The account's e-mail address.
 */
email: string | null, 
/**
 * The subscription plan.
 */
planType: PlanType, 
/**
 * The workspace name.
 */
workspaceName: string | null, } | { "type": "amazonBedrock", 
/**
 * Whether the credentials are managed by the server.
 */
usesCodexManagedCredentials: boolean, } | { "type": "gcp" };
