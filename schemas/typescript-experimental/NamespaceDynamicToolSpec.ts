// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { DynamicToolNamespaceTool } from "./DynamicToolNamespaceTool";

/**
 * A namespace of [`DynamicToolSpec`]: tools grouped under one name.
 */
export type NamespaceDynamicToolSpec = { 
/**
 * The namespace's name (letters, digits, `_` and `-`).
 */
name: string, 
/**
 * What the tools of the namespace are for.
 */
description: string, 
/**
 * The tools (at least one, names unique within the namespace).
 */
tools: Array<DynamicToolNamespaceTool>, };
