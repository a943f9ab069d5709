// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ImageDetail } from "./ImageDetail";
import type { TextElement } from "./TextElement";

/**
 * One piece of user input (tagged by `type`).
 */
export type UserInput = { "type": "text", 
/**
 * The text.
 */
text: string, 
/**
 * Ranges of the text that stand for UI elements (snake_case on the wire).
 */
text_elements?: Array<TextElement>, } | { "type": "image", 
/**
 * The image URL.
 */
url: string, 
/**
 * Requested detail level.
 */
detail?: ImageDetail | null, } | { "type": "localImage", 
/**
 * Requested detail level.
 */
detail?: ImageDetail | null, 
/**
 * Path of the image file.
 */
path: string, } | { "type": "audio", 
/**
 * The audio URL (including `data:` URLs).
 */
url?: string, 
/**
 * An uploaded file's id.
 */
fileId?: string, } | { "type": "localAudio", 
/**
 * Path of the audio file.
 */
path: string, } | { "type": "skill", 
/**
 * Skill name.
 */
name: string, 
/**
 * Path of the skill's `SKILL.md`.
 */
path: string, } | { "type": "mention", 
/**
 * Display name.
 */
name: string, 
/**
 * What the mention points at.
 */
path: string, };
