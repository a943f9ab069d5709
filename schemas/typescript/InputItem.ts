// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { LegacyInputItem } from "./LegacyInputItem";
import type { UserInput } from "./UserInput";

/**
 * One input of `sendUserMessage` / `sendUserTurn`: Codex's `{"type", "data"}` form
 * (`{"type": "text", "data": {"text": …}}`), or the thread API's flat `UserInput`.
 */
export type InputItem = LegacyInputItem | UserInput;
