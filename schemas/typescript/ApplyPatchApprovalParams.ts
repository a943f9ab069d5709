// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { FileChange } from "./FileChange";

/**
 * Params of the server request `applyPatchApproval`: may this patch be applied? Legacy;
 * sent for conversations instead of `item/fileChange/requestApproval`.
 */
export type ApplyPatchApprovalParams = { 
/**
 * The conversation (thread) id.
 */
conversationId: string, 
/**
 * The model's call id.
 */
callId: string, 
/**
 * The changes by absolute path.
 */
fileChanges: { [key in string]: FileChange }, 
/**
 * Why approval is needed.
 */
reason: string | null, 
/**
 * A directory the patch would make writable for the rest of the session.
 */
grantRoot: string | null, };
