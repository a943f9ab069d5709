// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CancelLoginAccountStatus } from "./CancelLoginAccountStatus";

/**
 * Result of `account/login/cancel`.
 */
export type CancelLoginAccountResponse = { 
/**
 * Whether a login was cancelled. API-key logins complete at once, so Tandem always
 * answers `notFound`.
 */
status: CancelLoginAccountStatus, };
