// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `command/exec/terminate`.
 */
export type CommandExecTerminateParams = { 
/**
 * The command's `processId`.
 */
processId: string, };
