// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ToolRequestUserInputAnswer } from "./ToolRequestUserInputAnswer";

/**
 * Answer to `item/tool/requestUserInput`.
 */
export type ToolRequestUserInputResponse = { 
/**
 * Answers keyed by question id.
 */
answers: { [key in string]: ToolRequestUserInputAnswer }, };
