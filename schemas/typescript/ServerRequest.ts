// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ApplyPatchApprovalParams } from "./ApplyPatchApprovalParams";
import type { CommandExecutionRequestApprovalParams } from "./CommandExecutionRequestApprovalParams";
import type { CommandExecutionRequestApprovalResponse } from "./CommandExecutionRequestApprovalResponse";
import type { DynamicToolCallParams } from "./DynamicToolCallParams";
import type { DynamicToolCallResponse } from "./DynamicToolCallResponse";
import type { ExecCommandApprovalParams } from "./ExecCommandApprovalParams";
import type { FileChangeRequestApprovalParams } from "./FileChangeRequestApprovalParams";
import type { FileChangeRequestApprovalResponse } from "./FileChangeRequestApprovalResponse";
import type { McpServerElicitationRequestParams } from "./McpServerElicitationRequestParams";
import type { McpServerElicitationRequestResponse } from "./McpServerElicitationRequestResponse";
import type { PermissionsRequestApprovalParams } from "./PermissionsRequestApprovalParams";
import type { PermissionsRequestApprovalResponse } from "./PermissionsRequestApprovalResponse";
import type { RequestId } from "./RequestId";
import type { ReviewDecisionResponse } from "./ReviewDecisionResponse";

/**
 * A request from the server to the client; the turn waits for the answer.
 */
export type ServerRequest =
  | { method: "item/commandExecution/requestApproval", id: RequestId, params: CommandExecutionRequestApprovalParams }
  | { method: "item/fileChange/requestApproval", id: RequestId, params: FileChangeRequestApprovalParams }
  | { method: "applyPatchApproval", id: RequestId, params: ApplyPatchApprovalParams }
  | { method: "execCommandApproval", id: RequestId, params: ExecCommandApprovalParams }
  | { method: "mcpServer/elicitation/request", id: RequestId, params: McpServerElicitationRequestParams }
  | { method: "item/tool/call", id: RequestId, params: DynamicToolCallParams }
  | { method: "item/permissions/requestApproval", id: RequestId, params: PermissionsRequestApprovalParams };

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
  /**
   * An MCP server asks the user something during a tool call (or Tandem asks whether an
   * MCP tool may run); the answer goes back to the server.
   */
  "mcpServer/elicitation/request": { params: McpServerElicitationRequestParams; response: McpServerElicitationRequestResponse };
  /**
   * The model called a tool the client declared at `thread/start` (`dynamicTools`): the
   * client runs it and answers with its output.
   */
  "item/tool/call": { params: DynamicToolCallParams; response: DynamicToolCallResponse };
  /**
   * The model asks for more than the thread's sandbox gives (`request_permissions`): the
   * client grants a subset, for the turn or the rest of the thread, within the operator's
   * ceiling.
   */
  "item/permissions/requestApproval": { params: PermissionsRequestApprovalParams; response: PermissionsRequestApprovalResponse };
};
