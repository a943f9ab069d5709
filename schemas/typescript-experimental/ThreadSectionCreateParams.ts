// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadSectionAppearance } from "./ThreadSectionAppearance";

/**
 * Parameters of `threadSection/create`.
 */
export type ThreadSectionCreateParams = { 
/**
 * The section's name; surrounding whitespace is trimmed and the rest must not be empty.
 */
name: string, 
/**
 * How clients draw the section.
 */
appearance?: ThreadSectionAppearance | null, };
