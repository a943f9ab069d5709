// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A terminal size.
 */
export type CommandExecTerminalSize = { 
/**
 * Rows.
 */
rows: number, 
/**
 * Columns.
 */
cols: number, };
