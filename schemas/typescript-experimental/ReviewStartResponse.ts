// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { Turn } from "./Turn";

/**
 * Result of `review/start`, sent before the review's turn runs.
 */
export type ReviewStartResponse = { 
/**
 * The review's turn, in progress; its one item is a `userMessage` naming what is
 * reviewed (the same words as the `enteredReviewMode` item).
 */
turn: Turn, 
/**
 * The thread id supplied to `review/start`.
 */
reviewThreadId: string, };
