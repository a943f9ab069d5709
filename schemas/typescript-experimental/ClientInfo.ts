// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Identification of the client.
 */
export type ClientInfo = { 
/**
 * Machine-readable client name, such as `vscode_extension`.
 */
name: string, 
/**
 * Human-readable client name.
 */
title?: string | null, 
/**
 * Client version.
 */
version: string, };
