/**
 * One stored page copy → its rows in the local index (infra/clickhouse/0005_search_index.sql),
 * as JSONEachRow objects: its `search_docs` row, and its `search_page_terms` row — the page's
 * postings as parallel arrays `terms` and `tfs`, which the migration's materialized view
 * expands into `search_postings`, one row per distinct term.
 *
 * Rules:
 * - The text indexed is the first TEXT_LIMIT (50,000) characters of the page's plain text
 *   (text.ts); of the title its first 500, of the description its first 1,000 (cut at a
 *   space), which are also what the row stores.
 * - Term weights: tf = occurrences in the text + 3 × occurrences in the title + 2 × in the
 *   description (TITLE_WEIGHT, DESCRIPTION_WEIGHT), capped at 65,535 (UInt16). doc_len is the
 *   same weighted count over all terms (BM25's document length).
 * - At most MAX_TERMS (1,500) postings per page: every title term, then the most frequent
 *   others (ties: first seen first). doc_len still counts every term.
 * - url_hash: the first 8 bytes of SHA-256 of the URL, as a decimal UInt64; the caller passes
 *   the normalized URL (pipeline/runtime/url.ts normalizeUrl).
 * - lang: lower case, `_` → `-` (`en_US` → `en-us`); '' unless it looks like a language tag.
 * - published_at: null unless after 1970 and before 2100 (a page's claim, not trusted further).
 * - dated_at (postings): the publication time, else the fetch time, in epoch seconds.
 * - snippet_text: the start (SNIPPET_TEXT_LIMIT, 2,000 characters) of the plain text, cut at a
 *   space.
 *
 * `pageIndexFacts` reads what is indexed from a scrape document (actors/parser/document/types.ts
 * ScrapeDocument, as JSON): metadata title (else ogTitle), description (else ogDescription),
 * language, publishedTime (else `article:published_time`), and the text — `markdown` when the
 * document has it, else `html`, else `rawHtml`, without markup.
 */
import { createHash } from 'node:crypto';
import { htmlText, markdownText } from './text.js';
import { eachTerm } from './tokenize.js';

export const TEXT_LIMIT = 50_000;
export const SNIPPET_TEXT_LIMIT = 2_000;
export const MAX_TERMS = 1_500;
export const TITLE_WEIGHT = 3;
export const DESCRIPTION_WEIGHT = 2;
const MAX_TF = 65_535;
const TITLE_LIMIT = 500;
const DESCRIPTION_LIMIT = 1_000;

export interface IndexedPage {
  readonly tenant: string;
  /** The normalized URL: the document's identity (with the tenant). */
  readonly url: string;
  readonly shareable: boolean;
  readonly fetchedAtMs: number;
  readonly title: string;
  readonly description: string;
  /** Plain text (pageIndexFacts gives it); only its first TEXT_LIMIT characters are read. */
  readonly text: string;
  readonly lang: string;
  readonly publishedAtMs: number | null;
}

export type Row = Record<string, unknown>;

export interface IndexRows {
  /** The `search_docs` row. */
  readonly doc: Row;
  /** The `search_page_terms` row: url_hash, tenant, shareable, fetched_at, doc_len, lang, dated_at, terms, tfs. */
  readonly terms: Row;
}

/** The index's hash of a normalized URL: SHA-256's first 8 bytes, as UInt64 decimal text. */
export function urlHash(url: string): string {
  return createHash('sha256').update(url).digest().readBigUInt64BE(0).toString();
}

const LANGUAGE_TAG = /^[a-z]{2,3}(?:-[a-z0-9]{1,8}){0,4}$/;

/** A language tag as stored and filtered: lower case with `-`; '' when it is not one. */
export function normalizeLang(lang: string | null | undefined): string {
  const tag = (lang ?? '').trim().toLowerCase().replaceAll('_', '-');
  return LANGUAGE_TAG.test(tag) ? tag : '';
}

/** The first `limit` characters of `text`, cut back to the last space when there is one near. */
export function cutAtSpace(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const space = text.lastIndexOf(' ', limit);
  return text.slice(0, space > limit * 0.8 ? space : limit);
}

interface Counted {
  readonly tf: Map<string, number>;
  readonly titleTerms: Set<string>;
  readonly docLen: number;
}

function countTerms(page: Pick<IndexedPage, 'title' | 'description' | 'text'>): Counted {
  const tf = new Map<string, number>();
  const titleTerms = new Set<string>();
  let docLen = 0;
  const add = (weight: number) => (term: string) => {
    tf.set(term, (tf.get(term) ?? 0) + weight);
    docLen += weight;
  };
  const addTitle = add(TITLE_WEIGHT);
  eachTerm(page.title, (term) => {
    titleTerms.add(term);
    addTitle(term);
  });
  eachTerm(page.description, add(DESCRIPTION_WEIGHT));
  eachTerm(page.text.length > TEXT_LIMIT ? page.text.slice(0, TEXT_LIMIT) : page.text, add(1));
  return { tf, titleTerms, docLen };
}

/** The terms kept (MAX_TERMS): title terms first, then by weighted count; Map order breaks ties. */
function keptTerms({ tf, titleTerms }: Counted): [string, number][] {
  const entries = [...tf];
  if (entries.length <= MAX_TERMS) return entries;
  const rank = ([term, n]: [string, number]) => (titleTerms.has(term) ? Number.MAX_SAFE_INTEGER : n);
  return entries.sort((a, b) => rank(b) - rank(a)).slice(0, MAX_TERMS);
}

/** Largest DateTime('UTC') value (2106-02-07). */
const MAX_DATETIME_S = 4_294_967_295;
const LATEST_PUBLISHED_MS = Date.UTC(2100, 0, 1);

/** A publication time the columns can hold (after 1970, before 2100); null otherwise. */
function publishedMs(ms: number | null): number | null {
  return ms !== null && ms > 0 && ms < LATEST_PUBLISHED_MS ? ms : null;
}

/** The time filters' time of a copy: published, else fetched; epoch seconds within DateTime's range. */
function datedAtSeconds(page: Pick<IndexedPage, 'publishedAtMs' | 'fetchedAtMs'>): number {
  const ms = publishedMs(page.publishedAtMs) ?? page.fetchedAtMs;
  return Math.min(MAX_DATETIME_S, Math.max(0, Math.floor(ms / 1000)));
}

export function indexRows(page: IndexedPage): IndexRows {
  const title = cutAtSpace(page.title, TITLE_LIMIT);
  const description = cutAtSpace(page.description, DESCRIPTION_LIMIT);
  const counted = countTerms({ title, description, text: page.text });
  const hash = urlHash(page.url);
  const shareable = page.shareable ? 1 : 0;
  const docLen = Math.min(counted.docLen, 0xffffffff);
  const doc: Row = {
    url_hash: hash,
    tenant: page.tenant,
    url: page.url,
    shareable,
    fetched_at: page.fetchedAtMs,
    title,
    description,
    snippet_text: cutAtSpace(page.text, SNIPPET_TEXT_LIMIT),
    lang: normalizeLang(page.lang),
    published_at: publishedMs(page.publishedAtMs),
    doc_len: docLen,
  };
  const kept = keptTerms(counted);
  const terms: Row = {
    url_hash: hash,
    tenant: page.tenant,
    shareable,
    fetched_at: page.fetchedAtMs,
    doc_len: docLen,
    lang: doc.lang,
    dated_at: datedAtSeconds(page),
    terms: kept.map(([term]) => term),
    tfs: kept.map(([, n]) => Math.min(n, MAX_TF)),
  };
  return { doc, terms };
}

/** What pageIndexFacts reads of a document; the rest of IndexedPage is the caller's. */
export type PageFacts = Pick<IndexedPage, 'title' | 'description' | 'text' | 'lang' | 'publishedAtMs'>;

const str = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** An ISO (or other Date-readable) time as epoch ms; null when absent or unreadable. */
function timeMs(value: unknown): number | null {
  const ms = Date.parse(str(value));
  return Number.isFinite(ms) ? ms : null;
}

/** Plain text of a document: markdown, else html, else rawHtml; each cut to 4× TEXT_LIMIT before cleaning. */
function documentText(document: Readonly<Record<string, unknown>>): string {
  const source = (key: string) => str(document[key]).slice(0, TEXT_LIMIT * 4);
  const markdown = source('markdown');
  if (markdown) return markdownText(markdown);
  const html = source('html') || source('rawHtml');
  return html ? htmlText(html) : '';
}

/** What is indexed of a scrape document (a ScrapeDocument, or the same read back from JSON). */
export function pageIndexFacts(document: object): PageFacts {
  const fields = document as Readonly<Record<string, unknown>>;
  const raw = fields.metadata;
  const metadata: Readonly<Record<string, unknown>> = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  return {
    title: str(metadata.title) || str(metadata.ogTitle),
    description: str(metadata.description) || str(metadata.ogDescription),
    lang: normalizeLang(str(metadata.language)),
    publishedAtMs: timeMs(metadata.publishedTime) ?? timeMs(metadata['article:published_time']),
    text: documentText(fields),
  };
}
