// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A configuration file whose hooks could not be read.
 */
export type HookErrorInfo = { 
/**
 * The file.
 */
path: string, 
/**
 * What is wrong with it.
 */
message: string, };
