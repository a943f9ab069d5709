// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { FuzzyFileSearchResult } from "./FuzzyFileSearchResult";

/**
 * Result of `fuzzyFileSearch`.
 */
export type FuzzyFileSearchResponse = { 
/**
 * Matches, best first.
 */
files: Array<FuzzyFileSearchResult>, };
