/**
 * Syndication feeds as a source of mentions: the RSS, Atom and JSON feeds a watch names
 * (`sources.feeds`) and the ones found on the sites it names (`sources.sites`), read with
 * feeds-parse.ts; a post matches when its title or text contains a term (case-insensitive,
 * a plain substring test: no pattern is built from a term) and was published after `sinceMs`.
 * Asked with no terms (the social catalog's `feeds/read`: one feed or site), every post after
 * `sinceMs` is answered.
 *
 * - Feed and site URLs come from callers, so every request goes through the guarded fetcher
 *   given to the constructor (an HttpFetcher whose NetGuard follows FETCH_ALLOW_PRIVATE, as
 *   the fetcher actor builds it): a feed that is, or redirects to, a private address is
 *   refused like any page. Requests say who they are (service-http.ts USER_AGENT), as feed
 *   readers do; each body is read up to FEED_MAX_BYTES, each request within `timeoutMs`.
 * - Discovery, per site: its page's `<link rel="alternate">` feeds (at most MAX_FEEDS_PER_SITE);
 *   else the first of COMMON_FEED_PATHS (at the site's root) that reads as a feed; a site URL
 *   that is itself a feed is its own. What a site's discovery found (nothing included) is
 *   reused for DISCOVERY_TTL_MS; a site that could not be read is asked again next time.
 * - Conditional GET: each feed's `ETag` and `Last-Modified` are kept in this process and sent
 *   back (`If-None-Match`, `If-Modified-Since`). A 304 answers the posts that feed gave last
 *   time, kept with the validators, not none: one connector serves every watch, and a feed
 *   that answered another watch's collection has unchanged items this one has not matched
 *   yet. The `sinceMs` cutoff drops what this watch has seen. The kept posts are bounded
 *   (FEED_CACHE_ENTRIES feeds, FEED_CACHE_CHARS characters of text), least recently read out first.
 * - A post's id (`externalId`): the item's id when it is globally unique by form (an
 *   `http(s):`, `tag:` or `urn:` IRI — Atom ids must be, and RSS guids mostly are, permalinks),
 *   so the same item in two feeds is one post; else (a guid unique only in its feed, or an
 *   item with no id and no link) `feed:` + a hash of `<feed url>#<id>` (or of its title and
 *   text). An item without a readable date is dated when this process first saw it, and keeps
 *   that date while it stays in the feed: it is answered once, then falls behind `sinceMs`
 *   (after a restart it is new again; the mentions store's dedupe by id keeps it once).
 * - Limits: MAX_FEEDS feeds and MAX_FEEDS sites a collection (the rest named in a warning),
 *   FEEDS_PARALLEL requests at a time.
 * - Failures: a feed or site that cannot be read (HTTP error, not a feed, refused address,
 *   timeout) is a warning naming it (scheme, host and path: a private feed's query may hold
 *   a token), not a failure of the collection; when no feed at all could be read, the
 *   collection fails with ServiceError `unavailable` listing why.
 */
import { createHash } from 'node:crypto';
import { normalizeUrl } from '../../runtime/url.js';
import { mapBounded } from '../../runtime/bounded.js';
import { errorCode } from '../../runtime/errors.js';
import type { FetchResult, HttpFetcher } from '../../runtime/net/http.js';
import { ServiceError, USER_AGENT } from '../service-http.js';
import { feedLinks, parseFeed, type FeedItem, type ParsedFeed } from './feeds-parse.js';
import { newestFirst, type Collected, type CollectQuery, type Connector, type FoundPost } from './types.js';

export interface FeedsOptions {
  /** The guarded fetcher (its NetGuard built from FETCH_ALLOW_PRIVATE): feed URLs are callers'. */
  readonly fetcher: HttpFetcher;
  /** The clock (epoch ms): undated items and the discovery cache. */
  readonly now?: () => number;
  /** How long a site's discovered feeds are reused (default DISCOVERY_TTL_MS). */
  readonly discoveryTtlMs?: number;
}

const SERVICE = 'feeds';
export const MAX_FEEDS = 20;
export const FEEDS_PARALLEL = 5;
export const FEED_MAX_BYTES = 5 * 1024 * 1024;
export const DISCOVERY_TTL_MS = 3_600_000;
export const MAX_FEEDS_PER_SITE = 3;
/** Where sites without an alternate link commonly keep their feed (WordPress, Hugo, Jekyll, …). */
export const COMMON_FEED_PATHS = ['/feed', '/rss.xml', '/atom.xml', '/feed.xml', '/index.xml', '/feed.json'] as const;
const FEED_CACHE_ENTRIES = 1_000;
const FEED_CACHE_CHARS = 16 * 1024 * 1024;
const SITE_CACHE_ENTRIES = 1_000;
/** Longer ids are hashed like feed-local ones. */
const MAX_ID_CHARS = 512;
const GLOBAL_ID = /^(https?|tag|urn):/i;

const FEED_ACCEPT = 'application/rss+xml, application/atom+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, */*;q=0.5';
const PAGE_ACCEPT = 'text/html, application/xhtml+xml;q=0.9, */*;q=0.5';

interface KnownFeed {
  readonly etag: string | null;
  readonly lastModified: string | null;
  readonly posts: readonly FoundPost[];
  readonly chars: number;
}

interface KnownSite {
  readonly feeds: readonly string[];
  readonly atMs: number;
}

type Read = { readonly ok: true; readonly posts: readonly FoundPost[] } | { readonly ok: false; readonly why: string };

export class FeedsConnector implements Connector {
  readonly platform = 'feeds' as const;
  readonly notConfigured = null;
  private readonly fetcher: HttpFetcher;
  private readonly now: () => number;
  private readonly discoveryTtlMs: number;
  /** Feed URL → its validators and last posts, least recently read first. */
  private readonly known = new Map<string, KnownFeed>();
  private knownChars = 0;
  /** Site URL → the feeds found on it, oldest first. */
  private readonly sites = new Map<string, KnownSite>();

  constructor(options: FeedsOptions) {
    this.fetcher = options.fetcher;
    this.now = options.now ?? Date.now;
    this.discoveryTtlMs = options.discoveryTtlMs ?? DISCOVERY_TTL_MS;
  }

  async collect(query: CollectQuery): Promise<Collected> {
    const feeds = distinct(query.sources?.feeds ?? []);
    const sites = distinct(query.sources?.sites ?? []);
    if (feeds.length === 0 && sites.length === 0) return { posts: [], source: SERVICE, warnings: ['no feeds or sites on the watch'] };
    const warnings: string[] = [];
    if (sites.length > MAX_FEEDS) warnings.push(`${sites.length} sites: feeds were looked for on the first ${MAX_FEEDS} only.`);
    // Feeds read while discovering (a probed path, a site that is a feed) are not asked twice.
    const fetched = new Map<string, Read>();
    const found = await mapBounded(sites.slice(0, MAX_FEEDS), FEEDS_PARALLEL, (site) => this.discover(site, query, fetched, warnings), query.signal);
    const urls = distinct([...feeds, ...found.flatMap((f) => f ?? [])]);
    if (urls.length > MAX_FEEDS) warnings.push(`${urls.length} feeds: the first ${MAX_FEEDS} were read.`);
    const chosen = urls.slice(0, MAX_FEEDS);
    const reads = await mapBounded(chosen, FEEDS_PARALLEL, (url) => Promise.resolve(fetched.get(url) ?? this.read(url, query)), query.signal);
    if (query.signal?.aborted) throw query.signal.reason;
    const posts: FoundPost[] = [];
    let answered = 0;
    reads.forEach((read, i) => {
      if (read?.ok) {
        answered++;
        posts.push(...read.posts);
      } else if (read) warnings.push(`feed ${shown(chosen[i] ?? '')}: ${read.why}`);
    });
    if (answered === 0) throw new ServiceError(SERVICE, 'unavailable', `no feed could be read (${warnings.join('; ')})`);
    const terms = query.terms.map((t) => t.trim().toLowerCase()).filter(Boolean);
    // No terms (the social catalog's `feeds/read`): every post.
    const matching = posts.filter((p) => p.publishedAtMs > query.sinceMs && (terms.length === 0 || contains(p, terms)));
    return { posts: newestFirst(matching, query.limit), source: SERVICE, warnings };
  }

  /** The feeds of a site (see the header); a failure is a warning and no feeds. */
  private async discover(site: string, query: CollectQuery, fetched: Map<string, Read>, warnings: string[]): Promise<string[]> {
    const cached = this.sites.get(site);
    if (cached && this.now() - cached.atMs < this.discoveryTtlMs) return [...cached.feeds];
    let page: FetchResult;
    try {
      page = await this.get(site, { Accept: PAGE_ACCEPT }, query);
    } catch (error) {
      if (query.signal?.aborted) throw error;
      warnings.push(`site ${shown(site)}: ${reasonOf(error)}`);
      return [];
    }
    if (!isOk(page)) {
      warnings.push(`site ${shown(site)}: HTTP ${page.statusCode}`);
      return [];
    }
    const body = page.text().text;
    const itself = parseFeed(body, page.finalUrl, this.now());
    if (itself) fetched.set(site, this.accept(site, page, itself));
    const linked = itself ? [site] : distinct(feedLinks(body, page.finalUrl)).slice(0, MAX_FEEDS_PER_SITE);
    const feeds = linked.length > 0 ? linked : await this.probe(page.finalUrl, query, fetched);
    if (feeds.length === 0) warnings.push(`site ${shown(site)}: no feed found (no alternate link, and none of ${COMMON_FEED_PATHS.join(', ')} is a feed)`);
    this.rememberSite(site, feeds);
    return feeds;
  }

  /** The first common feed path of the site that reads as a feed. */
  private async probe(pageUrl: string, query: CollectQuery, fetched: Map<string, Read>): Promise<string[]> {
    for (const path of COMMON_FEED_PATHS) {
      const url = new URL(path, pageUrl).href;
      try {
        const res = await this.get(url, { Accept: FEED_ACCEPT }, query);
        const feed = isOk(res) ? parseFeed(res.text().text, res.finalUrl, this.now()) : null;
        if (feed) {
          fetched.set(url, this.accept(url, res, feed));
          return [url];
        }
      } catch (error) {
        if (query.signal?.aborted) throw error;
      }
    }
    return [];
  }

  /** One feed, conditionally when it was read before. */
  private async read(url: string, query: CollectQuery): Promise<Read> {
    const known = this.known.get(url);
    const headers: Record<string, string> = { Accept: FEED_ACCEPT };
    if (known?.etag) headers['If-None-Match'] = known.etag;
    if (known?.lastModified) headers['If-Modified-Since'] = known.lastModified;
    let res: FetchResult;
    try {
      res = await this.get(url, headers, query);
    } catch (error) {
      if (query.signal?.aborted) throw error;
      return { ok: false, why: reasonOf(error) };
    }
    if (res.statusCode === 304 && known) {
      this.keep(url, known);
      return { ok: true, posts: known.posts };
    }
    if (!isOk(res)) return { ok: false, why: `HTTP ${res.statusCode}` };
    const feed = parseFeed(res.text().text, res.finalUrl, this.now());
    if (!feed) return { ok: false, why: 'not a feed (no RSS, Atom or JSON Feed could be read)' };
    return this.accept(url, res, feed);
  }

  /** A feed's answer as posts; its validators and posts kept for the next read. */
  private accept(url: string, res: FetchResult, feed: ParsedFeed): Read {
    const posts = postsOf(url, feed, this.known.get(url)?.posts ?? [], this.now());
    const chars = posts.reduce((n, p) => n + p.text.length + (p.title?.length ?? 0), 0);
    this.keep(url, { etag: res.headers.etag ?? null, lastModified: res.headers['last-modified'] ?? null, posts, chars });
    return { ok: true, posts };
  }

  private get(url: string, headers: Record<string, string>, query: CollectQuery): Promise<FetchResult> {
    return this.fetcher.fetch({ url, timeoutMs: query.timeoutMs, headers, userAgent: USER_AGENT, maxBytes: FEED_MAX_BYTES, ...(query.signal ? { signal: query.signal } : {}) });
  }

  /** Keeps (or refreshes) a feed's entry as the most recent, then evicts the least recent past the bounds. */
  private keep(url: string, entry: KnownFeed): void {
    this.forget(url);
    this.known.set(url, entry);
    this.knownChars += entry.chars;
    for (const [oldest] of this.known) {
      if (this.known.size <= FEED_CACHE_ENTRIES && this.knownChars <= FEED_CACHE_CHARS) break;
      this.forget(oldest);
    }
  }

  private forget(url: string): void {
    const entry = this.known.get(url);
    if (!entry) return;
    this.known.delete(url);
    this.knownChars -= entry.chars;
  }

  private rememberSite(site: string, feeds: readonly string[]): void {
    this.sites.delete(site);
    this.sites.set(site, { feeds, atMs: this.now() });
    for (const [oldest] of this.sites) {
      if (this.sites.size <= SITE_CACHE_ENTRIES) break;
      this.sites.delete(oldest);
    }
  }
}

/** A feed's items as posts; an undated item keeps the date it had in `before` (first seen), else now. */
function postsOf(feedUrl: string, feed: ParsedFeed, before: readonly FoundPost[], nowMs: number): FoundPost[] {
  const firstSeen = new Map(before.map((p) => [p.externalId, p.publishedAtMs]));
  return feed.items.map((item) => {
    const externalId = externalIdOf(feedUrl, item);
    return {
      platform: 'feeds',
      externalId,
      url: item.link ?? feed.link ?? feedUrl,
      author: item.author,
      title: item.title,
      text: item.text || (item.title ?? ''),
      publishedAtMs: item.publishedAtMs ?? firstSeen.get(externalId) ?? nowMs,
      lang: item.lang,
    };
  });
}

/** The item's own id when it is globally unique by form; else a hash qualified by the feed (see the header). */
export function externalIdOf(feedUrl: string, item: FeedItem): string {
  if (item.id !== null && GLOBAL_ID.test(item.id) && item.id.length <= MAX_ID_CHARS) return item.id;
  const local = item.id ?? `${item.title ?? ''}\n${item.text}`;
  return `feed:${createHash('sha256').update(`${feedUrl}#${local}`).digest('hex').slice(0, 32)}`;
}

function contains(post: FoundPost, terms: readonly string[]): boolean {
  const haystack = `${post.title ?? ''}\n${post.text}`.toLowerCase();
  return terms.some((t) => haystack.includes(t));
}

const isOk = (res: FetchResult) => res.statusCode >= 200 && res.statusCode < 300;

/** The fetch failure's code (`url_blocked`, `fetch_timeout`, `dns_failed`, …): never its message, which may quote the URL. */
function reasonOf(error: unknown): string {
  return errorCode(error) ?? 'network error';
}

/** Each URL once, normalized (no fragment); strings that are not URLs are kept for the fetch to refuse. */
function distinct(urls: readonly string[]): string[] {
  return [...new Set(urls.map((u) => normalizeUrl(u.trim())).filter(Boolean))];
}

/** `scheme://host/path`: what a warning may say of a URL. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}
