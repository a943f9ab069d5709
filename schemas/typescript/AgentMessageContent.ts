// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A part of an agent message (tagged by `type`).
 */
export type AgentMessageContent = { "type": "Text", 
/**
 * The text.
 */
text: string, };
