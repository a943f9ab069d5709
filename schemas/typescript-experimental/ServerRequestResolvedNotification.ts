// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { RequestId } from "./RequestId";

/**
 * `serverRequest/resolved`: a server request was answered or cleaned up.
 */
export type ServerRequestResolvedNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * Id of the server request.
 */
requestId: RequestId, };
