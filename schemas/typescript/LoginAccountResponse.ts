// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `account/login/start`. Tandem only answers `apiKey`: the key is stored when the
 * response is sent, and `account/login/completed` and `account/updated` follow.
 */
export type LoginAccountResponse = { "type": "apiKey" } | { "type": "chatgpt", 
/**
 * Id for `account/login/cancel` and `account/login/completed`.
 */
loginId: string, 
/**
 * URL to open in a browser.
 */
authUrl: string, } | { "type": "chatgptDeviceCode", 
/**
 * Id for `account/login/cancel` and `account/login/completed`.
 */
loginId: string, 
/**
 * Where to enter the code.
 */
verificationUrl: string, 
/**
 * The code.
 */
userCode: string, } | { "type": "chatgptAuthTokens" } | { "type": "amazonBedrock" };
