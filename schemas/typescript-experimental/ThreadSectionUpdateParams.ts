// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadSectionAppearance } from "./ThreadSectionAppearance";

/**
 * Parameters of `threadSection/update`: rename a section and, optionally, change how it is
 * drawn. The built-in "Pinned" section cannot be renamed.
 */
export type ThreadSectionUpdateParams = { 
/**
 * The section to change.
 */
sectionId: string, 
/**
 * Its new name; surrounding whitespace is trimmed and the rest must not be empty.
 */
name: string, 
/**
 * Left out keeps the appearance, `null` removes it, an object replaces it.
 */
appearance?: ThreadSectionAppearance | null, };
