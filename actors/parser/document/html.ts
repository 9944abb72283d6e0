/**
 * An HTML page → scrape document. Synchronous and pure: the hot path, run on every page.
 *
 * Order (each step reads what the previous left):
 *   1. load once (htmlparser2, shaped as an HTML5 parser shapes a document: formats/load-html.ts);
 *      metadata from the untouched page;
 *   2. `excludeTags` removed;
 *   3. links and media from the whole page (see formats/links.ts for why not main content);
 *   4. scripts, styles and other never-readable elements removed;
 *   5. the root: main content (`onlyMainContent`, with `includeTags` kept even outside it),
 *      or only the `includeTags` matches (onlyMainContent false — Firecrawl's behaviour),
 *      or the whole `<body>`;
 *   6. the root cleaned (comments, absolute URLs, base64 images) → `html`, and `markdown`
 *      converted from the same tree (formats/turndown-tree.ts), not from the serialized html.
 * When main content yields no markdown at all the whole body is used instead (Firecrawl
 * does the same fallback).
 */
import type { Cheerio, CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { extractMainContent } from '../main-content/index.js';
import { finishRoot, includedOnly, removeExcluded, removeNonContent } from '../formats/clean.js';
import { pageLinks, pageMedia } from '../formats/links.js';
import { bodyOf, loadHtml, releaseHtml } from '../formats/load-html.js';
import { elementToMarkdown } from '../formats/markdown.js';
import { pageMetadata } from '../formats/metadata.js';
import { baseOf } from '../formats/urls.js';
import type { ResolvedOptions } from './options.js';
import type { DocumentMetadata, ScrapeDocument } from './types.js';

/** What is known about a response besides its body. */
export interface ResponseFacts {
  readonly url: string;
  readonly finalUrl: string;
  readonly statusCode: number;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface HtmlMode {
  /** The page as fetched (decoded); defaults to `html`. PDF and DOCX pass their own. */
  readonly rawHtml?: string;
  /** Skip main-content extraction (documents converted from DOCX have no page furniture). */
  readonly wholeDocument?: boolean;
  /** Extra metadata (numPages, a title from the file's properties) laid over the page's. */
  readonly metadata?: Partial<DocumentMetadata>;
  /**
   * Called with the whole page's links (as the `links` format reads them, before
   * `excludeTags`), whatever the formats: a crawl follows them (pipeline/jobs/job-page.ts).
   */
  readonly pageLinks?: (links: string[]) => void;
  /**
   * Called with the whole page as loaded, before anything is removed, and its base URL: the
   * extraction reads the page's structured markup and visible facts here (actors/parser/page-data).
   * It must not change the tree.
   */
  readonly read?: ($: CheerioAPI, base: string) => void;
}

export function responseMetadata(facts: ResponseFacts): Pick<DocumentMetadata, 'statusCode' | 'contentType' | 'sourceURL' | 'url'> {
  return { statusCode: facts.statusCode, contentType: facts.contentType, sourceURL: facts.url, url: facts.finalUrl };
}

function contentRoot($: CheerioAPI, options: ResolvedOptions, mainContent: boolean): Cheerio<Element> {
  if (mainContent) return extractMainContent($, { includeTags: options.includeTags });
  if (options.includeTags.length) return includedOnly($, options.includeTags);
  const body = bodyOf($);
  return body ? $(body) : ($.root().children().first() as Cheerio<Element>);
}

function render(html: string, base: string, options: ResolvedOptions, mainContent: boolean): { html: string; markdown: string } {
  const $ = loadHtml(html);
  removeExcluded($, options.excludeTags);
  removeNonContent($);
  const out = renderLoaded($, base, options, mainContent);
  releaseHtml($);
  return out;
}

/** The root's `html` (when asked for) and `markdown` (when asked for; else ''). */
function renderLoaded($: CheerioAPI, base: string, options: ResolvedOptions, mainContent: boolean): { html: string; markdown: string } {
  const root = contentRoot($, options, mainContent);
  const el = root[0];
  if (!el) return { html: '', markdown: '' };
  finishRoot($, el, { base, removeBase64Images: options.removeBase64Images });
  let out: string | undefined;
  const html = () => (out ??= $.html(el));
  const markdown = options.formats.has('markdown') ? elementToMarkdown(el, html) : '';
  return { html: options.formats.has('html') ? html() : '', markdown };
}

/** Builds the requested formats of an HTML page. */
export function buildHtmlDocument(html: string, facts: ResponseFacts, options: ResolvedOptions, mode: HtmlMode = {}): ScrapeDocument {
  const wants = options.formats;
  const $ = loadHtml(html);
  const base = baseOf($, facts.finalUrl);
  const metadata: DocumentMetadata = { ...pageMetadata($, base, facts.headers), ...mode.metadata, ...responseMetadata(facts) };
  mode.pageLinks?.(pageLinks($, base));
  mode.read?.($, base);
  removeExcluded($, options.excludeTags);
  const links = wants.has('links') ? pageLinks($, base) : undefined;
  const media = wants.has('media') ? pageMedia($, base) : undefined;

  let rendered: { html: string; markdown: string } | undefined;
  if (wants.has('markdown') || wants.has('html')) {
    removeNonContent($);
    const mainContent = options.onlyMainContent && !mode.wholeDocument;
    rendered = renderLoaded($, base, options, mainContent);
    if (mainContent && wants.has('markdown') && !rendered.markdown) rendered = render(html, base, options, false);
  }

  const doc: ScrapeDocument = { metadata };
  if (wants.has('markdown')) doc.markdown = rendered?.markdown ?? '';
  if (wants.has('html')) doc.html = rendered?.html ?? '';
  if (wants.has('rawHtml')) doc.rawHtml = mode.rawHtml ?? html;
  if (links) doc.links = links;
  if (media) doc.media = media;
  releaseHtml($);
  return orderFields(doc);
}

/** Firecrawl's field order: formats first, then metadata, then a warning (stable JSON for caches and diffs). */
export function orderFields(doc: ScrapeDocument): ScrapeDocument {
  const { metadata, warning, ...formats } = doc;
  const ordered: ScrapeDocument = warning === undefined ? { metadata } : { metadata, warning };
  const out: Record<string, unknown> = {};
  for (const key of ['markdown', 'html', 'rawHtml', 'links', 'media'] as const) if (formats[key] !== undefined) out[key] = formats[key];
  return Object.assign(out, ordered) as ScrapeDocument;
}

/** The document with `warning` added to what it already says (joined by "; ", as answers join their warnings). */
export function withWarning(doc: ScrapeDocument, warning: string | undefined): ScrapeDocument {
  if (!warning) return doc;
  return orderFields({ ...doc, warning: doc.warning ? `${warning}; ${doc.warning}` : warning });
}
