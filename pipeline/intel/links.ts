/**
 * The link graph (issue 29): which domains link to which, fed by every page the parser stores
 * (scrape and crawl) and read by the domain lookup's backlinks and the report's link checks.
 * Its tables are infra/clickhouse/0010_link_graph.sql, which says what each count means.
 *
 * - linkEdgesOf (pure): a page's cross-domain links as edges. A host is filed under its
 *   registrable domain (tldts, the ICANN section of the public-suffix list: `blog.example.co.uk`
 *   → `example.co.uk`); a host with none (an IP address, `localhost`, a bare suffix) is filed
 *   as the host itself. Links to the page's own domain are dropped, and so is every link that
 *   is not an absolute http(s) URL. Bounded: the first LINKS_READ_PER_PAGE links of a page are
 *   read, a URL longer than MAX_LINK_URL_LENGTH characters is skipped (a page URL that long has
 *   no edges).
 * - queueLinkEdges: a page's edges as one `link_page_edges` row, queued in the batch writer's
 *   lazy batches like the search index rows (LINK_WRITE_DELAY_MS): the page's reply never waits
 *   for it. Nothing is written for a page without edges.
 * - backlinks, linkingPages, linkGraphCoverage: the reads, every value a bound parameter.
 *
 * The graph is one for the whole service, not per key: only pages whose copy could go to the
 * shared page index feed it (actors/parser/index.ts), so it tells no key what another key's
 * private pages link to.
 */
import { getDomain } from 'tldts';
import { queueWrite, type BatchWriter } from '../runtime/store/batch-writer.js';
import type { Store } from '../runtime/store/store.js';

export interface LinkEdge {
  readonly sourceDomain: string;
  readonly targetDomain: string;
  readonly sourceUrl: string;
  readonly targetUrl: string;
  readonly seenAtMs: number;
}

export interface ReferringDomain {
  readonly domain: string;
  /** Distinct (linking page URL, target URL) pairs seen from this domain. */
  readonly links: number;
  /** Distinct pages of this domain seen linking to the target. */
  readonly pages: number;
  /** ISO 8601 UTC: when a link from this domain was first and last seen. */
  readonly firstSeen: string;
  readonly lastSeen: string;
}

export interface LinkGraphCoverage {
  /** Domains whose pages gave at least one cross-domain link. */
  readonly sourceDomains: number;
  /** Pages that gave at least one cross-domain link. */
  readonly pages: number;
  /** Distinct (page URL, target URL) links. */
  readonly edges: number;
  /** When the first link was seen; null while the graph is empty. */
  readonly since: string | null;
}

export interface Backlinks {
  readonly target: string;
  readonly referringDomains: readonly ReferringDomain[];
  readonly totalReferringDomains: number;
  readonly coverage: LinkGraphCoverage;
}

export interface LinkingPage {
  readonly sourceUrl: string;
  readonly targetUrl: string;
  /** ISO 8601 UTC. */
  readonly lastSeen: string;
}

/** Links of a page read for edges; the rest are ignored. */
export const LINKS_READ_PER_PAGE = 1_000;
/** Longest URL (characters) a link or a linking page may have to be an edge. */
export const MAX_LINK_URL_LENGTH = 2_048;
/** Most referring domains one backlinks read lists (the spec's backlinkLimit range). */
export const MAX_BACKLINKS_LIMIT = 1_000;
/** Most linking pages one linkingPages read returns. */
export const MAX_LINKING_PAGES_LIMIT = 1_000;

/** The one table the parser writes; 0010's materialized views fill the rest. */
export const LINK_WRITE_TABLE = 'link_page_edges';
/** How long a page's edges wait for their batch (as the search index's rows). */
export const LINK_WRITE_DELAY_MS = 1_000;
/** Pages' edge rows queued and not yet landed past which the writer waits for its own. */
export const LINK_MAX_QUEUED_PAGES = 5_000;

const TLDTS_OPTIONS = { allowPrivateDomains: false, extractHostname: false } as const;

/** True when every character is one a serialized ASCII host has (lower-case letters, digits, `.`, `-`). */
function plainHost(host: string): boolean {
  if (host.length === 0) return false;
  for (let i = 0; i < host.length; i++) {
    const c = host.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 46 || c === 45)) return false;
  }
  return true;
}

interface ParsedLink {
  /** The host, lower-case ASCII (punycode), without a trailing dot. */
  readonly host: string;
  /** The URL without its fragment. */
  readonly url: string;
}

/**
 * An absolute http(s) URL's host and the URL without its fragment (nor user and password);
 * null for anything else. Serialized URLs without credentials (what the parser's `links` are)
 * are read with string operations; the rest (upper case, non-ASCII hosts, IPv6, escapes, a
 * user or password) through WHATWG parsing.
 */
function parseLink(raw: string): ParsedLink | null {
  const hash = raw.indexOf('#');
  const url = hash === -1 ? raw : raw.slice(0, hash);
  const start = url.startsWith('https://') ? 8 : url.startsWith('http://') ? 7 : 0;
  if (start > 0) {
    let end = start;
    while (end < url.length) {
      const c = url.charCodeAt(end);
      if (c === 47 || c === 63) break; // '/' '?'
      end++;
    }
    const authority = url.slice(start, end);
    const colon = authority.indexOf(':');
    let host = colon === -1 ? authority : authority.slice(0, colon);
    if (host.endsWith('.')) host = host.slice(0, -1);
    if (plainHost(host) && !authority.includes('@')) return { host, url };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  parsed.username = '';
  parsed.password = '';
  const host = parsed.hostname.endsWith('.') ? parsed.hostname.slice(0, -1) : parsed.hostname;
  return host ? { host, url: parsed.href } : null;
}

/** The domain the graph files a lower-case ASCII host under: its registrable domain, else the host. */
function domainOfHost(host: string): string {
  return getDomain(host, TLDTS_OPTIONS) ?? host;
}

/**
 * The domain the graph files a host, a domain or a URL under (as linkEdgesOf files links):
 * `https://Blog.Example.co.uk/x` → `example.co.uk`, `bücher.de` → `xn--bcher-kva.de`,
 * `192.0.2.1` → `192.0.2.1`; null when it names no http(s) host.
 */
export function linkDomainOf(hostOrUrl: string): string | null {
  const text = hostOrUrl.trim();
  if (!text || text.length > MAX_LINK_URL_LENGTH) return null;
  const parsed = parseLink(text.includes('://') ? text : `http://${text}`);
  return parsed ? domainOfHost(parsed.host) : null;
}

/** Pure: the cross-domain edges of a page (see the header for what is kept). */
export function linkEdgesOf(pageUrl: string, links: readonly string[], seenAtMs: number): LinkEdge[] {
  if (links.length === 0 || pageUrl.length > MAX_LINK_URL_LENGTH) return [];
  const page = parseLink(pageUrl);
  if (!page) return [];
  const sourceDomain = domainOfHost(page.host);
  const edges: LinkEdge[] = [];
  let domains: Map<string, string> | null = null;
  let seen: Set<string> | null = null;
  const read = Math.min(links.length, LINKS_READ_PER_PAGE);
  for (let i = 0; i < read; i++) {
    const raw = links[i] as string;
    if (raw.length > MAX_LINK_URL_LENGTH) continue;
    const link = parseLink(raw);
    if (!link || link.host === page.host) continue;
    domains ??= new Map();
    let targetDomain = domains.get(link.host);
    if (targetDomain === undefined) {
      targetDomain = domainOfHost(link.host);
      domains.set(link.host, targetDomain);
    }
    if (targetDomain === sourceDomain) continue;
    seen ??= new Set();
    if (seen.has(link.url)) continue;
    seen.add(link.url);
    edges.push({ sourceDomain, targetDomain, sourceUrl: page.url, targetUrl: link.url, seenAtMs });
  }
  return edges;
}

/** The `link_page_edges` rows of edges: one per linking page (its targets as parallel arrays). */
export function linkPageRows(edges: readonly LinkEdge[]): Record<string, unknown>[] {
  const rows = new Map<string, { source_domain: string; source_url: string; seen_at: number; target_domains: string[]; target_urls: string[] }>();
  for (const edge of edges) {
    const key = `${edge.seenAtMs} ${edge.sourceUrl}`;
    let row = rows.get(key);
    if (!row) {
      row = { source_domain: edge.sourceDomain, source_url: edge.sourceUrl, seen_at: edge.seenAtMs, target_domains: [], target_urls: [] };
      rows.set(key, row);
    }
    row.target_domains.push(edge.targetDomain);
    row.target_urls.push(edge.targetUrl);
  }
  return [...rows.values()];
}

/**
 * Queues edges in the writer's lazy batches (LINK_WRITE_DELAY_MS) and resolves without
 * waiting for them to land, unless LINK_MAX_QUEUED_PAGES pages' rows already wait (the store
 * is behind: the caller slows down). Free for no edges. A failed insert goes to `failed`.
 */
export async function queueLinkEdges(
  writer: Pick<BatchWriter, 'write' | 'pending'>,
  edges: readonly LinkEdge[],
  failed: (error: unknown) => void = () => undefined,
): Promise<void> {
  if (edges.length === 0) return;
  await queueWrite(writer, LINK_WRITE_TABLE, linkPageRows(edges), { maxDelayMs: LINK_WRITE_DELAY_MS, maxPendingRows: LINK_MAX_QUEUED_PAGES }, failed);
}

/** Writes the edges this process has queued now: a read in the process that stored them sees them. Free when nothing waits. */
export async function flushLinkEdges(writer: Pick<BatchWriter, 'flush' | 'pending'>): Promise<void> {
  if (writer.pending(LINK_WRITE_TABLE) > 0) await writer.flush([LINK_WRITE_TABLE]);
}

// ---------------------------------------------------------------- reads

const isoOf = (ms: string | number): string => new Date(Number(ms)).toISOString();
const clampLimit = (limit: number, most: number): number => (Number.isFinite(limit) ? Math.min(most, Math.max(1, Math.floor(limit))) : most);

/**
 * REFERRING: the target's referring domains, busiest first (most links, then most pages, then
 * by name), the first `limit`, with how many there are in all (`total`, counted over every row
 * before the limit). FINAL merges the rows of a pair not merged yet, so each row is one pair
 * and its states are finalized once (GROUP BY with uniqCombinedMerge builds a second state per
 * pair: about twice as long for a popular target).
 */
const REFERRING = `
SELECT source_domain AS domain, finalizeAggregation(links) AS links, finalizeAggregation(pages) AS pages,
       toUnixTimestamp64Milli(first_seen) AS first_ms, toUnixTimestamp64Milli(last_seen) AS last_ms,
       count() OVER () AS total
FROM link_domains FINAL
WHERE target_domain = {target:String}
ORDER BY links DESC, pages DESC, domain
LIMIT {limit:UInt32}`;

const COVERAGE = `
SELECT uniqCombinedMerge(14)(source_domains) AS source_domains, uniqCombinedMerge(14)(pages) AS pages,
       uniqCombinedMerge(14)(edges) AS edges, toUnixTimestamp64Milli(minOrNull(since)) AS since_ms
FROM link_coverage`;

/**
 * LINKING: pages of the `limit` referring domains that linked most recently (their pair rows'
 * last time seen, FINAL: light columns, no state read, a top-`limit` sort), from the samples of
 * those pairs only
 * (link_samples, at most four per pair), one row per page (its newest link), ranked within
 * each domain newest first; the pages ranked first in their domain come first (newest first),
 * then the second of each…: a few pages of many domains rather than many of one.
 */
const LINKING = `
SELECT source_url, target_url, toUnixTimestamp64Milli(last_seen) AS last_ms
FROM
(
    SELECT source_url, target_url, last_seen,
           row_number() OVER (PARTITION BY source_domain ORDER BY last_seen DESC, source_url) AS rank
    FROM
    (
        SELECT source_domain, source_url, target_url, last_seen
        FROM link_samples FINAL
        WHERE target_domain = {target:String}
          AND source_domain IN
          (
              SELECT source_domain
              FROM link_domains FINAL
              WHERE target_domain = {target:String}
              ORDER BY last_seen DESC, source_domain
              LIMIT {limit:UInt32}
          )
        ORDER BY last_seen DESC, target_url
        LIMIT 1 BY source_url
    )
)
ORDER BY rank, last_seen DESC, source_url
LIMIT {limit:UInt32}`;

/** How much of the web the graph has seen (each figure exact to 1,024, then an estimate: 0010's `uniqCombined(14)`). */
export async function linkGraphCoverage(store: Pick<Store, 'query'>): Promise<LinkGraphCoverage> {
  const [row] = await store.query<{ source_domains: string; pages: string; edges: string; since_ms: string | null }>(COVERAGE);
  return {
    sourceDomains: Number(row?.source_domains ?? 0),
    pages: Number(row?.pages ?? 0),
    edges: Number(row?.edges ?? 0),
    since: row?.since_ms == null ? null : isoOf(row.since_ms),
  };
}

/**
 * The domains known to link to `target` (a domain, host or URL, filed as linkDomainOf files
 * it), busiest first, at most `limit` (1 to MAX_BACKLINKS_LIMIT), with their total and the
 * graph's coverage. An unusable target has no referring domains.
 */
export async function backlinks(store: Store, target: string, limit: number): Promise<Backlinks> {
  const domain = linkDomainOf(target);
  const [rows, coverage] = await Promise.all([
    domain
      ? store.query<{ domain: string; links: string; pages: string; first_ms: string; last_ms: string; total: string }>(REFERRING, {
          target: domain,
          limit: clampLimit(limit, MAX_BACKLINKS_LIMIT),
        })
      : Promise.resolve([]),
    linkGraphCoverage(store),
  ]);
  return {
    target: domain ?? target.trim().toLowerCase(),
    referringDomains: rows.map((r) => ({ domain: r.domain, links: Number(r.links), pages: Number(r.pages), firstSeen: isoOf(r.first_ms), lastSeen: isoOf(r.last_ms) })),
    totalReferringDomains: Number(rows[0]?.total ?? 0),
    coverage,
  };
}

/** Up to `limit` recently seen pages linking to `target`, spread over referring domains (see LINKING). */
export async function linkingPages(store: Store, target: string, limit: number): Promise<LinkingPage[]> {
  const domain = linkDomainOf(target);
  if (!domain) return [];
  const rows = await store.query<{ source_url: string; target_url: string; last_ms: string }>(LINKING, {
    target: domain,
    limit: clampLimit(limit, MAX_LINKING_PAGES_LIMIT),
  });
  return rows.map((r) => ({ sourceUrl: r.source_url, targetUrl: r.target_url, lastSeen: isoOf(r.last_ms) }));
}
