// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Result of `initialize`.
 */
export type InitializeResponse = { 
/**
 * `<clientInfo.name>/<protocol version> (<os> <os version>; <arch>) tandem/<version> (<clientInfo.name>; <clientInfo.version>)`.
 */
userAgent: string, 
/**
 * The server's home directory (`TANDEM_HOME`), absolute.
 */
codexHome: string, 
/**
 * Platform family: `unix` or `windows`.
 */
platformFamily: string, 
/**
 * Operating system: `linux`, `macos` or `windows`.
 */
platformOs: string, };
