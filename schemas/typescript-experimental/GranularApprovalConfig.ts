// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Which questions `{"granular": {…}}` lets reach the client (snake_case on the wire). A flag
 * set to `false` turns that kind of question into a refusal the model sees.
 */
export type GranularApprovalConfig = { 
/**
 * Commands that need the user: running outside the sandbox (an escalation the model
 * requests, or the retry of a command the sandbox blocked), and patches that write
 * outside the writable roots.
 */
sandbox_approval: boolean, 
/**
 * Questions raised by execution-policy `prompt` rules. Accepted and ignored: Tandem has
 * no execution-policy rules.
 */
rules: boolean, 
/**
 * Questions raised by skill scripts. Accepted and ignored: Tandem runs no skill scripts.
 */
skill_approval: boolean, 
/**
 * Questions raised by the `request_permissions` tool (offered when the operator sets
 * `request_permissions_tool`): `false` grants nothing without asking.
 */
request_permissions: boolean, 
/**
 * MCP questions: approving a call to a tool of a configured MCP server, and elicitations
 * those servers send.
 */
mcp_elicitations: boolean, };
