// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { AdditionalFileSystemPermissions } from "./AdditionalFileSystemPermissions";
import type { AdditionalNetworkPermissions } from "./AdditionalNetworkPermissions";

/**
 * The permissions a client grants: a subset of those asked for; anything else is ignored.
 */
export type GrantedPermissionProfile = { 
/**
 * Network access.
 */
network?: AdditionalNetworkPermissions | null, 
/**
 * File-system access.
 */
fileSystem?: AdditionalFileSystemPermissions | null, };
