// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A function tool of [`DynamicToolSpec`].
 */
export type FunctionDynamicToolSpec = { 
/**
 * The tool's name (letters, digits, `_` and `-`, as the Responses API requires).
 */
name: string, 
/**
 * What the tool does, shown to the model.
 */
description: string, 
/**
 * JSON Schema (an object) of the arguments the model passes.
 */
inputSchema: unknown, 
/**
 * Asks that the tool be loaded only when the model searches for it; allowed only inside
 * a namespace. Tandem has no tool search, so a deferred tool is offered like any other.
 */
deferLoading?: boolean, };
