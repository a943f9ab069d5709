// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `userInfo`.
 */
export type UserInfoResponse = { 
/**
 * The signed-in user's e-mail; always `null` (Tandem has no ChatGPT login).
 */
allegedUserEmail: string | null, };
