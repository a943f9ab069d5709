// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `item/fileChange/requestApproval`: may these edits be written? The edits are
 * in the preceding `item/started` fileChange item.
 */
export type FileChangeRequestApprovalParams = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * The fileChange item (the model's `call_id`).
 */
itemId: string, 
/**
 * When the item started (Unix milliseconds).
 */
startedAtMs: number, 
/**
 * Why approval is needed.
 */
reason: string | null, 
/**
 * A directory the agent asks to be able to write to for the rest of the session.
 */
grantRoot: string | null, };
