// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `hooks/list`.
 */
export type HooksListParams = { 
/**
 * The working directories to report, one entry each; omitted or empty reports the
 * server's working directory (or the thread's, with `threadId`).
 */
cwds?: Array<string> | null, 
/**
 * A loaded thread of the caller whose working directory to report.
 */
threadId?: string | null, };
