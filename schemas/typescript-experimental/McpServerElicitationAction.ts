// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * The user's choice on an elicitation.
 */
export type McpServerElicitationAction = "accept" | "decline" | "cancel";
