// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * A choice offered for a question.
 */
export type ToolRequestUserInputOption = { 
/**
 * The choice as shown and as answered.
 */
label: string, 
/**
 * What it means.
 */
description: string, };
