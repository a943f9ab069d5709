// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Parameters of `account/login/start`: how to log in. Only `apiKey` is supported; the other
 * types answer an error that says so.
 */
export type LoginAccountParams = { "type": "apiKey", 
/**
 * The key; must not be empty.
 */
apiKey: string, } | { "type": "chatgpt", 
/**
 * Reference client option; ignored.
 */
codexStreamlinedLogin?: boolean, 
/**
 * Reference client option; ignored.
 */
useHostedLoginSuccessPage?: boolean, 
/**
 * Reference client option; ignored.
 */
appBrand?: JsonValue, } | { "type": "chatgptDeviceCode" } | { "type": "chatgptAuthTokens", 
/**
 * Access token.
 */
accessToken: string, 
/**
 * Account id.
 */
chatgptAccountId: string, 
/**
 * Plan type.
 */
chatgptPlanType?: string, } | { "type": "amazonBedrock", 
/**
 * The key.
 */
apiKey: string, 
/**
 * AWS region.
 */
region: string, } | { "type": "amazonBedrockAccessKeys", 
/**
 * Access key id.
 */
accessKeyId: string, 
/**
 * Secret access key.
 */
secretAccessKey: string, 
/**
 * Session token.
 */
sessionToken?: string, 
/**
 * AWS region.
 */
region: string, };
