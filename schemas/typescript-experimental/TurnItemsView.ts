// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * How much of a turn's item list is included.
 */
export type TurnItemsView = "notLoaded" | "summary" | "full";
