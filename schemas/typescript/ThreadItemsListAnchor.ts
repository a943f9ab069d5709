// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * An item position within the turn named by `turnId`, excluded from the page.
 */
export type ThreadItemsListAnchor = { "type": "item", 
/**
 * The item's id.
 */
itemId: string, };
