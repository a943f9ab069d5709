// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CommandExecutionRequestApprovalParams } from "./CommandExecutionRequestApprovalParams";
import type { CommandExecutionRequestApprovalResponse } from "./CommandExecutionRequestApprovalResponse";
import type { FileChangeRequestApprovalParams } from "./FileChangeRequestApprovalParams";
import type { FileChangeRequestApprovalResponse } from "./FileChangeRequestApprovalResponse";
import type { McpServerElicitationRequestParams } from "./McpServerElicitationRequestParams";
import type { McpServerElicitationRequestResponse } from "./McpServerElicitationRequestResponse";
import type { RequestId } from "./RequestId";
import type { ToolRequestUserInputParams } from "./ToolRequestUserInputParams";
import type { ToolRequestUserInputResponse } from "./ToolRequestUserInputResponse";

/**
 * A request from the server to the client; the turn waits for the answer.
 */
export type ServerRequest =
  | { method: "item/commandExecution/requestApproval", id: RequestId, params: CommandExecutionRequestApprovalParams }
  | { method: "item/fileChange/requestApproval", id: RequestId, params: FileChangeRequestApprovalParams }
  | { method: "item/tool/requestUserInput", id: RequestId, params: ToolRequestUserInputParams }
  | { method: "mcpServer/elicitation/request", id: RequestId, params: McpServerElicitationRequestParams };

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
   * Ask the user one to three questions.
   */
  "item/tool/requestUserInput": { params: ToolRequestUserInputParams; response: ToolRequestUserInputResponse };
  /**
   * An MCP server asks the user something during a tool call (or Tandem asks whether an
   * MCP tool may run); the answer goes back to the server.
   */
  "mcpServer/elicitation/request": { params: McpServerElicitationRequestParams; response: McpServerElicitationRequestResponse };
};
