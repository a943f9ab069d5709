// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A duration as Rust's `std::time::Duration` serializes it.
 */
export type EventDuration = { 
/**
 * Whole seconds.
 */
secs: number, 
/**
 * Nanoseconds past the whole seconds.
 */
nanos: number, };
