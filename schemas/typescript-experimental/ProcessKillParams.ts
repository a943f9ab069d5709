// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `process/kill`.
 */
export type ProcessKillParams = { 
/**
 * A running process of this connection; its process group is killed and
 * `process/exited` follows.
 */
processHandle: string, };
