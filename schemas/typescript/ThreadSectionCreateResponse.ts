// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadSection } from "./ThreadSection";

/**
 * Result of `threadSection/create`.
 */
export type ThreadSectionCreateResponse = { 
/**
 * The new section, with the id the server gave it.
 */
section: ThreadSection, };
