// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { IndexLineRange } from "./IndexLineRange";

/**
 * One ranked snippet of `index/query`. @experimental
 */
export type IndexQueryResult = { 
/**
 * File path relative to the repository root, with `/` separators.
 */
path: string, 
/**
 * The snippet's lines in the file.
 */
lineRange: IndexLineRange, 
/**
 * The text of those lines (long chunks are cut at a line end).
 */
snippet: string, 
/**
 * `(1 − alpha) × lexical + alpha × embedding`, both normalised to 0..1 over the
 * candidates (see `docs/mcp.md`); higher is better.
 */
score: number, };
