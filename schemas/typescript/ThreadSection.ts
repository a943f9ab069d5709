// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadSectionAppearance } from "./ThreadSectionAppearance";

/**
 * A named group of threads, shared by every client of the principal that created it.
 */
export type ThreadSection = { 
/**
 * The section's UUIDv7, chosen by the server; it stays when the section is renamed.
 */
id: string, 
/**
 * The name shown to the user (trimmed, never empty).
 */
name: string, 
/**
 * How clients draw the section, when one was set.
 */
appearance: ThreadSectionAppearance | null, };
