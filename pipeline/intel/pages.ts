/**
 * The pages a domain report reads — today's website, archived snapshots, linking pages — go
 * through the scrape path like any page (the fetcher's SSRF guard, proxies and cache, the
 * parser): the intel pool asks for each with a ScrapeRequested and awaits its Reply
 * (actors/intel/pages.ts). Here: the scrape options those reads use and the page a Reply
 * carries, decoded into what the report's rules read.
 */
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';
import { parseJsonObject } from '../runtime/json.js';
import type { ReplyValue } from '../runtime/request-reply.js';
import { ownReadOptions } from '../pages/scrape-request.js';

export interface PageRead {
  /** The URL asked for. */
  readonly url: string;
  /** The URL after redirects. */
  readonly finalUrl: string;
  readonly statusCode: number;
  readonly title: string | null;
  readonly language: string | null;
  /** The page's markdown (whole page, not only its main content). */
  readonly markdown: string;
  /** Absolute URLs the page links to. */
  readonly links: readonly string[];
}

export type PageOutcome = { readonly ok: true; readonly page: PageRead } | { readonly ok: false; readonly code: string; readonly message: string };

export interface ReadOptions {
  /** A cached copy younger than this is used (0: read it now). */
  readonly maxAgeMs: number;
  /**
   * Whether the page is stored like any page read (the cache, the local search index, the
   * link graph): false for an archived snapshot, whose links are the past's, not the web's.
   * Default true.
   */
  readonly store?: boolean;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** Reads one page through the scrape path. Never throws: a failure is the outcome's code. */
export type ReadPage = (url: string, options: ReadOptions) => Promise<PageOutcome>;

/**
 * The scrape options of a page a report reads: markdown of the whole page (a parked page has
 * no main content to speak of) and its links, within `timeoutMs`, from the cache when a copy
 * is younger than `maxAgeMs`, stored unless `store` is false; the other fields at the
 * defaults the gateway's validation fills in.
 */
export function reportScrapeOptions(timeoutMs: number, maxAgeMs: number, store = true): ScrapeOptions {
  return ownReadOptions({ formats: ['markdown', 'links'], onlyMainContent: false, maxAge: maxAgeMs, storeInCache: store, timeout: timeoutMs });
}

/** Markdown kept of a page read (the rules read at most this much). */
export const MAX_PAGE_MARKDOWN = 200_000;
/** Links kept of a page read. */
export const MAX_PAGE_LINKS = 5_000;

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** The page a scrape Reply carries, or its failure. */
export function pageOfReply(url: string, reply: ReplyValue): PageOutcome {
  if (!reply.ok) return { ok: false, code: reply.errorCode ?? 'upstream_error', message: reply.errorMessage ?? 'the page could not be read' };
  const document = parseJsonObject(reply.data ?? '');
  if (!document) return { ok: false, code: 'upstream_error', message: 'the page came back without a document' };
  const metadata = (document.metadata && typeof document.metadata === 'object' && !Array.isArray(document.metadata) ? document.metadata : {}) as Record<string, unknown>;
  const links = Array.isArray(document.links) ? document.links.filter((l): l is string => typeof l === 'string').slice(0, MAX_PAGE_LINKS) : [];
  return {
    ok: true,
    page: {
      url,
      finalUrl: text(metadata.url) ?? url,
      statusCode: typeof metadata.statusCode === 'number' ? metadata.statusCode : 200,
      title: text(metadata.title) ?? text(metadata.ogTitle),
      language: text(metadata.language),
      markdown: (text(document.markdown) ?? '').slice(0, MAX_PAGE_MARKDOWN),
      links,
    },
  };
}

/** The first `chars` characters of a page's text, on one line, for evidence. */
export function excerptOf(markdown: string, chars = 300): string {
  const line = markdown.slice(0, chars * 4).replace(/\s+/g, ' ').trim();
  return line.length > chars ? `${line.slice(0, chars - 1)}…` : line;
}
