// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { CodexErrorInfo } from "./CodexErrorInfo";
import type { JsonValue } from "./serde_json/JsonValue";

/**
 * Why a turn failed.
 */
export type TurnError = { 
/**
 * Human-readable description.
 */
message: string, 
/**
 * Machine-readable category.
 */
codexErrorInfo: CodexErrorInfo | null, 
/**
 * Extra detail, such as the transport error.
 */
additionalDetails: string | null, 
/**
 * Misalignment details; always `null` in Tandem.
 */
misalignment: JsonValue | null, };
