// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
import type { ThreadSettings } from "./ThreadSettings";

/**
 * `thread/settings/updated`: a thread's settings changed (`thread/settings/update`).
 */
export type ThreadSettingsUpdatedNotification = { 
/**
 * The thread.
 */
threadId: string, 
/**
 * Its settings now.
 */
threadSettings: ThreadSettings, };
