/**
 * The notifier's pure handler: one JobEvent in, the job's webhook called, an Outcome out.
 *
 * JobEvent types map to webhook events: `started`, `page` (a stored page), `completed`,
 * `failed`, `cancelled` (`pageFailed` and anything else send nothing). A job without a
 * webhook, or whose webhook's `events` leave the event out, sends nothing. The event is
 * named `crawl.<event>` or `batch_scrape.<event>` and the body has the Firecrawl v1 shape:
 *
 *   {success, type, id, data, metadata, error?}
 *
 * `id` is the job's id; `metadata` is the webhook's own, echoed; `data` is `[]`, except for
 * `*.page`, where it holds the page's whole document as the pages listing returns it (read
 * from `job_pages`, which the parser writes before it announces the page; should the row not
 * be readable, a summary `{metadata: {sourceURL, statusCode}}` is sent instead); `error`
 * comes with `*.failed` (`success` false).
 *
 * Delivery (signing, retries, records) is deliver.ts; its failures are recorded and logged
 * but never fail the event: a receiver that stays down must not hold the job's other events.
 * Deliveries of one job may run concurrently, so a receiver should not rely on their order
 * (a `*.page` can arrive after `*.completed`).
 */
import type { JobKind } from '../../pipeline/jobs/record.js';
import { liveJob } from '../../pipeline/jobs/record.js';
import { parseJobWebhook, wantsEvent, webhookEventName, type WebhookEvent } from '../../pipeline/jobs/webhook.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import type { State } from '../../pipeline/runtime/state/state.js';
import { JOB_PAGES_SETTLED } from '../../pipeline/runtime/store/queries.js';
import type { Store } from '../../pipeline/runtime/store/store.js';
import type { EventValue } from '../../schemas/events/index.js';
import { deliver, type DeliveryDeps } from './deliver.js';

export type JobEventValue = EventValue<'JobEvent'>;

export interface NotifierDeps extends DeliveryDeps {
  readonly state: State;
  readonly store: Pick<Store, 'query'>;
  /** The webhook signing secret of a key (pipeline/webhooks/signing.ts). */
  readonly secretFor: (keyId: string) => string;
  readonly log: Logger;
}

const TYPES: Readonly<Record<string, WebhookEvent>> = { started: 'started', page: 'page', completed: 'completed', failed: 'failed', cancelled: 'cancelled' };

function dataOf(json: string): Record<string, unknown> {
  return parseJsonObject(json) ?? {};
}

interface PageRow {
  document: string;
}

/** The stored document of a job page, or its summary when the row cannot be read. */
async function pageDocument(deps: NotifierDeps, tenant: string, jobId: string, data: Record<string, unknown>): Promise<unknown> {
  const seq = typeof data.seq === 'number' && data.seq > 0 ? data.seq : 0;
  const summary = { metadata: { sourceURL: typeof data.url === 'string' ? data.url : '', statusCode: typeof data.statusCode === 'number' ? data.statusCode : 0 } };
  if (!seq) return summary;
  const [row] = await deps.store.query<PageRow>(JOB_PAGES_SETTLED, { tenant, jobId, after: seq - 1, upTo: seq, limit: 1 });
  if (!row) return summary;
  const doc = dataOf(row.document);
  return Object.keys(doc).length ? doc : summary;
}

/** The delivery body of an event (Firecrawl v1 shape). */
export function webhookBody(kind: JobKind, event: WebhookEvent, jobId: string, data: readonly unknown[], metadata: Readonly<Record<string, unknown>>, error?: string): string {
  return JSON.stringify({
    success: event !== 'failed',
    type: webhookEventName(kind, event),
    id: jobId,
    data,
    metadata,
    ...(error !== undefined ? { error } : {}),
  });
}

export async function handleJobEvent(event: JobEventValue, deps: NotifierDeps, signal: AbortSignal): Promise<Outcome> {
  const type = TYPES[event.type];
  if (!type) return { kind: 'ack' };
  const job = await liveJob(deps.state, event.jobId);
  if (!job || job.tenant !== event.tenant || !job.webhook) return { kind: 'ack' };
  const webhook = parseJobWebhook(job.webhook);
  if (!webhook || !wantsEvent(webhook, type)) return { kind: 'ack' };
  const details = dataOf(event.data);
  const data = type === 'page' ? [await pageDocument(deps, job.tenant, job.id, details)] : [];
  const error = type === 'failed' ? (typeof details.error === 'string' && details.error ? details.error : job.error || 'the job failed') : undefined;
  const name = webhookEventName(job.kind, type);
  const id = type === 'page' ? `${job.id}:page:${typeof details.seq === 'number' ? details.seq : 0}` : `${job.id}:${type}`;
  const result = await deliver(
    deps,
    { tenant: job.tenant, jobId: job.id, id, event: name, url: webhook.url, headers: webhook.headers, body: webhookBody(job.kind, type, job.id, data, webhook.metadata, error), secret: deps.secretFor(job.tenant) },
    signal,
  );
  if (result.ok) deps.log.debug({ jobId: job.id, event: name, attempts: result.attempts }, 'webhook delivered');
  else deps.log.warn({ jobId: job.id, event: name, attempts: result.attempts, statusCode: result.statusCode, error: result.error }, 'webhook not delivered');
  return { kind: 'ack' };
}
