// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A 1-based, inclusive line range. @experimental
 */
export type IndexLineRange = { 
/**
 * First line.
 */
start: number, 
/**
 * Last line.
 */
end: number, };
