// GENERATED CODE! DO NOT MODIFY BY HAND! Regenerate with `tandem app-server generate-ts`.
/**
 * How clients draw a section. The server stores it and gives it back; it does not interpret
 * it.
 */
export type ThreadSectionAppearance = { 
/**
 * A color name or code chosen by the client.
 */
color?: string | null, 
/**
 * An icon name chosen by the client.
 */
icon?: string | null, };
