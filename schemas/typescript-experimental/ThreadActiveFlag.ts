// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * What an active thread is waiting for.
 */
export type ThreadActiveFlag = "waitingOnApproval" | "waitingOnUserInput";
