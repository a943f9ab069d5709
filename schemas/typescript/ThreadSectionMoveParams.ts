// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/section/move`: put a thread into a section (at its end, or before
 * another of its threads), move it within its section, or take it out.
 */
export type ThreadSectionMoveParams = { 
/**
 * The thread to move.
 */
threadId: string, 
/**
 * The section to put it in; `null` takes it out of its section.
 */
sectionId: string | null, 
/**
 * A thread of that section to put it just before; left out or `null` puts it last.
 */
beforeThreadId?: string | null, };
