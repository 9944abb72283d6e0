/**
 * Delivering one webhook event: sign, POST, retry, record.
 *
 * - Each attempt is signed afresh (`X-WDS-Signature: t=…,v1=…` over `<t>.<body>`, the body
 *   byte for byte the same every attempt: pipeline/webhooks/signing.ts) and carries the
 *   caller's `headers` (which cannot replace the service's own: content type, signature,
 *   event and delivery id, and Firecrawl's `X-Firecrawl-Signature: sha256=<hex>` over the body
 *   alone, for receivers written for Firecrawl; those the rules of pipeline/webhooks/headers.ts refuse, such as
 *   Host or a value with a line break, are dropped: the gateway refuses them already).
 * - The URL passes the SSRF guard before every attempt (and the agents check the address at
 *   connect time); a refused URL is not retried.
 * - Retried (pipeline/runtime/retry.ts, `attempts` in all, backoff doubling from `baseDelayMs`, each
 *   delay between half and all of its ceiling): timeouts, connection errors, 408, 429 and 5xx.
 *   A 2xx is delivered; any other answer (3xx, other 4xx) is final.
 * - Every attempt is a `webhook_deliveries` row: tenant, source_id (the job), id (the
 *   delivery: job, event and page, so a redelivered event writes the same rows), attempt, at,
 *   event, url (the receiver's origin only, `scheme://host[:port]`: its path and query often
 *   hold a secret, and a monitor's or watch's URL is kept sealed), status_code, ok, error,
 *   duration_ms.
 * The secret and the caller's headers are never logged or recorded.
 */
import { AppError } from '../../pipeline/runtime/errors.js';
import type { GuardedAgents } from '../../pipeline/runtime/net/agents.js';
import { redactUrl, type NetGuard } from '../../pipeline/runtime/net/guard.js';
import { deliverableHeaders } from '../../pipeline/webhooks/headers.js';
import { retry, RetriesExhausted } from '../../pipeline/runtime/retry.js';
import type { BatchWriter } from '../../pipeline/runtime/store/batch-writer.js';
import { FIRECRAWL_SIGNATURE_HEADER, firecrawlSignatureHeader, SIGNATURE_HEADER, signatureHeader } from '../../pipeline/webhooks/signing.js';
import { postJson, type PostResult } from './post.js';

export interface RetryPolicy {
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly timeoutMs: number;
}

export interface DeliveryDeps {
  readonly guard: Pick<NetGuard, 'check'>;
  readonly agents: GuardedAgents;
  readonly writer: Pick<BatchWriter, 'write'>;
  readonly policy: RetryPolicy;
  /** Test hook: the sleep between attempts. */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface Delivery {
  readonly tenant: string;
  readonly jobId: string;
  /** Stable id of this delivery (the same for a redelivered event). */
  readonly id: string;
  /** `crawl.page`, … */
  readonly event: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The key's signing secret. */
  readonly secret: string;
}

export interface DeliveryResult {
  readonly ok: boolean;
  readonly attempts: number;
  readonly statusCode: number;
  readonly error: string;
}

/** `scheme://host[:port]` of a URL: what a delivery's record and messages show of the receiver. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(unparseable URL)';
  }
}

/** Whether an attempt's outcome is worth another: no answer, 408, 429 or 5xx. */
export function retriableAnswer(result: Pick<PostResult, 'statusCode'>): boolean {
  const s = result.statusCode;
  return s === 0 || s === 408 || s === 429 || s >= 500;
}

class AttemptFailed extends Error {
  constructor(readonly result: PostResult, readonly retriable: boolean) {
    super(result.error || `the receiver answered ${result.statusCode}`);
  }
}

/** The delay ceiling's upper half: jittered, never near zero. */
const halfJitter = () => 0.5 + Math.random() / 2;

export async function deliver(deps: DeliveryDeps, delivery: Delivery, signal?: AbortSignal): Promise<DeliveryResult> {
  // What records and logs show of the URL: its origin (user info, path and query may hold a token).
  const shownUrl = originOf(delivery.url);
  const headers = deliverableHeaders(delivery.headers);
  let attempts = 0;
  let last: PostResult = { statusCode: 0, error: '', timedOut: false };
  const attempt = async (n: number): Promise<PostResult> => {
    attempts = n;
    const started = Date.now();
    let result: PostResult;
    let retriable: boolean;
    try {
      const { url } = await deps.guard.check(delivery.url);
      result = await postJson(deps.agents, {
        url,
        body: delivery.body,
        timeoutMs: deps.policy.timeoutMs,
        ...(signal ? { signal } : {}),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'user-agent': 'web-data-service-webhooks/1',
          'x-wds-event': delivery.event,
          'x-wds-delivery': delivery.id,
          [SIGNATURE_HEADER]: signatureHeader(delivery.secret, delivery.body),
          [FIRECRAWL_SIGNATURE_HEADER]: firecrawlSignatureHeader(delivery.secret, delivery.body),
        },
      });
      retriable = retriableAnswer(result) && !signal?.aborted;
    } catch (error) {
      // The guard refused the URL (url_blocked) or its name does not resolve (dns_failed).
      const code = error instanceof AppError ? error.code : 'internal_error';
      const message = (error as Error).message.split(redactUrl(delivery.url)).join(shownUrl);
      result = { statusCode: 0, error: `${code}: ${message}`, timedOut: false };
      retriable = false;
    }
    last = result;
    const ok = result.statusCode >= 200 && result.statusCode < 300;
    await deps.writer.write('webhook_deliveries', [
      {
        tenant: delivery.tenant,
        source_id: delivery.jobId,
        id: delivery.id,
        attempt: n,
        at: started,
        event: delivery.event,
        url: shownUrl,
        status_code: result.statusCode,
        ok: ok ? 1 : 0,
        error: ok ? '' : result.error || `the receiver answered ${result.statusCode}`,
        duration_ms: Date.now() - started,
      },
    ]);
    if (!ok) throw new AttemptFailed(result, retriable);
    return result;
  };
  try {
    const result = await retry(attempt, {
      attempts: deps.policy.attempts,
      baseDelayMs: deps.policy.baseDelayMs,
      maxDelayMs: deps.policy.maxDelayMs,
      random: halfJitter,
      retriable: (error) => error instanceof AttemptFailed && error.retriable,
      ...(deps.sleep ? { sleep: deps.sleep } : {}),
      ...(signal ? { signal } : {}),
    });
    return { ok: true, attempts, statusCode: result.statusCode, error: '' };
  } catch (error) {
    if (!(error instanceof AttemptFailed) && !(error instanceof RetriesExhausted)) {
      // The sleep between attempts was aborted (the pool stops): the last attempt stands.
      if (!signal?.aborted) throw error;
    }
    return { ok: false, attempts, statusCode: last.statusCode, error: last.error || `the receiver answered ${last.statusCode}` };
  }
}
