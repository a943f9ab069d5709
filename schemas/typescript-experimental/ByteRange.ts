// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A half-open byte range.
 */
export type ByteRange = { 
/**
 * First byte.
 */
start: number, 
/**
 * One past the last byte.
 */
end: number, };
