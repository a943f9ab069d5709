// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Which server request carries the model's `request_user_input` questions on a connection.
 */
export type RequestUserInputMethod = "item/tool/requestUserInput" | "tool/requestUserInput";
