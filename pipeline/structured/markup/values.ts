/**
 * Normalising what the three syntaxes and the meta tags read into schema.org-shaped values,
 * one set of rules for all of them:
 *
 * - names: types and properties lose `http(s)://schema.org/` (also `www.`, protocol-less) and
 *   `schema:`; anything else is kept as written;
 * - text: trimmed, whitespace runs collapsed to one space, empty text dropped;
 * - HTML inside JSON strings (`"<p>Fine &amp; dandy</p>"`) reduced to its text by htmlparser2
 *   (tags dropped, block tags read as spaces, entities decoded); the markup syntaxes need
 *   nothing of the kind, their text and attributes come out of the page's own parse decoded;
 * - URL-valued properties (`url`, `image`, `logo`, `sameAs`, …) and ids made absolute when
 *   written relative (an absolute URL is kept exactly as written, braces of a URL template
 *   and all); a value with whitespace inside is text, not a URL, and is left alone;
 * - schema.org enumeration members written as URLs (`https://schema.org/InStock`) shortened
 *   (`InStock`) outside URL-valued properties.
 *
 * `ThingBuilder` gathers one thing's types and values (document order, empty values dropped)
 * and hands back the plain `Thing`; properties are kept in a Map until then, so a page's
 * `__proto__` or `constructor` key is an ordinary property name.
 */
import type { AnyNode, Element, Text } from 'domhandler';
import { Parser } from 'htmlparser2';
import type { Thing, ThingSource, ThingValue } from '../types.js';

const SCHEMA_PREFIXES = [
  'https://schema.org/',
  'http://schema.org/',
  'https://www.schema.org/',
  'http://www.schema.org/',
  '//schema.org/',
  'schema.org/',
  'schema:',
];

/** The schema.org short name of `name` (`http://schema.org/Product`, `schema:Product` → `Product`); other names as written. */
export function shortName(name: string): string {
  const trimmed = name.trim();
  // Every prefix starts with `h`, `s` or `/` (any case): most names are rejected without allocating.
  const first = trimmed.charCodeAt(0) | 0x20;
  if (first !== 0x68 && first !== 0x73 && first !== 0x2f) return trimmed;
  const head = trimmed.slice(0, 24).toLowerCase();
  for (const prefix of SCHEMA_PREFIXES) if (trimmed.length > prefix.length && head.startsWith(prefix)) return trimmed.slice(prefix.length);
  return trimmed;
}

/** Whether `iri` names something in schema.org (a vocabulary or prefix IRI). */
export function isSchemaIri(iri: string): boolean {
  const lower = iri.trim().toLowerCase();
  return SCHEMA_PREFIXES.slice(0, 4).some((p) => lower === p || lower === p.slice(0, -1));
}

/** Properties whose text values are URLs (made absolute when written relative). */
export const URL_PROPERTIES: ReadonlySet<string> = new Set([
  'url',
  'image',
  'logo',
  'sameAs',
  'contentUrl',
  'embedUrl',
  'thumbnailUrl',
  'thumbnail',
  'photo',
  'mainEntityOfPage',
  'item',
  'license',
  'additionalType',
  'downloadUrl',
  'installUrl',
  'codeRepository',
  'discussionUrl',
  'hasMap',
  'significantLink',
  'relatedLink',
  'acquireLicensePage',
  'archivedAt',
  'serviceUrl',
  'trackingUrl',
  'termsOfService',
]);

/** Whitespace other than single spaces: only text that has some is rewritten (most short values have none). */
const UNCOLLAPSED = /\s\s|[^\S ]/;
const collapse = (text: string): string => (UNCOLLAPSED.test(text) ? text.replace(/\s+/g, ' ') : text).trim();

/** A URL reference with a scheme (`https:`, `mailto:`, `data:` …) is kept as written. */
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** `ref` made absolute against `base` when relative; as written when absolute, blank-node (`_:b0`), textual or unparsable. */
export function absoluteRef(ref: string, base: string): string {
  const trimmed = ref.trim();
  if (!trimmed || trimmed.startsWith('_:') || HAS_SCHEME.test(trimmed) || /\s/.test(trimmed)) return trimmed;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return trimmed;
  }
}

/** Tags whose start or end separates words in text. */
const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'div', 'dl', 'dt', 'figcaption', 'figure', 'footer', 'h1', 'h2', 'h3',
  'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'td', 'th', 'tr', 'ul',
]);
const SKIPPED_TAGS = new Set(['script', 'style', 'template']);

/** The text of an HTML fragment: tags dropped (block tags as spaces), script and style content dropped, entities decoded. */
export function htmlToText(html: string): string {
  let out = '';
  let skipped = 0;
  const separate = (name: string) => {
    if (BLOCK_TAGS.has(name)) out += ' ';
  };
  const parser = new Parser(
    {
      ontext(text) {
        if (!skipped) out += text;
      },
      onopentag(name) {
        if (SKIPPED_TAGS.has(name)) skipped += 1;
        else separate(name);
      },
      onclosetag(name) {
        if (SKIPPED_TAGS.has(name)) skipped = Math.max(0, skipped - 1);
        else separate(name);
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.end(html);
  return out;
}

/** schema.org enumeration members are capitalised single names (`InStock`, `NewCondition`, `EventScheduled`). */
const ENUM_MEMBER = /^[A-Z][A-Za-z0-9]*$/;

/**
 * One text value of property `prop` normalised: collapsed (HTML reduced to text when `html`),
 * a URL-valued property's relative reference made absolute (`url` forces it: microdata
 * `href`/`src`), an enumeration URL shortened. Empty → null.
 */
export function normalizeText(prop: string, raw: string, base: string, options: { html?: boolean; url?: boolean } = {}): string | null {
  const isUrl = options.url === true || URL_PROPERTIES.has(prop);
  let text = raw;
  if (isUrl) text = text.includes('&amp;') ? text.split('&amp;').join('&') : text;
  else if (options.html && (text.includes('<') || text.includes('&'))) text = htmlToText(text);
  text = collapse(text);
  if (!text) return null;
  const short = shortName(text);
  if (short !== text && ENUM_MEMBER.test(short) && !URL_PROPERTIES.has(prop)) return short;
  return isUrl ? absoluteRef(text, base) : text;
}

/** Whether a thing says anything (a type alone is not worth listing as a top-level thing). */
export const hasValues = (thing: Thing): boolean => Object.keys(thing.props).length > 0;

/** Collects one thing's types, id and property values, then builds the plain `Thing`. */
export class ThingBuilder {
  readonly types: string[] = [];
  id: string | undefined;
  private readonly props = new Map<string, ThingValue[]>();

  constructor(readonly source: ThingSource) {}

  addType(type: string): void {
    const name = shortName(type);
    if (name && !this.types.includes(name)) this.types.push(name);
  }

  /** Appends a value (an empty name or text is dropped; `unique` skips a text or number already there). */
  add(prop: string, value: ThingValue | null | undefined, unique = false): void {
    if (!prop || value === null || value === undefined || value === '') return;
    const list = this.props.get(prop);
    if (!list) this.props.set(prop, [value]);
    else if (!(unique && typeof value !== 'object' && list.includes(value))) list.push(value);
  }

  has(prop: string): boolean {
    return this.props.has(prop);
  }

  get size(): number {
    return this.props.size;
  }

  build(): Thing {
    const props = Object.fromEntries(this.props) as Record<string, readonly ThingValue[]>;
    return this.id ? { types: this.types, id: this.id, source: this.source, props } : { types: this.types, source: this.source, props };
  }
}

/** The text of an element as `textContent` reads it, without script, style and template content; collapsed. */
export function elementText(el: Element): string {
  let out = '';
  const stack: AnyNode[] = [];
  for (let i = el.children.length - 1; i >= 0; i -= 1) stack.push(el.children[i] as AnyNode);
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'text') out += (node as Text).data;
    else if ((node.type === 'tag' || node.type === 'cdata') && !SKIPPED_TAGS.has((node as Element).name)) {
      const children = (node as Element).children;
      for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i] as AnyNode);
    }
  }
  return collapse(out);
}
