// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * `thread/section/changed`: a thread was moved by `thread/section/move`.
 */
export type ThreadSectionChangedNotification = { 
/**
 * The thread that moved.
 */
threadId: string, 
/**
 * The section it is in now; `null` when it was taken out of its section.
 */
sectionId: string | null, };
