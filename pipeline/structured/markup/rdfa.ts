/**
 * RDFa Lite nodes → things: `vocab`, `prefix`, `typeof`, `property`, `resource` (and
 * `about`, which full RDFa pages such as Drupal's write).
 *
 * - An element with `typeof` is a node: its types, its id from `resource`, `about`, else
 *   `href`/`src` (RDFa's typed resource: `<a property="item" typeof="WebPage" href>`),
 *   absolute. With `property` inside another node it is that node's value; otherwise it
 *   is a top-level thing (a `typeof` nested without `property` starts a new subject, as in
 *   RDFa), in document order.
 * - An element with `property` (and no `typeof`) gives the enclosing node a value: `content`
 *   if present, else `resource`/`href`/`src` (a URL, absolute), else `time@datetime`, else
 *   its text, collapsed. Properties outside any node (the page's own `og:` metas) are left to
 *   meta.ts.
 * - Names: full schema.org IRIs and any prefix bound to schema.org (`schema:` is bound by
 *   RDFa's initial context) are shortened; terms of other vocabularies are kept as written
 *   (`sioc:Item`, `dc:title`), as are bare terms whatever the `vocab`.
 * - Values stay text. Nesting deeper than 512 elements is not read.
 */
import type { Element } from 'domhandler';
import type { Thing } from '../types.js';
import { rdfaContextOf, type RdfaContext, type RdfaRoot } from './scan.js';
import { absoluteRef, elementText, hasValues, isSchemaIri, normalizeText, shortName, ThingBuilder } from './values.js';

const MAX_DEPTH = 512;

/** A term of `typeof` or `property` as a name: schema.org's shortened, others as written. */
function termName(term: string, ctx: RdfaContext): string {
  const colon = term.indexOf(':');
  if (colon > 0 && !term.startsWith('//', colon + 1)) {
    const iri = ctx.prefixes.get(term.slice(0, colon).toLowerCase());
    if (iri && isSchemaIri(iri)) return term.slice(colon + 1);
  }
  return shortName(term);
}

const terms = (value: string | undefined, ctx: RdfaContext): string[] =>
  value ? value.trim().split(/\s+/).filter(Boolean).map((t) => termName(t, ctx)) : [];

/** The literal or URL a `property` element without `typeof` gives. */
function literal(el: Element, prop: string, base: string): string | null {
  const a = el.attribs;
  if (a['content'] !== undefined) return normalizeText(prop, a['content'], base);
  const ref = a['resource'] ?? a['href'] ?? a['src'];
  if (ref !== undefined) return normalizeText(prop, ref, base, { url: true });
  if (el.name === 'time' && a['datetime'] !== undefined) return normalizeText(prop, a['datetime'], base);
  return normalizeText(prop, elementText(el), base);
}

/** Reads one element (and its subtree) into `subject` or new nodes; top-level nodes are appended to `tops`. */
function visit(el: Element, parentCtx: RdfaContext, subject: ThingBuilder | null, tops: ThingBuilder[], base: string, depth: number): void {
  const ctx = rdfaContextOf(el, parentCtx);
  const a = el.attribs;
  const props = terms(a['property'], ctx);
  let inner = subject;
  let node: ThingBuilder | null = null;
  if (a['typeof'] !== undefined) {
    node = new ThingBuilder('rdfa');
    for (const type of terms(a['typeof'], ctx)) node.addType(type);
    const id = (a['resource'] ?? a['about'] ?? a['href'] ?? a['src'])?.trim();
    if (id) node.id = absoluteRef(id, base);
    if (!subject || !props.length) tops.push(node);
    inner = node;
  } else if (subject) for (const prop of props) subject.add(prop, literal(el, prop, base));
  if (depth < MAX_DEPTH) {
    for (const child of el.children) if (child.type === 'tag') visit(child, ctx, inner, tops, base, depth + 1);
  }
  if (node && subject && props.length) {
    const thing = node.build();
    for (const prop of props) subject.add(prop, thing);
  }
}

/** The RDFa things under the scanned roots, in document order. */
export function readRdfa(roots: readonly RdfaRoot[], base: string): Thing[] {
  const tops: ThingBuilder[] = [];
  for (const root of roots) visit(root.el, root.ctx, null, tops, base, 0);
  return tops.map((b) => b.build()).filter(hasValues);
}
