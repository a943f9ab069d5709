// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Params of `account/login/completed`: a login finished.
 */
export type AccountLoginCompletedNotification = { 
/**
 * The login's id; `null` for an API-key login (it has none).
 */
loginId: string | null, 
/**
 * Whether the login succeeded.
 */
success: boolean, 
/**
 * Why it failed.
 */
error: string | null, 
/**
 * Onboarding entry point of a desktop client; always `null`.
 */
onboardingEntrypoint: JsonValue | null, };
