/**
 * Microdata items → things, as the HTML spec reads them ("Microdata", §5.2):
 *
 * - an item's properties are the `itemprop` elements found by crawling its children and the
 *   elements its `itemref` names, not descending into nested items; in tree order;
 * - a property's value: a nested `itemscope` → that item's Thing; `meta` → `content`;
 *   `audio`/`embed`/`iframe`/`img`/`source`/`track`/`video` → `src`, `a`/`area`/`link` →
 *   `href`, `object` → `data` (URLs, made absolute); `data`/`meter` → `value`; `time` →
 *   `datetime`, else its text; anything else → its text (script and style content left out),
 *   collapsed. Two liberties the big consumers take too: a `content` attribute on any element
 *   wins over its text (`<span itemprop="price" content="9.99">9,99 €</span>`), and an `img`
 *   whose `src` is missing or a `data:` placeholder reads its `data-src` (lazy loading);
 * - `itemprop` and `itemtype` may list several names; `itemid` is the thing's id (absolute);
 * - values stay text (no number guessing: the filler converts), empty values are dropped;
 * - an item reached again through its own `itemref` chain is not nested in itself (cycles are
 *   dropped); an item that is a property of several (through `itemref`) is one shared Thing.
 *
 * Top-level things: the spec's top-level items, plus orphan `itemscope itemprop` elements
 * (scan.ts) that no `itemref` points into, in document order.
 */
import type { AnyNode, Element } from 'domhandler';
import type { Thing } from '../types.js';
import type { MarkupScan } from './scan.js';
import { absoluteRef, elementText, hasValues, normalizeText, shortName, ThingBuilder } from './values.js';

const SRC_ELEMENTS = new Set(['audio', 'embed', 'iframe', 'img', 'source', 'track', 'video']);
const HREF_ELEMENTS = new Set(['a', 'area', 'link']);

const tokens = (value: string | undefined): string[] => (value ? value.trim().split(/\s+/).filter(Boolean) : []);

/** The lookups `itemref` needs: elements by id and every element's position in the document. */
interface PageIndex {
  readonly ids: ReadonlyMap<string, Element>;
  readonly order: ReadonlyMap<Element, number>;
  readonly referenced: ReadonlySet<string>;
}

function indexPage(root: AnyNode): PageIndex {
  const ids = new Map<string, Element>();
  const order = new Map<Element, number>();
  const referenced = new Set<string>();
  const stack: AnyNode[] = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'tag') {
      const el = node as Element;
      order.set(el, order.size);
      const id = el.attribs['id'];
      if (id && !ids.has(id)) ids.set(id, el);
      for (const ref of tokens(el.attribs['itemref'])) referenced.add(ref);
    }
    const children = (node as { children?: AnyNode[] }).children;
    if (children && node.type !== 'script' && node.type !== 'style') {
      for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i] as AnyNode);
    }
  }
  return { ids, order, referenced };
}

class MicrodataReader {
  private page: PageIndex | null = null;
  private readonly built = new Map<Element, Thing>();
  private readonly building = new Set<Element>();

  constructor(
    private readonly root: AnyNode,
    private readonly base: string,
    private readonly itemref: boolean,
  ) {}

  private index(): PageIndex {
    return (this.page ??= indexPage(this.root));
  }

  read(items: readonly Element[], orphans: ReadonlySet<Element>): Thing[] {
    const out: Thing[] = [];
    for (const el of items) {
      if (orphans.has(el) && this.referenced(el)) continue;
      const thing = this.item(el);
      if (thing && hasValues(thing)) out.push(thing);
    }
    return out;
  }

  /** Whether an `itemref` points at the element or an ancestor (an orphan that is some item's property after all). */
  private referenced(el: Element): boolean {
    if (!this.itemref) return false;
    const { referenced } = this.index();
    for (let p: Element | null = el; p && p.type === 'tag'; p = p.parent as Element | null) {
      if (p.attribs['id'] && referenced.has(p.attribs['id'])) return true;
    }
    return false;
  }

  /**
   * The elements carrying the item's properties, in tree order. Only an `itemref` can lead
   * the crawl to an element twice (or back into the item), so only then are visits noted.
   */
  private properties(item: Element): Element[] {
    const out: Element[] = [];
    const stack: Element[] = [];
    const refs = this.itemref ? this.referencedBy(item) : [];
    for (let i = refs.length - 1; i >= 0; i -= 1) stack.push(refs[i] as Element);
    pushChildren(item, stack);
    const seen = refs.length ? new Set<Element>([item]) : null;
    for (let el = stack.pop(); el; el = stack.pop()) {
      if (seen) {
        if (seen.has(el)) continue;
        seen.add(el);
      }
      const a = el.attribs;
      if (a['itemprop'] !== undefined) out.push(el);
      if (a['itemscope'] === undefined) pushChildren(el, stack);
    }
    if (refs.length) {
      const { order } = this.index();
      out.sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0));
    }
    return out;
  }

  /** The elements an item's `itemref` names, in its order. */
  private referencedBy(item: Element): Element[] {
    const out: Element[] = [];
    for (const id of tokens(item.attribs['itemref'])) {
      const el = this.index().ids.get(id);
      if (el) out.push(el);
    }
    return out;
  }

  private item(el: Element): Thing | null {
    const done = this.built.get(el);
    if (done) return done;
    if (this.building.has(el)) return null;
    this.building.add(el);
    const b = new ThingBuilder('microdata');
    for (const type of tokens(el.attribs['itemtype'])) b.addType(type);
    const itemid = el.attribs['itemid']?.trim();
    if (itemid) b.id = absoluteRef(itemid, this.base);
    for (const prop of this.properties(el)) {
      const names = tokens(prop.attribs['itemprop']).map(shortName);
      if (prop.attribs['itemscope'] !== undefined) {
        const nested = this.item(prop);
        if (nested) for (const name of names) b.add(name, nested);
      } else for (const name of names) b.add(name, this.value(prop, name));
    }
    this.building.delete(el);
    const thing = b.build();
    this.built.set(el, thing);
    return thing;
  }

  /** A property element's value (see the file comment). */
  private value(el: Element, prop: string): string | null {
    const a = el.attribs;
    if (a['content'] !== undefined) return normalizeText(prop, a['content'], this.base);
    const name = el.name;
    if (name === 'img') {
      const src = a['src']?.trim();
      return this.url(prop, !src || src.startsWith('data:') ? (a['data-src'] ?? src) : src);
    }
    if (SRC_ELEMENTS.has(name)) return this.url(prop, a['src']);
    if (HREF_ELEMENTS.has(name)) return this.url(prop, a['href']);
    if (name === 'object') return this.url(prop, a['data']);
    if (name === 'data' || name === 'meter') return a['value'] === undefined ? null : normalizeText(prop, a['value'], this.base);
    if (name === 'time' && a['datetime'] !== undefined) return normalizeText(prop, a['datetime'], this.base);
    return normalizeText(prop, elementText(el), this.base);
  }

  private url(prop: string, ref: string | undefined): string | null {
    return ref === undefined ? null : normalizeText(prop, ref, this.base, { url: true });
  }
}

function pushChildren(el: Element, stack: Element[]): void {
  const children = el.children;
  for (let i = children.length - 1; i >= 0; i -= 1) {
    const child = children[i] as AnyNode;
    if (child.type === 'tag') stack.push(child as Element);
  }
}

/** The microdata things of a scanned page, in document order. */
export function readMicrodata(root: AnyNode, scan: MarkupScan, base: string): Thing[] {
  if (!scan.items.length) return [];
  return new MicrodataReader(root, base, scan.itemref).read(scan.items, scan.orphans);
}
