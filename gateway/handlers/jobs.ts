/**
 * Crawl and batch-scrape jobs at the gateway: start, status, pages, errors, cancel.
 *
 * Starting a job creates its record (pipeline/jobs/record.ts: live in state, versioned in the
 * store's `jobs` table, status `scraping`) and publishes a JobEvent `started`; the frontier
 * does the rest (actors/frontier/jobs). The answer is `{id, url}`, `url` being the job's
 * status path. Starting is free but needs a balance of at least one page (the operations'
 * price, gateway/wiring.ts, reserves one); each page is charged as it is stored (the frontier holds a page's credits before fetching it, and a
 * job whose balance runs out ends `failed`, keeping its pages).
 *
 * Status is `{status, total, completed, failed, creditsUsed, expiresAt, error?, data, next}`
 * with the first page of documents; pages are listed in the order the frontier scheduled
 * them, `limit` at a time, after the cursor `next` of the previous page. `next` is null once
 * the job has ended and every page was listed; while it runs, `next` is always given (more
 * may come). A listing never goes past the job's settled watermark, so it has no gaps and no
 * duplicates while the job runs. Another key's job, or a job of the other kind, is 404.
 *
 * The start URL of a crawl, and each URL of a batch, pass the SSRF guard before anything is
 * created, as a scrape's URL does: a crawl whose URL it refuses is 403 `url_blocked`; a batch
 * starts with the URLs it allows and lists the others in `invalidURLs` (Firecrawl's field),
 * 403 when it allows none. Names are resolved for this check up to START_LOOKUPS distinct
 * hosts of a batch (the rest, like every page, are checked again when fetched: a refused page
 * is a `url_blocked` error of the job); a name that does not resolve is left to the fetch too.
 *
 * A `webhook` (a URL or `{url, headers, metadata, events}`) is kept with the job's live record
 * (pipeline/jobs/webhook.ts) and delivered by the notifier actor. Its URL passes the SSRF
 * guard when the job starts (`url_blocked` 403 or `dns_failed` before anything is created,
 * the notifier checks it again at each delivery). A build without the notifier answers a job
 * with a webhook 501.
 *
 * Scrape options that need a browser (`waitFor`, `actions`, `screenshot`, `network`) send the
 * job's pages to the renderer, each charged as a browser page; a build without a renderer
 * answers them 501 before anything is created (the same check as POST /v1/scrape).
 */
import { AppError } from '../../pipeline/runtime/errors.js';
import type { NetGuard } from '../../pipeline/runtime/net/guard.js';
import type { Emission } from '../../pipeline/runtime/events.js';
import { decodeCursor, encodeCursor, jobEvent, jobKindOf, newJobId } from '../../pipeline/jobs/pages.js';
import { createJob, endJob, readJob, type JobKind, type JobRecord } from '../../pipeline/jobs/record.js';
import { jobWebhookOf } from '../../pipeline/jobs/webhook.js';
import { JOB_ERRORS, JOB_PAGES_SETTLED } from '../../pipeline/runtime/store/queries.js';
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';
import { tenantOf, type HandlerContext, type OperationHandler, type RecordDeps } from '../handler.js';
import { unservedScrapeOptions } from './scrape.js';
import { checkExtractionFormats } from './format-checks.js';

/** What the gateway needs to accept job webhooks: the SSRF check of their URL (NetGuard). */
export interface WebhookAcceptance {
  check(url: string): Promise<unknown>;
}

/** The SSRF guard's checks of a job's page URLs (NetGuard). */
export type StartGuard = Pick<NetGuard, 'check' | 'checkWithoutLookup'>;

export interface JobHandlerOptions {
  /** Checks the start URL of a crawl and each URL of a batch (none: every URL is taken as given). */
  readonly guard?: StartGuard | null;
  /** Given when this build delivers webhooks (it has the notifier); else a webhook is a 501. */
  readonly webhooks?: WebhookAcceptance | null;
  /** The build has a renderer: pages of a job whose scrape options need a browser are rendered; else they are a 501. */
  readonly render?: boolean;
  /** The build has an extractor: pages of a job may ask for the extraction formats (`json`, `summary`, `changeTracking`). */
  readonly extract?: boolean;
  /** The operator configured a model (MODEL_PROVIDER). */
  readonly operatorModel?: boolean;
}

/** Most distinct host names a batch start resolves to check its URLs; the others are checked when their pages are fetched. */
export const START_LOOKUPS = 10;
/** Names resolved at once (Node resolves on its 4 libuv threads). */
const LOOKUP_CONCURRENCY = 4;

const isBlocked = (error: unknown): error is AppError => error instanceof AppError && error.code === 'url_blocked';

/**
 * The URLs the SSRF guard refuses, each with the guard's error: every URL's scheme, local
 * name or IP literal, and the addresses of up to START_LOOKUPS distinct names. A name that does
 * not resolve is not refused here (its fetch answers `dns_failed`).
 */
async function refusedUrls(guard: StartGuard, urls: readonly string[]): Promise<Map<string, AppError>> {
  const refused = new Map<string, AppError>();
  const byHost = new Map<string, string[]>();
  for (const url of urls) {
    try {
      const { hostname, needsLookup } = guard.checkWithoutLookup(url);
      if (!needsLookup) continue;
      const same = byHost.get(hostname);
      if (same) same.push(url);
      else byHost.set(hostname, [url]);
    } catch (error) {
      if (!isBlocked(error)) throw error;
      refused.set(url, error);
    }
  }
  const hosts = [...byHost.values()].slice(0, START_LOOKUPS);
  let next = 0;
  const worker = async () => {
    while (next < hosts.length) {
      const same = hosts[next++] as string[];
      try {
        await guard.check(same[0] as string);
      } catch (error) {
        if (isBlocked(error)) for (const url of same) refused.set(url, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUP_CONCURRENCY, hosts.length) }, worker));
  return refused;
}

/** The URLs a job starts with and those the guard refused; 403 `url_blocked` when it refuses all. */
async function startUrls(guard: StartGuard | null | undefined, kind: JobKind, urls: readonly string[]): Promise<{ allowed: string[]; invalid: string[] }> {
  if (!guard) return { allowed: [...urls], invalid: [] };
  const refused = await refusedUrls(guard, urls);
  const allowed = urls.filter((u) => !refused.has(u));
  if (!allowed.length) {
    const first = refused.values().next().value as AppError;
    throw kind === 'crawl' ? first : new AppError('url_blocked', `every URL of the batch is refused: ${first.message}`, { cause: first });
  }
  return { allowed, invalid: urls.filter((u) => refused.has(u)) };
}

/** Documents in a status answer (the first page of the listing). */
export const STATUS_PAGE_SIZE = 50;
/** Errors listed at most. */
export const ERRORS_LISTED = 10_000;

const PATHS: Record<JobKind, string> = { crawl: '/v1/crawl', batch: '/v1/batch' };

async function jobOf(deps: RecordDeps, ctx: HandlerContext, kind: JobKind): Promise<JobRecord> {
  const id = ctx.params.job_id ?? '';
  const job = jobKindOf(id) === kind ? await readJob(deps, tenantOf(ctx), id) : null;
  // A job is answered until `expiresAt` (JOB_RETENTION_HOURS after it started), then it is gone.
  if (!job || job.kind !== kind || job.expiresAtMs < Date.now()) throw new AppError('not_found', `no ${kind} job ${id} for this key`);
  return job;
}

/** The webhook of a start request as stored JSON ('' for none), its URL checked by the guard. */
async function acceptWebhook(raw: unknown, options: JobHandlerOptions): Promise<string> {
  if (raw === undefined || raw === null) return '';
  if (!options.webhooks) {
    throw new AppError('not_implemented', 'this instance does not deliver job webhooks (it runs no notifier); start the job without `webhook` and poll its status');
  }
  const webhook = jobWebhookOf(raw);
  if (!webhook) throw new AppError('bad_request', '`webhook` must be a URL or an object with `url`');
  try {
    await options.webhooks.check(webhook.url);
  } catch (error) {
    if (error instanceof AppError) throw new AppError(error.code, `webhook: ${error.message}`, { cause: error });
    throw error;
  }
  return JSON.stringify(webhook);
}

/** POST /v1/crawl or /v1/batch/scrape: creates the job and hands it to the frontier. */
export function jobStartHandler(deps: RecordDeps, kind: JobKind, retentionMs: number, options: JobHandlerOptions): OperationHandler {
  return {
    async handle(ctx) {
      const { webhook, ...params } = ctx.body as { webhook?: unknown; scrapeOptions?: ScrapeOptions };
      const routing = { render: options.render ?? false, extract: options.extract ?? false, operatorModel: options.operatorModel ?? false };
      const unserved = unservedScrapeOptions(params.scrapeOptions ?? {}, routing);
      if (unserved.length) throw new AppError('not_implemented', `this instance does not serve ${unserved.join(', ')} in ${kind} jobs yet`);
      checkExtractionFormats(params.scrapeOptions?.formats, ['body', 'scrapeOptions', 'formats'], routing.operatorModel);
      const given = kind === 'crawl' ? [(params as { url: string }).url] : (params as { urls: string[] }).urls;
      const { allowed, invalid } = await startUrls(options.guard, kind, given);
      const hook = await acceptWebhook(webhook, options);
      const id = newJobId(kind);
      const tenant = tenantOf(ctx);
      const nowMs = Date.now();
      const stored = kind === 'batch' ? { ...params, urls: allowed } : params;
      await createJob(deps, { id, tenant, kind, params: JSON.stringify(stored), ...(hook ? { webhook: hook } : {}), nowMs, retentionMs });
      await deps.events.emit([jobEvent(tenant, id, 'started', {}, nowMs) as Emission]);
      // The webhook's URL, headers and metadata are not logged (they may carry credentials).
      ctx.log.info({ jobId: id, kind, webhook: hook !== '', refusedUrls: invalid.length }, 'job started');
      const url = `${PATHS[kind]}/${id}`;
      return { data: kind === 'batch' ? { id, url, invalidURLs: invalid } : { id, url }, credits: 0 };
    },
  };
}

interface PageRow {
  seq: string | number;
  document: string;
}

function documentOf(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

async function listPages(deps: RecordDeps, job: JobRecord, cursor: unknown, limit: number) {
  const after = decodeCursor(typeof cursor === 'string' ? cursor : null);
  if (after === null) throw new AppError('bad_request', 'the cursor is not one this API returned; pass the `next` of the previous page');
  const upTo = Math.min(job.watermark, Number.MAX_SAFE_INTEGER);
  const rows = upTo > after ? await deps.store.query<PageRow>(JOB_PAGES_SETTLED, { tenant: job.tenant, jobId: job.id, after, upTo, limit }) : [];
  const last = rows.length ? Number(rows[rows.length - 1]?.seq) : after;
  const ended = job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled';
  const done = ended && rows.length < limit && job.watermark >= job.scheduled;
  return { data: rows.map((r) => documentOf(r.document)), next: done ? null : encodeCursor(last) };
}

function statusOf(job: JobRecord) {
  return {
    id: job.id,
    status: job.status,
    total: job.total,
    completed: job.completed,
    failed: job.failed,
    creditsUsed: job.creditsUsed,
    expiresAt: new Date(job.expiresAtMs).toISOString(),
    ...(job.error ? { error: job.error } : {}),
  };
}

/** A job's status with the first page of its documents. */
export function jobStatusHandler(deps: RecordDeps, kind: JobKind): OperationHandler {
  return {
    async handle(ctx) {
      const job = await jobOf(deps, ctx, kind);
      return { data: { ...statusOf(job), ...(await listPages(deps, job, null, STATUS_PAGE_SIZE)) } };
    },
  };
}

/** A job's documents, cursor-paged. */
export function jobPagesHandler(deps: RecordDeps, kind: JobKind): OperationHandler {
  return {
    async handle(ctx) {
      const job = await jobOf(deps, ctx, kind);
      const limit = typeof ctx.query.limit === 'number' ? ctx.query.limit : 50;
      return { data: await listPages(deps, job, ctx.query.cursor, limit) };
    },
  };
}

interface ErrorRow {
  at_ms: string | number;
  url: string;
  code: string;
  message: string;
  status_code: string | number;
}

/** The pages a crawl could not read, with the error for each. */
export function crawlErrorsHandler(deps: RecordDeps): OperationHandler {
  return jobErrorsHandler(deps, 'crawl');
}

/** The pages a job could not read (a batch's too: gateway/firecrawl/ serves it for Firecrawl's batch errors). */
export function jobErrorsHandler(deps: RecordDeps, kind: JobKind): OperationHandler {
  return {
    async handle(ctx) {
      const job = await jobOf(deps, ctx, kind);
      const rows = await deps.store.query<ErrorRow>(JOB_ERRORS, { tenant: job.tenant, jobId: job.id, limit: ERRORS_LISTED });
      const errors = rows.map((r) => ({
        url: r.url,
        code: r.code,
        message: r.message,
        statusCode: Number(r.status_code) || null,
        at: new Date(Number(r.at_ms)).toISOString(),
      }));
      return {
        data: {
          errors: errors.filter((e) => e.code !== 'robots_disallowed'),
          robotsBlocked: errors.filter((e) => e.code === 'robots_disallowed').map((e) => e.url),
        },
      };
    },
  };
}

/** Cancels a crawl (the status it has when it had already ended). */
export function crawlCancelHandler(deps: RecordDeps): OperationHandler {
  return jobCancelHandler(deps, 'crawl');
}

/** Cancels a job (a batch too: gateway/firecrawl/ serves it for Firecrawl's batch cancel). */
export function jobCancelHandler(deps: RecordDeps, kind: JobKind): OperationHandler {
  return {
    async handle(ctx) {
      const job = await jobOf(deps, ctx, kind);
      if (await endJob(deps, job.id, 'cancelled')) {
        await deps.events.emit([jobEvent(job.tenant, job.id, 'cancelled', {}) as Emission]);
        ctx.log.info({ jobId: job.id }, 'job cancelled');
        return { data: { id: job.id, status: 'cancelled' } };
      }
      const now = await readJob(deps, job.tenant, job.id);
      return { data: { id: job.id, status: now?.status ?? job.status } };
    },
  };
}
