// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Why a startup failed, when it is a known reason.
 */
export type McpServerStartupFailureReason = "reauthenticationRequired";
