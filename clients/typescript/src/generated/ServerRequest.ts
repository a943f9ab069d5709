// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ApplyPatchApprovalParams } from "./ApplyPatchApprovalParams";
import type { CommandExecutionRequestApprovalParams } from "./CommandExecutionRequestApprovalParams";
import type { CommandExecutionRequestApprovalResponse } from "./CommandExecutionRequestApprovalResponse";
import type { ExecCommandApprovalParams } from "./ExecCommandApprovalParams";
import type { FileChangeRequestApprovalParams } from "./FileChangeRequestApprovalParams";
import type { FileChangeRequestApprovalResponse } from "./FileChangeRequestApprovalResponse";
import type { RequestId } from "./RequestId";
import type { ReviewDecisionResponse } from "./ReviewDecisionResponse";

/**
 * A request from the server to the client; the turn waits for the answer.
 */
export type ServerRequest =
  | { method: "item/commandExecution/requestApproval", id: RequestId, params: CommandExecutionRequestApprovalParams }
  | { method: "item/fileChange/requestApproval", id: RequestId, params: FileChangeRequestApprovalParams }
  | { method: "applyPatchApproval", id: RequestId, params: ApplyPatchApprovalParams }
  | { method: "execCommandApproval", id: RequestId, params: ExecCommandApprovalParams };

/**
 * Each `ServerRequest` method with its params and response type.
 */
export type ServerRequestMap = {
  /**
   * Ask whether a command may run.
   */
  "item/commandExecution/requestApproval": { params: CommandExecutionRequestApprovalParams; response: CommandExecutionRequestApprovalResponse };
  /**
   * Ask whether file changes may be written.
   */
  "item/fileChange/requestApproval": { params: FileChangeRequestApprovalParams; response: FileChangeRequestApprovalResponse };
  /**
   * Legacy: ask whether a conversation's patch may be applied (instead of
   * `item/fileChange/requestApproval`).
   */
  "applyPatchApproval": { params: ApplyPatchApprovalParams; response: ReviewDecisionResponse };
  /**
   * Legacy: ask whether a conversation's command may run (instead of
   * `item/commandExecution/requestApproval`).
   */
  "execCommandApproval": { params: ExecCommandApprovalParams; response: ReviewDecisionResponse };
};
