// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Params of `loginChatGptComplete` (legacy): a ChatGPT login finished. Tandem has no ChatGPT
 * login and never sends it; declared for clients of the first-generation API.
 */
export type LoginChatGptCompleteNotification = { 
/**
 * The login's id.
 */
loginId: string, 
/**
 * Whether it succeeded.
 */
success: boolean, 
/**
 * Why it failed.
 */
error: string | null, };
