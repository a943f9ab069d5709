// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `collaborationMode/list` params (none).
 */
export type CollaborationModeListParams = Record<symbol, never>;
