// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * How a file-system entry may be used.
 */
export type FileSystemAccessMode = "read" | "write" | "deny";
