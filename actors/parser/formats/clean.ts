/**
 * Cleaning the page before and after the main content is chosen.
 *
 * Before (whole page): `excludeTags` matches are removed ("dropped before reading": they
 * are gone from html, markdown, links and media); then scripts, styles, `<noscript>`,
 * `<template>` and the like, which never carry readable content.
 *
 * After (the returned root only, one walk): comments removed; `href`, `src`, `srcset` and
 * `poster` made absolute; lazy images get their real source (`data-src`, `srcset`) as `src`
 * when `src` is missing or an inline placeholder; and with `removeBase64Images` every
 * inline `data:` image is replaced by its alt text (dropped when it has none), `data:`
 * candidates leave `srcset`, and `url(data:…)` leaves inline styles. Firecrawl instead
 * rewrites markdown images to `![alt](<Base64-Image-Removed>)` and leaves the HTML alone;
 * the spec asks for both markdown and HTML to be stripped, and a placeholder URL is noise
 * to a reader or a model, so we keep the alt text only.
 */
import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, ChildNode, Element, ParentNode } from 'domhandler';
import { replaceThroughLast } from '../../../pipeline/runtime/scan.js';
import { absolute, isDataUri, largestSrcset } from './urls.js';
import { findOutermost } from './walk.js';

/** Never readable: `script, style, noscript, template, link, meta, object, embed[type^="application/x-shockwave" i]`. */
const NON_CONTENT = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'object']);
const FLASH = 'application/x-shockwave';
const isNonContent = (el: Element): boolean =>
  NON_CONTENT.has(el.name) || (el.name === 'embed' && (el.attribs['type'] ?? '').slice(0, FLASH.length).toLowerCase() === FLASH);

/** Removes every element matching one of `selectors`; an invalid selector matches nothing. */
export function removeExcluded($: CheerioAPI, selectors: readonly string[]): void {
  for (const selector of selectors) {
    try {
      $(selector).remove();
    } catch {
      // The API validates selectors' length, not their grammar: a bad one matches nothing.
    }
  }
}

/** Removes scripts, styles and other never-readable elements from the whole page (one walk, no selector). */
export function removeNonContent($: CheerioAPI): void {
  const root = $.root()[0];
  if (root) removeNodes(findOutermost(root, isNonContent));
}

/**
 * Firecrawl's behaviour for `includeTags` without main-content extraction: a new root
 * holding a copy of every match, in document order (outermost matches only).
 */
export function includedOnly($: CheerioAPI, selectors: readonly string[]): Cheerio<Element> {
  const matched = new Set<Element>();
  for (const selector of selectors) {
    try {
      for (const el of $(selector).toArray()) if (el.type === 'tag') matched.add(el);
    } catch {
      // invalid selector: matches nothing
    }
  }
  const wrapper = $('<div></div>');
  for (const el of $('*').toArray()) {
    if (!matched.has(el as Element)) continue;
    let outer = true;
    for (let p = el.parent; p; p = p.parent) if (matched.has(p as Element)) outer = false;
    if (outer) wrapper.append($(el).clone());
  }
  return wrapper as Cheerio<Element>;
}

const escapeText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const URL_ATTRS: Readonly<Record<string, readonly string[]>> = {
  a: ['href'],
  area: ['href'],
  img: ['src'],
  video: ['src', 'poster'],
  audio: ['src'],
  source: ['src'],
  track: ['src'],
  iframe: ['src'],
  input: ['src'],
  form: ['action'],
  blockquote: ['cite'],
  q: ['cite'],
  ins: ['cite'],
  del: ['cite'],
};

function absoluteSrcset(srcset: string, base: string, dropData: boolean): string {
  return srcset
    .split(/,\s+/)
    .map((part) => part.trim())
    .filter((part) => part && !(dropData && isDataUri(part)))
    .map((part) => {
      const [url = '', ...rest] = part.split(/\s+/);
      return [isDataUri(url) ? url : (absolute(url, base) ?? url), ...rest].join(' ');
    })
    .join(', ');
}

/** Lazy-loading images: the real source when `src` is missing or an inline placeholder. */
function realImageSource(el: Element): string | undefined {
  const src = el.attribs['src'];
  if (src && src.trim() && !isDataUri(src)) return undefined;
  const lazy = el.attribs['data-src'] ?? el.attribs['data-lazy-src'] ?? el.attribs['data-original'];
  if (lazy && !isDataUri(lazy)) return lazy;
  const srcset = el.attribs['srcset'] ?? el.attribs['data-srcset'];
  const best = srcset ? largestSrcset(srcset) : null;
  return best && !isDataUri(best) ? best : undefined;
}

export interface FinishOptions {
  readonly base: string;
  readonly removeBase64Images: boolean;
}

/** The after-cleaning walk over the returned root (see the file comment). */
export function finishRoot($: CheerioAPI, root: Element, options: FinishOptions): void {
  // Pages repeat their links and image hosts: each distinct reference is resolved once.
  const resolved = new Map<string, string | null>();
  const resolve = (value: string): string | null => {
    let out = resolved.get(value);
    if (out === undefined) {
      out = NOT_RESOLVED.test(value) ? null : absolute(value, options.base);
      resolved.set(value, out);
    }
    return out;
  };
  const visit = (el: Element): void => {
    if (el.name === 'img') {
      const real = realImageSource(el);
      if (real) el.attribs['src'] = real;
      if (options.removeBase64Images && isDataUri(el.attribs['src'])) {
        const alt = el.attribs['alt']?.replace(/\s+/g, ' ').trim();
        if (alt) $(el).before(escapeText(alt));
        $(el).remove();
        return;
      }
    }
    const attrs = URL_ATTRS[el.name];
    if (attrs) {
      for (const attr of attrs) {
        const value = el.attribs[attr];
        if (value === undefined || isDataUri(value)) continue;
        const url = resolve(value);
        if (url) el.attribs[attr] = url;
      }
    }
    const srcset = el.attribs['srcset'];
    if (srcset !== undefined) el.attribs['srcset'] = absoluteSrcset(srcset, options.base, options.removeBase64Images);
    const style = el.attribs['style'];
    if (options.removeBase64Images && style && /data:/i.test(style)) {
      el.attribs['style'] = withoutDataUrls(style);
    }
    // Backwards, so that removing a child (an inline image) skips nothing; comments go at the end, all at once.
    const children = el.children;
    for (let i = children.length - 1; i >= 0; i -= 1) {
      const child = children[i] as AnyNode;
      if (child.type === 'comment') comments.push(child);
      else if (child.type === 'tag' || child.type === 'script' || child.type === 'style') visit(child as Element);
    }
  };
  const comments: AnyNode[] = [];
  if (root.type === 'tag' || root.type === 'script' || root.type === 'style') visit(root);
  removeNodes(comments);
}

/**
 * A `url(data:…)` of a style, through its `)`. The quote's optional space is one group: as
 * `\s*["']?\s*` the two runs split a long run of spaces every way.
 */
const DATA_URL = /url\(\s*(?:["']\s*)?data:[^)]*\)/gi;

/**
 * `style` with each `url(data:…)` replaced by `none`, searched only up to the last `)`: past
 * it `[^)]*\)` fails after scanning to the end from every `url(data:` (quadratic).
 */
const withoutDataUrls = (style: string): string => replaceThroughLast(style, ')', DATA_URL, 'none');

/** References left as written: scripts, mail and phone links. */
const NOT_RESOLVED = /^\s*(javascript|mailto|tel):/i;

/**
 * Removes `nodes` from their parents' children, keeping the sibling links right: each parent's
 * children are filtered once. Removed one at a time (cheerio's `remove`, an `indexOf` and a
 * `splice` each), 200,000 `<meta>`s in one `<head>` took minutes (this session's fuzz).
 */
export function removeNodes(nodes: readonly AnyNode[]): void {
  const byParent = new Map<ParentNode, Set<AnyNode>>();
  for (const node of nodes) {
    const parent = node.parent;
    if (!parent) continue;
    let gone = byParent.get(parent);
    if (!gone) byParent.set(parent, (gone = new Set()));
    gone.add(node);
  }
  for (const [parent, gone] of byParent) {
    const kept = parent.children.filter((child) => !gone.has(child));
    for (let i = 0; i < kept.length; i += 1) {
      const child = kept[i] as ChildNode;
      child.prev = kept[i - 1] ?? null;
      child.next = kept[i + 1] ?? null;
    }
    parent.children = kept;
    for (const node of gone) {
      node.parent = null;
      node.prev = null;
      node.next = null;
    }
  }
}
