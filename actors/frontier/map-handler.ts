/**
 * The frontier's pure handler for POST /v1/map: one MapRequested in, an Outcome out.
 *
 * - Discovered (map.ts): `ack` with a Reply {ok: true, data: {links: [{url, title?,
 *   description?}], warning?}, credits: the map's flat charge (schemas/api/prices.ts), source:
 *   'frontier'}. A site with no sitemap and no links answers with the seed URL alone.
 *   `warning` (Firecrawl's field name) says the time budget ended the discovery before
 *   `limit` URLs were found: the list is what was found by then, and the site may have more.
 * - The seed page could not be fetched: the failure is answered with its code (`url_blocked`,
 *   `dns_failed`, `connection_refused`, `fetch_timeout`, …) and costs nothing. The HTTP stack
 *   already retried network hiccups; a map is not run twice.
 * - Options that are not valid JSON: `bad_request` (the gateway validated them; this guards
 *   the event contract).
 * - Past its deadline: dropped by the pool (nobody waits any more). The pool stopping: `retry`.
 *
 * Failures are `fail` outcomes, which the pool answers (pipeline/runtime/pool.ts).
 *
 * The discovery's budget ends MAP_TIME_BUDGET_MS after the handler starts, and never later
 * than REPLY_MARGIN_MS before the request's deadline, so the answer arrives while the
 * gateway still waits.
 */
import { serviceCode } from '../../pipeline/runtime/errors.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { HttpFetcher } from '../../pipeline/runtime/net/http.js';
import { redactUrl } from '../../pipeline/runtime/net/guard.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { replyTo } from '../../pipeline/runtime/request-reply.js';
import { MAP_TIME_BUDGET_MS } from '../../schemas/api/page-reading.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { EventValue } from '../../schemas/events/index.js';
import { discoverSite, type DiscoveryLimits, type DiscoveryStats, type MapOptions } from './map.js';
import type { PageLinksReader } from './page-links-pool.js';

export type MapRequested = EventValue<'MapRequested'>;

/** Time kept between the end of discovery and the request's deadline, for the answer to travel. */
export const REPLY_MARGIN_MS = 1_000;

export interface MapHandlerDeps {
  readonly http: HttpFetcher;
  readonly log: Logger;
  readonly now?: () => number;
  /** Overrides the time budget (tests). */
  readonly budgetMs?: number;
  readonly limits?: Partial<DiscoveryLimits>;
  /** How a page's links are read (page-links-pool.ts); default: on this thread. */
  readonly readLinks?: PageLinksReader;
}

/** The options of the event, with the schema's defaults for what is missing; null when unreadable. */
export function mapOptionsOf(json: string): MapOptions | null {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return null;
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const o = raw as Record<string, unknown>;
  const limit = typeof o.limit === 'number' && Number.isInteger(o.limit) && o.limit >= 1 ? Math.min(o.limit, 30_000) : 5_000;
  return {
    search: typeof o.search === 'string' && o.search.trim() ? o.search : null,
    limit,
    includeSubdomains: o.includeSubdomains === true,
    ignoreSitemap: o.ignoreSitemap === true,
  };
}

/** What a map answer cut short by its time budget says about itself. */
export function budgetWarning(budgetMs: number, stats: DiscoveryStats): string {
  const seconds = Math.round(budgetMs / 100) / 10;
  return (
    `The map stopped at its ${seconds} s time budget with ${stats.found} URLs found ` +
    `(${stats.sitemapsRead} sitemaps read, ${stats.pagesWalked} pages walked); the site may have more. ` +
    'A crawl job lists a whole site without this limit.'
  );
}

export async function handleMapRequested(event: MapRequested, deps: MapHandlerDeps, signal: AbortSignal): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const log = deps.log.child({ requestId: event.requestId });
  const started = now();
  const options = mapOptionsOf(event.options);
  if (!options) return { kind: 'fail', code: 'bad_request', message: 'the map options are not a JSON object' };
  const untilMs = Math.min(started + (deps.budgetMs ?? MAP_TIME_BUDGET_MS), event.deadlineMs - REPLY_MARGIN_MS);
  try {
    const { links, stats } = await discoverSite(event.url, options, { http: deps.http, log, ...(deps.limits ? { limits: deps.limits } : {}), ...(deps.readLinks ? { readLinks: deps.readLinks } : {}), now }, untilMs, signal);
    log.info({ url: redactUrl(event.url), links: links.length, ...stats, ms: now() - started }, 'site mapped');
    const cut = stats.outOfTime && links.length < options.limit;
    const data = cut ? { links, warning: budgetWarning(untilMs - started, stats) } : { links };
    return {
      kind: 'ack',
      emit: replyTo(event, { ok: true, data: JSON.stringify(data), errorCode: null, errorMessage: null, credits: PRICES.map.credits, source: 'frontier' }, log),
    };
  } catch (error) {
    if (signal.aborted) return { kind: 'retry', code: 'service_unavailable', message: 'the map was interrupted' };
    const code = serviceCode(error);
    const message = error instanceof Error ? error.message : String(error);
    log.warn({ url: redactUrl(event.url), code }, `map failed: ${message}`);
    return { kind: 'fail', code, message };
  }
}
