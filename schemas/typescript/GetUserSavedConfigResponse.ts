// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { UserSavedConfig } from "./UserSavedConfig";

/**
 * Result of `getUserSavedConfig`: the user's `config.toml` as saved (without `-c`
 * overrides).
 */
export type GetUserSavedConfigResponse = { 
/**
 * The saved settings.
 */
config: UserSavedConfig, };
