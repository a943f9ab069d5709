// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Outcome of `account/login/cancel`.
 */
export type CancelLoginAccountStatus = "canceled" | "notFound";
