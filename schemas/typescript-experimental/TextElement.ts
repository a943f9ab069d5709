// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ByteRange } from "./ByteRange";

/**
 * A range of a text input that stands for a UI element.
 */
export type TextElement = { 
/**
 * Byte range in the text.
 */
byteRange: ByteRange, 
/**
 * Placeholder shown for the element.
 */
placeholder?: string | null, };
