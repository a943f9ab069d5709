// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * One piece of a dynamic tool call's output (tagged by `type`).
 */
export type DynamicToolCallOutputContentItem = { "type": "inputText", 
/**
 * The text.
 */
text: string, } | { "type": "inputImage", 
/**
 * The image as a URL (a `data:` URL or an `https:` one).
 */
imageUrl: string, } | { "type": "inputAudio", 
/**
 * The audio as a URL.
 */
audioUrl: string, };
