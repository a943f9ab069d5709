// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * Parameters of `thread/inject_items`.
 */
export type ThreadInjectItemsParams = { 
/**
 * The thread; it must be loaded.
 */
threadId: string, 
/**
 * Raw Responses API items (`message`, `function_call`, …) appended to the thread's
 * model-visible history, in order. They become no turn or item of the thread.
 */
items: Array<unknown>, };
