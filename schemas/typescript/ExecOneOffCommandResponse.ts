// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `execOneOffCommand`.
 */
export type ExecOneOffCommandResponse = { 
/**
 * Exit code (124 on timeout).
 */
exitCode: number, 
/**
 * Standard output.
 */
stdout: string, 
/**
 * Standard error.
 */
stderr: string, };
