/**
 * Client side of the end-to-end suites: POST /v1/scrape over a real socket, and the reads of
 * what the pipeline left in the store.
 */
import type { Store } from '../../pipeline/runtime/store/store.js';

export interface ScrapeAnswer {
  status: number;
  /** The request id the gateway used (x-request-id of the answer). */
  requestId: string;
  /**
   * The JSON answer, read as the suites read it (any field): `{success: true, data}` (`data.cost`:
   * `{credits, remaining, source}`) or `{success: false, error: {code, message, retriable, requestId}}`.
   */
  body: Record<string, any>;
  /** Wall time of the round trip. */
  ms: number;
}

/** What `scrape` sends: a URL (the body `{url}`) or a whole request body. */
export type ScrapeRequest = string | ({ url: string } & Record<string, unknown>);

/** POST /v1/scrape on `base` with `key` over a real socket; aborted after `timeoutMs` (60 s). */
export async function scrape(
  base: string,
  key: string,
  request: ScrapeRequest,
  options: { requestId?: string; timeoutMs?: number } = {},
): Promise<ScrapeAnswer> {
  const began = performance.now();
  const res = await fetch(`${base}/v1/scrape`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(options.requestId ? { 'x-request-id': options.requestId } : {}),
    },
    body: JSON.stringify(typeof request === 'string' ? { url: request } : request),
    signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
  });
  const body = (await res.json()) as ScrapeAnswer['body'];
  return { status: res.status, requestId: res.headers.get('x-request-id') ?? '', body, ms: performance.now() - began };
}

/**
 * One scrape that must succeed, sent before a suite's tests: the pipeline answers end to end.
 * A consumer-group rebalance still pending after start-up (librdkafka's mock holds one for a
 * session timeout less 1 s) is absorbed here instead of by the first test. Returns its time.
 */
export async function warmUp(base: string, key: string, timeoutMs = 90_000): Promise<number> {
  const answer = await scrape(base, key, 'https://warm-up.test/', { timeoutMs });
  if (answer.status !== 200) throw new Error(`the warm-up scrape answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.ms;
}

export interface StoredPage {
  request_id: string;
  rows: number;
  title: string;
  content_hash: string;
  bytes: number;
}

/** Rows of `pages` per request id, FINAL (duplicates of one sort key collapsed) or raw. */
export async function pagesByRequest(store: Store, requestIds: readonly string[], final = true): Promise<Map<string, StoredPage>> {
  const rows = await store.query<{ request_id: string; rows: string; title: string; content_hash: string; bytes: string }>(
    `SELECT request_id, count() AS rows, any(title) AS title, any(content_hash) AS content_hash, any(length(document)) AS bytes
     FROM pages ${final ? 'FINAL' : ''}
     WHERE request_id IN {ids:Array(String)}
     GROUP BY request_id`,
    { ids: [...requestIds] },
  );
  return new Map(rows.map((r) => [r.request_id, { ...r, rows: Number(r.rows), bytes: Number(r.bytes) }]));
}
