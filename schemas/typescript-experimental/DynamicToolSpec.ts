// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { FunctionDynamicToolSpec } from "./FunctionDynamicToolSpec";
import type { NamespaceDynamicToolSpec } from "./NamespaceDynamicToolSpec";

/**
 * A tool the client offers the model for the whole thread (tagged by `type`; a spec without
 * `type` is read as a function, as the reference reads it).
 */
export type DynamicToolSpec = { "type": "function" } & FunctionDynamicToolSpec | { "type": "namespace" } & NamespaceDynamicToolSpec;
