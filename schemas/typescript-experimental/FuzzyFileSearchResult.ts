// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { FuzzyFileSearchMatchType } from "./FuzzyFileSearchMatchType";

/**
 * One fuzzy-search match (snake_case on the wire).
 */
export type FuzzyFileSearchResult = { 
/**
 * The search root the match is under.
 */
root: string, 
/**
 * Path relative to `root`.
 */
path: string, 
/**
 * File or directory.
 */
match_type: FuzzyFileSearchMatchType, 
/**
 * Last path component.
 */
file_name: string, 
/**
 * Match score; higher is better.
 */
score: number, 
/**
 * Matched character indices in `path`.
 */
indices: Array<number> | null, };
