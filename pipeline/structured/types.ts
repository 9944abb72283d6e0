/**
 * The shapes extraction passes between its parts: what the page's structured markup says
 * (pipeline/structured/markup), what the page rules read from the visible page
 * (actors/parser/page-data/rules), and how a filled answer records where each field came from
 * (pipeline/structured/fill.ts). The parser reads markup and rules; the extractor pool
 * (actors/extractor) asks a model for what is left; both fill through pipeline/structured.
 */

/** Where a thing was read: a markup syntax, the page's meta tags, or the page rules. */
export type ThingSource = 'json-ld' | 'microdata' | 'rdfa' | 'meta' | 'page';

/** A property value: text, a number or boolean (JSON-LD keeps them), or a nested thing. */
export type ThingValue = string | number | boolean | Thing;

/**
 * One schema.org-shaped thing. `types` are schema.org short names (`Product`, `NewsArticle`;
 * `http://schema.org/` and `https://schema.org/` prefixes dropped; an unknown vocabulary's
 * type is kept as written). `props` maps a schema.org property name to its values in
 * document order: always an array, never empty; text trimmed and whitespace-collapsed; a
 * nested item, node or JSON-LD object is a nested Thing (an `@id` reference to a node of the
 * same page is resolved to that node's Thing, once, without cycles).
 */
export interface Thing {
  readonly types: readonly string[];
  readonly id?: string;
  readonly source: ThingSource;
  readonly props: Readonly<Record<string, readonly ThingValue[]>>;
}

/** Where a filled field's value came from; `confidence` weighs them (pipeline/structured/fill.ts). */
export type FieldSource = 'markup' | 'page' | 'model';

export const sourceOfThing = (source: ThingSource): FieldSource => (source === 'page' ? 'page' : 'markup');
