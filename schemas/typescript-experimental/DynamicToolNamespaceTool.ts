// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { FunctionDynamicToolSpec } from "./FunctionDynamicToolSpec";

/**
 * One tool of a namespace (tagged by `type`).
 */
export type DynamicToolNamespaceTool = { "type": "function" } & FunctionDynamicToolSpec;
