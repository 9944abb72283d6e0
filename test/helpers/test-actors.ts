/**
 * Test-only actors standing in for the page-reading pools until the real fetcher and parser
 * land: the same ActorSpec shape as actors/index.ts, on the runtime's store and events, so
 * the end-to-end suites run the production pipeline (gateway → ScrapeRequested → fetcher →
 * PageFetched → parser → pages row + Reply → gateway) with pages that need no network.
 *
 * - `syntheticFetcher` (role fetcher) answers every ScrapeRequested with a deterministic HTML
 *   page made from the URL (`syntheticPage`). Query options of the URL steer it:
 *   `?bytes=N` makes the body exactly N bytes; `?fail=N` makes the first N attempts of the
 *   request fail retriably (`upstream_error`, so the pool retries); `?delayMs=N` makes each
 *   attempt take N ms (to have requests in flight when a process dies). The page's fetch
 *   time is the request's creation time, so a request fetched twice (a redelivery after a
 *   crash) yields the same PageFetched and the same `pages` sort key.
 * - `syntheticParser` (role parser, serves `scrape`) writes one `pages` row per request
 *   (a rewrite of the same request collapses on the sort key, which ends in request_id) and
 *   answers the request's replyTo with `{url, title, bytes, sha256}` of the body it received,
 *   1 credit, source `fresh`.
 *
 * Each logs `synthetic fetch started` / `synthetic fetch done` (info, with the requestId) so
 * a test can see which process holds which request.
 */
import { pagesRow } from '../../actors/parser/index.js';
import { createHash } from 'node:crypto';
import type { ActorSpec } from '../../actors/index.js';
import type { Emission } from '../../pipeline/runtime/events.js';
import type { ActorDefinition, Outcome } from '../../pipeline/runtime/pool.js';
import { sleep } from '../../pipeline/runtime/retry.js';
import { replyTo } from '../../pipeline/runtime/request-reply.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';
import type { EventValue } from '../../schemas/events/index.js';
import { HEADERS } from '../../schemas/topics.js';

/** What the parser answers for a page: the test compares it with `expectedPage`. */
export interface PageSummary {
  url: string;
  title: string;
  bytes: number;
  sha256: string;
}

const FILLER = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. ';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function unescapeHtml(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&gt;/g, '>').replace(/&lt;/g, '<').replace(/&amp;/g, '&');
}

/** A non-negative whole number from the URL's query, or `fallback`. */
function queryNumber(url: URL, name: string, fallback = 0): number {
  const raw = url.searchParams.get(name);
  return raw !== null && /^\d+$/.test(raw) ? Number(raw) : fallback;
}

/** The title of the synthetic page of `url`: host and path. */
export function syntheticTitle(url: string): string {
  const u = new URL(url);
  return `Synthetic page ${u.hostname}${u.pathname}`;
}

/**
 * The synthetic page of `url`: a small HTML document titled `syntheticTitle(url)`, padded
 * with filler text to exactly `?bytes=N` bytes when the URL asks (cut at N when N is smaller
 * than the bare page).
 */
export function syntheticPage(url: string): Buffer {
  const title = escapeHtml(syntheticTitle(url));
  const head = Buffer.from(
    `<!doctype html>\n<html><head><meta charset="utf-8"><title>${title}</title></head>\n<body><h1>${title}</h1>\n<p>${escapeHtml(url)}</p>\n<p>`,
  );
  const tail = Buffer.from('</p>\n</body></html>\n');
  const wanted = queryNumber(new URL(url), 'bytes', -1);
  if (wanted < 0) return Buffer.concat([head, tail]);
  const filler = wanted - head.length - tail.length;
  if (filler < 0) return Buffer.concat([head, tail]).subarray(0, wanted);
  return Buffer.concat([head, Buffer.alloc(filler, FILLER), tail]);
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** What a correct pipeline answers for `url`. */
export function expectedPage(url: string): PageSummary {
  const body = syntheticPage(url);
  return { url, title: syntheticTitle(url), bytes: body.length, sha256: sha256(body) };
}

/** The `<title>` of an HTML body ('' when it has none); only the head is searched. */
export function titleOf(body: Buffer): string {
  const match = /<title>([^<]*)<\/title>/i.exec(body.subarray(0, 8192).toString('utf8'));
  return match ? unescapeHtml(match[1] as string) : '';
}

export const syntheticFetcher: ActorSpec = {
  role: 'fetcher',
  create(runtime: ServiceRuntime): ActorDefinition {
    return {
      name: 'synthetic-fetcher',
      group: 'fetcher',
      topics: ['scrapeRequested'],
      concurrency: runtime.config.poolConcurrency,
      timeoutMs: 60_000,
      // The pool drops a request past its deadline before this runs.
      handlers: { ScrapeRequested: async (request, ctx) => {
        const url = new URL(request.url);
        ctx.log.info({ attempt: ctx.attempt }, 'synthetic fetch started');
        const delayMs = queryNumber(url, 'delayMs');
        if (delayMs > 0) await sleep(delayMs, ctx.signal);
        if (ctx.attempt <= queryNumber(url, 'fail')) {
          return { kind: 'retry', code: 'upstream_error', message: `synthetic failure ${ctx.attempt} of ${queryNumber(url, 'fail')}` };
        }
        const body = syntheticPage(request.url);
        const fetched: Emission<'pageFetched'> = {
          topic: 'pageFetched',
          key: request.requestId,
          headers: { [HEADERS.requestId]: request.requestId },
          value: {
            requestId: request.requestId,
            tenant: request.tenant,
            jobId: request.jobId,
            url: request.url,
            finalUrl: request.url,
            statusCode: 200,
            headers: { 'content-type': 'text/html; charset=utf-8', 'content-length': String(body.length) },
            contentType: 'text/html; charset=utf-8',
            body,
            fetchedAtMs: request.createdAtMs,
            rendered: false,
            options: request.options,
            replyTo: request.replyTo,
            correlationId: request.correlationId,
            deadlineMs: request.deadlineMs,
            credits: 0,
            source: 'fresh',
            requestedAtMs: request.createdAtMs,
            extras: '{}',
            cacheKey: request.cacheKey,
            sealedModel: request.sealedModel,
            bodySha256: sha256(body),
          },
        };
        ctx.log.info({ attempt: ctx.attempt, bytes: body.length }, 'synthetic fetch done');
        return { kind: 'ack', emit: [fetched as Emission] };
      } },
    };
  },
};

export const syntheticParser: ActorSpec = {
  role: 'parser',
  serves: ['scrape'],
  create(runtime: ServiceRuntime): ActorDefinition {
    return {
      name: 'synthetic-parser',
      group: 'parser',
      topics: ['pageFetched'],
      concurrency: runtime.config.poolConcurrency,
      timeoutMs: 60_000,
      handlers: { PageFetched: { expires: false, handle: async (page, ctx) => {
        const body = Buffer.from(page.body);
        const summary: PageSummary = { url: page.url, title: titleOf(body), bytes: body.length, sha256: sha256(body) };
        // A store failure throws store_unavailable (retriable): the pool tries again.
        await runtime.store.insert('pages', [
          pagesRow(page, { title: summary.title, document: body.toString('utf8'), contentHash: summary.sha256 }),
        ]);
        ctx.log.info({ bytes: summary.bytes }, 'synthetic page parsed');
        return {
          kind: 'ack',
          emit: replyTo(page, { ok: true, data: JSON.stringify(summary), errorCode: null, errorMessage: null, credits: 1, source: 'fresh' }),
        };
      } } },
    };
  },
};

/** The test build's actors: what `startService({actors})` and service-main.ts run. */
export const TEST_ACTORS: readonly ActorSpec[] = [syntheticFetcher, syntheticParser];
