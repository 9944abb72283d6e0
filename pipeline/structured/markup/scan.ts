/**
 * One walk over the loaded page, reading nothing but attributes, that finds where the
 * structured markup is: the JSON-LD scripts' text, the microdata items, the RDFa roots (with
 * the prefixes in force above them), the `<meta>` tags, the canonical link, the first
 * `<title>` and `<html lang>`. The readers then look only at those places. The tree is never
 * changed. The walk is iterative (a deeply nested page cannot overflow the stack); script and
 * style content is not walked.
 *
 * Microdata items are the `itemscope` elements without `itemprop` (the HTML spec's top-level
 * items), plus "orphans": `itemscope itemprop` elements with no item above them, which pages
 * write by mistake and which the spec would ignore (microdata.ts drops those an `itemref`
 * points into).
 */
import type { AnyNode, Document, Element } from 'domhandler';

/**
 * The RDFa prefixes in force at an element (prefix → IRI). `vocab` needs no tracking: a bare
 * term is kept as written whatever the vocabulary (rdfa.ts).
 */
export interface RdfaContext {
  readonly prefixes: ReadonlyMap<string, string>;
}

export interface RdfaRoot {
  readonly el: Element;
  /** The context of the element's parent (the element's own `prefix` is applied by the reader). */
  readonly ctx: RdfaContext;
}

export interface MarkupScan {
  /** The microdata items to read as top-level things (spec top-level items and orphans), in document order. */
  readonly items: Element[];
  /** Which of `items` are orphans (dropped when an `itemref` points into them). */
  readonly orphans: Set<Element>;
  /** Whether any element has `itemref` (the microdata reader then looks ids up). */
  itemref: boolean;
  readonly jsonLd: string[];
  readonly rdfa: RdfaRoot[];
  readonly metas: Element[];
  canonical: string | undefined;
  title: Element | undefined;
  lang: string | undefined;
}

/** RDFa's initial context binds `schema:` (and other prefixes, whose names are kept as written). */
export const INITIAL_RDFA: RdfaContext = { prefixes: new Map([['schema', 'http://schema.org/']]) };

/** The context inside `el`: its `prefix` attribute (`schema: http://schema.org/ dc: …`) applied to `ctx`. */
export function rdfaContextOf(el: Element, ctx: RdfaContext): RdfaContext {
  const prefix = el.attribs['prefix'];
  if (prefix === undefined) return ctx;
  const prefixes = new Map(ctx.prefixes);
  const tokens = prefix.trim().split(/\s+/);
  for (let i = 0; i + 1 < tokens.length; i += 1) {
    const name = tokens[i] as string;
    if (name.endsWith(':') && name.length > 1) {
      prefixes.set(name.slice(0, -1).toLowerCase(), tokens[i + 1] as string);
      i += 1;
    }
  }
  return { prefixes };
}

/** `application/ld+json`, in any case, maybe with parameters (`; charset=utf-8`). */
function isJsonLdType(type: string | undefined): boolean {
  if (!type) return false;
  const semi = type.indexOf(';');
  return (semi < 0 ? type : type.slice(0, semi)).trim().toLowerCase() === 'application/ld+json';
}

function scriptText(el: Element): string {
  let text = '';
  for (const c of el.children) if (c.type === 'text') text += c.data;
  return text;
}

const hasRel = (el: Element, rel: string): boolean => (el.attribs['rel'] ?? '').toLowerCase().split(/\s+/).includes(rel);

const SCOPE = 1;
const REF = 2;
const TYPEOF = 4;

/**
 * The markup attributes an element has, as flags. One pass over its attribute names costs
 * less than looking each name up: attribute objects come in many shapes, so every lookup is
 * a slow (megamorphic) one, and most elements have none of these.
 */
function markupFlags(el: Element): number {
  let flags = 0;
  for (const key in el.attribs) {
    if (key === 'itemscope') flags |= SCOPE;
    else if (key === 'itemref') flags |= REF;
    else if (key === 'typeof') flags |= TYPEOF;
  }
  return flags;
}

/** Notes the head tags the meta thing reads. */
function noteHeadTag(el: Element, out: MarkupScan): void {
  const a = el.attribs;
  const name = el.name;
  if (name === 'meta') {
    if (a['content'] !== undefined && a['itemprop'] === undefined && (a['property'] !== undefined || a['name'] !== undefined)) out.metas.push(el);
  } else if (name === 'link') {
    if (out.canonical === undefined && a['href'] && hasRel(el, 'canonical')) out.canonical = a['href'];
  } else if (name === 'title') out.title ??= el;
  else if (name === 'html' && out.lang === undefined && a['lang']?.trim()) out.lang = a['lang'].trim();
}

/** Whether an ancestor of `el` has the attribute. */
function underAttribute(el: Element, name: string): boolean {
  for (let p = el.parent; p && p.type === 'tag'; p = p.parent) if ((p as Element).attribs[name] !== undefined) return true;
  return false;
}

/** The RDFa context in force at `el`'s parent: the `prefix` attributes of its ancestors, outermost first. */
function contextAbove(el: Element): RdfaContext {
  const ancestors: Element[] = [];
  for (let p = el.parent; p && p.type === 'tag'; p = p.parent) ancestors.push(p as Element);
  let ctx = INITIAL_RDFA;
  for (let i = ancestors.length - 1; i >= 0; i -= 1) ctx = rdfaContextOf(ancestors[i] as Element, ctx);
  return ctx;
}

/**
 * Where the page's structured markup is (see the file comment); `root` is the loaded page's
 * root (`$.root()[0]`). The walk only notes elements; which items are top-level, which RDFa
 * nodes outermost and the context above them is settled afterwards by looking up from the
 * few marked-up elements, so the walk carries no state.
 */
export function scanMarkup(root: Document): MarkupScan {
  const out: MarkupScan = {
    items: [], orphans: new Set(), itemref: false, jsonLd: [], rdfa: [], metas: [], canonical: undefined, title: undefined, lang: undefined,
  };
  const scopes: Element[] = [];
  const typed: Element[] = [];
  const stack: AnyNode[] = [];
  for (let i = root.children.length - 1; i >= 0; i -= 1) stack.push(root.children[i] as AnyNode);
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'script') {
      if (isJsonLdType(node.attribs['type'])) out.jsonLd.push(scriptText(node));
      continue;
    }
    if (node.type !== 'tag') continue;
    const name = node.name;
    if (name === 'meta' || name === 'link' || name === 'title' || name === 'html') noteHeadTag(node, out);
    const flags = markupFlags(node);
    if (flags) {
      if (flags & SCOPE) scopes.push(node);
      if (flags & REF) out.itemref = true;
      if (flags & TYPEOF) typed.push(node);
    }
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i -= 1) {
      const child = children[i] as AnyNode;
      if (child.type === 'tag' || child.type === 'script') stack.push(child);
    }
  }
  for (const el of scopes) {
    if (el.attribs['itemprop'] === undefined) out.items.push(el);
    else if (!underAttribute(el, 'itemscope')) {
      out.items.push(el);
      out.orphans.add(el);
    }
  }
  for (const el of typed) if (!underAttribute(el, 'typeof')) out.rdfa.push({ el, ctx: contextAbove(el) });
  return out;
}
