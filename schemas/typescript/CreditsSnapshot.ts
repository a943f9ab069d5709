// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Credits of an account.
 */
export type CreditsSnapshot = { 
/**
 * Whether there are credits left.
 */
hasCredits: boolean, 
/**
 * Whether credits are unlimited.
 */
unlimited: boolean, 
/**
 * The balance, as a decimal string.
 */
balance: string | null, };
