// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `modelProvider/capabilities/read`: which hosted tools the default provider's
 * threads are offered.
 */
export type ModelProviderCapabilitiesReadResponse = { 
/**
 * Image generation; always `false`: Tandem offers no image-generation tool.
 */
imageGeneration: boolean, 
/**
 * Web search; always `false`: Tandem offers no web-search tool.
 */
webSearch: boolean, };
