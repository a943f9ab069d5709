// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Codex's first-generation input item, tagged by `type` with its content under `data`.
 */
export type LegacyInputItem = { "type": "text", "data": { 
/**
 * The text.
 */
text: string, } } | { "type": "image", "data": { 
/**
 * The image URL.
 */
image_url: string, } } | { "type": "localImage", "data": { 
/**
 * Path of the image file.
 */
path: string, } };
