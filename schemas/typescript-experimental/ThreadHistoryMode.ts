// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * How a thread's history is stored.
 */
export type ThreadHistoryMode = "legacy" | "paginated";
