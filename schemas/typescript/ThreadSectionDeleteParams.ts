// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `threadSection/delete`: the section goes, and its threads belong to no
 * section afterwards. The built-in "Pinned" section cannot be deleted.
 */
export type ThreadSectionDeleteParams = { 
/**
 * The section to delete.
 */
sectionId: string, };
