// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `feedback/save`.
 */
export type FeedbackSaveParams = { 
/**
 * What kind of feedback it is (`bug`, `good_result`, …), recorded in the bundle.
 */
classification: string, 
/**
 * Absolute path of the ZIP file to create, within the connection's file roots; it must
 * not exist yet.
 */
savePath: string, 
/**
 * One of the caller's threads whose rollout goes into the bundle.
 */
threadId?: string | null, 
/**
 * The user's words about it, recorded in the bundle.
 */
reason?: string | null, 
/**
 * Whether the server's logs (`$TANDEM_HOME/log/`) go into the bundle.
 */
includeLogs: boolean, 
/**
 * More log files to include (with `includeLogs`), each within the connection's file
 * roots; at most 16.
 */
extraLogFiles?: Array<string> | null, 
/**
 * Labels recorded in the bundle.
 */
tags?: { [key in string]: string } | null, };
