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
import type { AnyNode, Element } from 'domhandler';
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
  if (root) $(findOutermost(root, isNonContent)).remove();
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
  const visit = (node: AnyNode): void => {
    if (node.type === 'comment') {
      $(node).remove();
      return;
    }
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') return;
    const el = node as Element;
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
    for (const attr of URL_ATTRS[el.name] ?? []) {
      const value = el.attribs[attr];
      if (value === undefined || isDataUri(value) || /^\s*(javascript|mailto|tel):/i.test(value)) continue;
      const resolved = absolute(value, options.base);
      if (resolved) el.attribs[attr] = resolved;
    }
    const srcset = el.attribs['srcset'];
    if (srcset !== undefined) el.attribs['srcset'] = absoluteSrcset(srcset, options.base, options.removeBase64Images);
    const style = el.attribs['style'];
    if (options.removeBase64Images && style && /data:/i.test(style)) {
      el.attribs['style'] = style.replace(/url\(\s*["']?\s*data:[^)]*\)/gi, 'none');
    }
    for (const child of [...el.children]) visit(child);
  };
  visit(root);
}
