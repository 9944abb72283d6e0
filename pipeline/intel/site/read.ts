/**
 * How the site readers read pages: `ReadPage`, injected by whoever runs them (the intel pool
 * reads through the fetch path: the fetcher's SSRF guard, proxies and size cap; the tests and
 * benches through the same HTTP stack), and `SiteReader`, one call's session over it.
 *
 * - A page counts as read (and is charged) when the site answered it 2xx; a probe the site
 *   answers 404, and a request that failed, cost nothing. At most `maxPages` pages are read
 *   (and at most twice that many requests made, whatever they answer), and none after the
 *   call's deadline (its time budget); past either, reads answer null and the session
 *   remembers which (`stoppedBy`) for the answer's `warning`.
 * - Each URL is asked once per session (the first answer, or failure, is kept).
 * - Bodies are parsed within this folder's limits (limits.ts): JSON by size and depth
 *   (counted over the text before it is parsed), XML by size and element depth (a linear count before
 *   parsing), HTML by size. An oversize or too-deep body is unreadable, never parsed.
 * - `null` from `ReadPage` means the site gave no answer (a failed fetch); failures that are
 *   not the site's (the request aborted, no worker) throw and end the call.
 */
import { depthOver, jsonDepthOver } from '../../runtime/json-limits.js';
import { markupDepthOver, tagsOver } from '../../runtime/markup-limits.js';
import { decodeBody, detectCharset } from '../../runtime/net/charset.js';
import { MAX_HTML_CHARS, MAX_HTML_DEPTH, MAX_HTML_TAGS, MAX_JSON_CHARS, MAX_JSON_DEPTH, MAX_XML_CHARS, MAX_XML_DEPTH } from './limits.js';

export interface ReadResult {
  /** The final URL, after redirects. */
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** How a reader gets a page: through the fetch/scrape path (SSRF guard, proxies, cache). */
export type ReadPage = (url: string, opts: { readonly signal?: AbortSignal; readonly accept?: 'html' | 'json' | 'xml' | 'any' }) => Promise<ReadResult | null>;

export type Accept = 'html' | 'json' | 'xml' | 'any';

/**
 * A fetched body as text, its encoding decided as every page's is (pipeline/runtime/net/charset.ts:
 * BOM, Content-Type, the markup's prescan, else UTF-8). UTF-8 — every store API and nearly every
 * page — is decoded by V8's own decoder, which replaces bad bytes as the Encoding standard's
 * does and reads a 300 KB products page in a fraction of the standard decoder's time (≈ 0.3
 * against ≈ 8 ms here); any other encoding goes through the standard's decoders.
 */
export function decodeText(body: Buffer, contentType: string | null): string {
  const { charset, bomLength } = detectCharset(body, contentType);
  return charset === 'utf-8' ? body.toString('utf8', bomLength) : decodeBody(body, contentType).text;
}

/** What the products and posts readers are given. */
export interface ListingOptions {
  /** Most items returned (1 to 10,000). */
  readonly limit: number;
  readonly read: ReadPage;
  readonly signal?: AbortSignal;
  /** The clock (epoch ms): dates ahead of it are not believed. */
  readonly now?: () => number;
  /** Pages read at most (default: listingPageBudget of the limit). */
  readonly maxPages?: number;
  /** Epoch ms (on `now`) past which no page is asked for. */
  readonly deadlineMs?: number;
}

/** The session options of a call's deadline and clock. */
export function deadlineOf(opts: { readonly deadlineMs?: number; readonly now?: () => number }): Pick<SiteReaderOptions, 'deadlineMs' | 'now'> {
  return { ...(opts.deadlineMs !== undefined ? { deadlineMs: opts.deadlineMs } : {}), ...(opts.now ? { now: opts.now } : {}) };
}

export interface SiteReaderOptions {
  readonly read: ReadPage;
  readonly maxPages: number;
  readonly signal?: AbortSignal;
  /** Epoch ms past which no page is asked for (the call's time budget); none: no time limit. */
  readonly deadlineMs?: number;
  /** The clock (epoch ms) the deadline is read on. */
  readonly now?: () => number;
}

export const isOk = (page: ReadResult | null): page is ReadResult => page !== null && page.status >= 200 && page.status < 300;

/** Whether the page says it is JSON (or the body looks like it: many servers send JSON as text/html). */
function looksJson(page: ReadResult): boolean {
  return /json/i.test(page.contentType) || /^\s*[[{]/.test(page.body.slice(0, 64));
}

/** Whether the page is HTML (declared, or an untyped body that starts like it). */
export function looksHtml(page: ReadResult): boolean {
  if (/html/i.test(page.contentType)) return true;
  const head = page.body.slice(0, 512).trimStart().toLowerCase();
  return !page.contentType || /^text\/plain/i.test(page.contentType) ? head.startsWith('<!doctype html') || head.startsWith('<html') : false;
}

/** Whether an XML text nests elements deeper than `max` (markupDepthOver in XML mode). */
export function xmlDepthOver(text: string, max: number): boolean {
  return markupDepthOver(text, max, false);
}

/** One call's reads (see the file comment). */
export class SiteReader {
  private readonly seen = new Map<string, Promise<ReadResult | null>>();
  private read = 0;
  /** Pages the site answered 2xx: what the call is charged for. */
  get pagesRead(): number {
    return this.read;
  }
  /** Whether a read was refused because the page budget or the time budget was spent. */
  budgetSpent = false;
  /** Which budget stopped the reading, when one did. */
  stoppedBy: 'pages' | 'time' | null = null;
  /** URLs the site did not answer (failed fetches), for the answer's warning. */
  readonly failed: string[] = [];

  constructor(private readonly options: SiteReaderOptions) {}

  get signal(): AbortSignal | undefined {
    return this.options.signal;
  }

  /** Pages still allowed: the budget less the pages read and in flight, and at most twice the budget in requests of any answer; none past the deadline. */
  get remaining(): number {
    if (this.pastDeadline()) return 0;
    return Math.max(0, Math.min(this.options.maxPages - this.read - this.inFlight, 2 * this.options.maxPages - this.requests));
  }

  private pastDeadline(): boolean {
    const { deadlineMs, now } = this.options;
    return deadlineMs !== undefined && (now ?? Date.now)() >= deadlineMs;
  }

  private inFlight = 0;
  private requests = 0;
  /** URLs read ahead and not used: not charged (see `discard`). */
  private readonly discarded = new Set<string>();
  /** URLs whose 2xx answer was counted. */
  private readonly counted = new Set<string>();

  /** The page as the site answered it (any status), or null: not answered, or no budget left. */
  page(url: string, accept: Accept): Promise<ReadResult | null> {
    const known = this.seen.get(url);
    if (known) return known;
    if (this.remaining <= 0) {
      this.budgetSpent = true;
      this.stoppedBy ??= this.pastDeadline() ? 'time' : 'pages';
      return Promise.resolve(null);
    }
    this.inFlight += 1;
    this.requests += 1;
    const pending = this.options
      .read(url, { accept, ...(this.options.signal ? { signal: this.options.signal } : {}) })
      .then((page) => {
        if (isOk(page) && !this.discarded.has(url)) {
          this.read += 1;
          this.counted.add(url);
        }
        if (page === null) this.failed.push(url);
        return page;
      })
      .finally(() => void (this.inFlight -= 1));
    this.seen.set(url, pending);
    return pending;
  }

  /**
   * A page read ahead that the reader turned out not to need (the page after a store's last):
   * not charged, whether its answer came already or comes later. The read itself is not undone.
   */
  discard(url: string): void {
    this.discarded.add(url);
    if (this.counted.delete(url)) this.read -= 1;
  }

  /** A 2xx HTML page's text, within MAX_HTML_CHARS and MAX_HTML_DEPTH; null otherwise. */
  async html(url: string): Promise<ReadResult | null> {
    const page = await this.page(url, 'html');
    return isOk(page) && readableHtml(page) ? page : null;
  }

  /** A 2xx JSON answer, parsed within MAX_JSON_CHARS and MAX_JSON_DEPTH; null otherwise. */
  async json(url: string): Promise<{ readonly page: ReadResult; readonly value: unknown } | null> {
    const page = await this.page(url, 'json');
    if (!isOk(page) || page.body.length > MAX_JSON_CHARS || !looksJson(page)) return null;
    const value = parseJson(page.body);
    return value === undefined ? null : { page, value };
  }

  /** A 2xx XML (or feed) answer's text within MAX_XML_CHARS and MAX_XML_DEPTH; null otherwise. */
  async xml(url: string): Promise<ReadResult | null> {
    const page = await this.page(url, 'xml');
    if (!isOk(page) || page.body.length > MAX_XML_CHARS) return null;
    return xmlDepthOver(page.body, MAX_XML_DEPTH) ? null : page;
  }
}

/** Whether an answer is HTML the readers may load: declared or sniffed HTML, within MAX_HTML_CHARS, MAX_HTML_TAGS and MAX_HTML_DEPTH. */
export function readableHtml(page: ReadResult): boolean {
  return looksHtml(page) && page.body.length <= MAX_HTML_CHARS && !tagsOver(page.body, MAX_HTML_TAGS) && !markupDepthOver(page.body, MAX_HTML_DEPTH, true);
}

/** The warning of a session a budget stopped, naming which; null when none did. */
export function budgetWarning(reader: Pick<SiteReader, 'stoppedBy'>, maxPages: number): string | null {
  if (reader.stoppedBy === 'pages') return `stopped at the page budget (${maxPages} pages read)`;
  if (reader.stoppedBy === 'time') return 'stopped at the time budget (SITE_READ_BUDGET_MS): the pages not read by then are left out';
  return null;
}

/**
 * Texts up to this many characters are parsed first and their value walked for depth (without
 * recursion); longer ones are scanned before they are parsed. JSON.parse is iterative in V8, so
 * a text nested all the way costs it time, not stack: at this size at most ≈ 80 ms here (262,144
 * levels of `[`), less than a flat 11 MB text of products takes (≈ 300 ms). Walking a parsed
 * products page is ≈ 7× cheaper than scanning its text, and most API pages are this small.
 */
const PARSE_FIRST_CHARS = 512 * 1024;

/** JSON text parsed, when it nests no deeper than MAX_JSON_DEPTH and parses; undefined otherwise. */
export function parseJson(body: string): unknown {
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  const small = text.length <= PARSE_FIRST_CHARS;
  if (!small && jsonDepthOver(text, MAX_JSON_DEPTH)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return small && depthOver(value, MAX_JSON_DEPTH) ? undefined : value;
}
