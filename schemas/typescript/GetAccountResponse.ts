// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Account } from "./Account";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Result of `account/read`.
 */
export type GetAccountResponse = { 
/**
 * The account: `{"type": "apiKey"}` when a key is stored in `auth.json` or the default
 * provider's key variable is set; `null` otherwise.
 */
account: Account | null, 
/**
 * The user id; always `null` (an API key has none).
 */
userId: string | null, 
/**
 * Whether the default provider needs an API key (it declares `env_key`).
 */
requiresOpenaiAuth: boolean, 
/**
 * Workspace routing of a ChatGPT account; always `null`.
 */
workspaceRouting: JsonValue | null, };
