// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadSection } from "./ThreadSection";

/**
 * Result of `threadSection/update`.
 */
export type ThreadSectionUpdateResponse = { 
/**
 * The section as it is now.
 */
section: ThreadSection, };
