package tandem

import (
	"context"

	"example.invalid/tandem/clients/go/protocol"
)

// OnCommandApproval answers item/commandExecution/requestApproval (may this command run?).
func (c *Client) OnCommandApproval(handler func(ctx context.Context, params *protocol.CommandExecutionRequestApprovalParams) (*protocol.CommandExecutionRequestApprovalResponse, error)) {
	c.HandleItemCommandExecutionRequestApproval(handler)
}

// OnFileChangeApproval answers item/fileChange/requestApproval (may this patch be applied?).
func (c *Client) OnFileChangeApproval(handler func(ctx context.Context, params *protocol.FileChangeRequestApprovalParams) (*protocol.FileChangeRequestApprovalResponse, error)) {
	c.HandleItemFileChangeRequestApproval(handler)
}

// OnUserInput answers item/tool/requestUserInput (the model's questions; experimental: the
// server sends it only to a client with the experimentalApi capability).
func (c *Client) OnUserInput(handler func(ctx context.Context, params *protocol.ToolRequestUserInputParams) (*protocol.ToolRequestUserInputResponse, error)) {
	c.HandleItemToolRequestUserInput(handler)
}

// CommandDecision is a command approval answer with a plain decision (accept, decline…).
func CommandDecision(name protocol.CommandExecutionApprovalDecisionName) *protocol.CommandExecutionRequestApprovalResponse {
	return &protocol.CommandExecutionRequestApprovalResponse{Decision: protocol.CommandExecutionApprovalDecision{Name: name}}
}

// FileChangeDecision is a file-change approval answer.
func FileChangeDecision(decision protocol.FileChangeApprovalDecision) *protocol.FileChangeRequestApprovalResponse {
	return &protocol.FileChangeRequestApprovalResponse{Decision: decision}
}
