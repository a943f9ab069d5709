// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * One named thing of an item.
 */
export type NamedMigration = { 
/**
 * Its name.
 */
name: string, };
