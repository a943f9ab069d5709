// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { HookOutputEntryKind } from "./HookOutputEntryKind";

/**
 * One thing a hook run said.
 */
export type HookOutputEntry = { 
/**
 * What it is.
 */
kind: HookOutputEntryKind, 
/**
 * The text.
 */
text: string, };
