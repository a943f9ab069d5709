// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `item/tool/call`: the model called a tool the client declared; the client
 * runs it and answers with its output.
 */
export type DynamicToolCallParams = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * The turn.
 */
turnId: string, 
/**
 * The model's call id, also the id of the `dynamicToolCall` item.
 */
callId: string, 
/**
 * The namespace the tool was declared in; `null` for a top-level function.
 */
namespace: string | null, 
/**
 * The tool's name as declared.
 */
tool: string, 
/**
 * The arguments as the model sent them (`{}` when it sent none).
 */
arguments: unknown, };
