// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `account/login/cancel`.
 */
export type CancelLoginAccountParams = { 
/**
 * The login to cancel.
 */
loginId: string, };
