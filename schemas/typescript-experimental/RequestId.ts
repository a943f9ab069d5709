// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Identifier of a request: a string or an integer, echoed back with its original JSON type.
 */
export type RequestId = string | number;
