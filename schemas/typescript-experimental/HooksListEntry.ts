// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { HookErrorInfo } from "./HookErrorInfo";
import type { HookMetadata } from "./HookMetadata";

/**
 * The hooks configured for one working directory.
 */
export type HooksListEntry = { 
/**
 * The working directory, as requested.
 */
cwd: string, 
/**
 * Every configured hook, trusted or not, in the order they run.
 */
hooks: Array<HookMetadata>, 
/**
 * Configuration problems that did not stop the other hooks (a hook kind or event this
 * server does not run, an invalid matcher, an empty command).
 */
warnings: Array<string>, 
/**
 * Configuration files that could not be read.
 */
errors: Array<HookErrorInfo>, };
