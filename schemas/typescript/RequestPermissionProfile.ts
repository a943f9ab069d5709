// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { AdditionalFileSystemPermissions } from "./AdditionalFileSystemPermissions";
import type { AdditionalNetworkPermissions } from "./AdditionalNetworkPermissions";

/**
 * The permissions the model asked for.
 */
export type RequestPermissionProfile = { 
/**
 * Network access.
 */
network?: AdditionalNetworkPermissions | null, 
/**
 * File-system access.
 */
fileSystem?: AdditionalFileSystemPermissions | null, };
