// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { GranularApprovalConfig } from "./GranularApprovalConfig";

/**
 * When the agent must ask the client before acting.
 *
 * Wire values are kebab-case (`"on-request"`), unlike most of the protocol.
 */
export type AskForApproval = "untrusted" | "on-request" | { "granular": GranularApprovalConfig } | "never";
