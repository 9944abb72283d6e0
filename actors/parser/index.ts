/**
 * The parser actor: reads PageFetched, builds the scrape document (actors/parser/document),
 * stores the page copy in the `pages` table through the runtime's batch writer, and answers
 * the request's reply topic with the document. A page the parser cannot read (unsupported
 * content, a broken PDF) is answered with its error code; store outages are retried. It also
 * reads ParseRequested (POST /v1/parse) and answers the uploaded file's document (parse.ts).
 * A page of a crawl or batch job (a `jobId`, no reply topic) is also stored in `job_pages`
 * and reported to the frontier as a JobEvent `page` (or `pageFailed`): pipeline/jobs/job-page.ts.
 *
 * The page cache (pipeline/pages/cache.ts): a freshly fetched page is written with its raw
 * body, response headers, cache key and shareable flag, so the fetcher can serve it again
 * to a later request with `maxAge`, read with that request's options. With
 * `storeInCache: false` no `pages` row is written at all: the caller asked that the
 * response not be kept, and a row without its body would serve nobody. A page that came
 * from the cache or the index is not written again (its copy is already there). The Reply's
 * `source` is the page's (fresh, cache or index), and its credits are the page's. A stored
 * copy of an HTML or text page also goes into the local search index (search_docs and
 * search_postings, pipeline/search/index/page.ts), queued beside `pages` in the writer's lazy
 * batches, which the reply does not wait for. A stored HTML page that could be shared (no
 * headers of the caller's own) with a status below 400 also gives its links to other domains
 * to the link graph (pipeline/intel/links.ts), queued the same way; a page without such links
 * writes nothing there.
 *
 * Documents are read in the actor's document pool (document/pool.ts: worker threads within
 * the DOCUMENT_* limits): every upload, every fetched PDF or DOCX, and every HTML or text page
 * over 2 MiB or 40,000 tags (document/build.ts `readsOffThread`), with its extraction's reading of the page.
 * Smaller HTML and text pages are read on this thread, as the crawl's hot path always was.
 */
import { createHash } from 'node:crypto';
import type { ScrapeOptions } from '../../schemas/api/scrape-options.js';
import type { EventValue } from '../../schemas/events/index.js';
import { ERRORS } from '../../schemas/errors.js';
import { serviceCode } from '../../pipeline/runtime/errors.js';
import type { ActorDefinition, EventHandling, Outcome } from '../../pipeline/runtime/pool.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import { replyTo } from '../../pipeline/runtime/request-reply.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';
import { cacheColumns, cachePlan, isPageSource, isShareableRequest } from '../../pipeline/pages/cache.js';
import { decodeScrapeOptions, defaultScrapeOptions } from '../../pipeline/pages/options.js';
import { buildDocument, DocumentPool, type DocumentReader, type ScrapeDocument } from './document/index.js';
import { handleParseRequested } from './parse.js';
import { extractFromPage, type ExtractionOutcome, type PageReading } from './page-data/index.js';
import { extractionPlan, type ExtractionPlan } from '../../pipeline/structured/plan.js';
import { finishPage } from '../../pipeline/structured/finish.js';
import { encodeTask, type ExtractTask, type FinishPlan } from '../../pipeline/structured/task.js';
import type { Emission } from '../../pipeline/runtime/events.js';
import { HEADERS } from '../../schemas/topics.js';
import { JOB_PAGE_COPY_DELAY_MS, JOB_PAGE_COPY_MAX_QUEUED, storeJobPage } from '../../pipeline/jobs/job-page.js';
import { queueWrite } from '../../pipeline/runtime/store/batch-writer.js';
import { jobPageFailed } from '../../pipeline/jobs/pages.js';
import { writeSearchRows } from '../../pipeline/search/index/index.js';
import { linkEdgesOf, queueLinkEdges } from '../../pipeline/intel/links.js';

export { handleParseRequested, type ParseRequested } from './parse.js';

type PageFetched = EventValue<'PageFetched'>;

/** A job page's `pages` copy: queued, not waited for (pipeline/jobs/job-page.ts). */
const JOB_PAGE_COPY = { maxDelayMs: JOB_PAGE_COPY_DELAY_MS, maxPendingRows: JOB_PAGE_COPY_MAX_QUEUED };


/**
 * The `pages` row of a fetched page (infra/clickhouse/0001_init.sql, 0002_page_cache.sql),
 * filed under its normalized URL and cache key. `fetched_at` is the time the request was
 * made (`requestedAtMs`), the same on every attempt: a page fetched again after a crash
 * gives the same sort key (url_hash, tenant, fetched_at, request_id) and collapses into one
 * row instead of adding a second. It is at most one request's duration before the response
 * arrived, so a copy looks slightly older to `maxAge`, never younger. Pages written as v1
 * (no requestedAtMs) fall back to their fetchedAtMs. The cache key is the one the event
 * carries (worked out by the request's producer), or for a page written before PageFetched
 * carried it, worked out from the options (the caller's decoded ones, else the event's).
 */
export function pagesRow(
  page: PageFetched,
  parsed: { title: string; document: string; contentHash: string },
  options: ScrapeOptions = decodeScrapeOptions(page.options) ?? defaultScrapeOptions(),
): Record<string, unknown> {
  const plan = cachePlan(page.url, options, page.cacheKey);
  return {
    tenant: page.tenant,
    fetched_at: page.requestedAtMs > 0 ? page.requestedAtMs : page.fetchedAtMs,
    request_id: page.requestId,
    job_id: page.jobId ?? '',
    status_code: page.statusCode,
    content_type: page.contentType,
    final_url: page.finalUrl,
    title: parsed.title,
    document: parsed.document,
    content_hash: parsed.contentHash,
    ...cacheColumns(plan, page),
  };
}

/** What the parser needs of the runtime: the batch writer, and for extraction the store and the config. */
export type ParserRuntime = Pick<ServiceRuntime, 'writer' | 'store' | 'config'> & Partial<Pick<ServiceRuntime, 'log'>>;

/**
 * A fetched page → its answer. `documents` reads PDF and DOCX pages (the actor's document
 * pool; default: this thread), given up with `signal`.
 */
export async function handlePageFetched(page: PageFetched, runtime: ParserRuntime, documents?: DocumentReader, signal?: AbortSignal): Promise<Outcome> {
  const options = decodeScrapeOptions(page.options) ?? defaultScrapeOptions();
  const source = isPageSource(page.source) ? page.source : 'fresh';
  const plan = extractionPlan(options.formats);
  const stored = source === 'fresh' && options.storeInCache;
  // A stored, shareable, successful page feeds the link graph with its cross-domain links.
  const feedsGraph = stored && page.statusCode < 400 && isShareableRequest(options);
  let document: ScrapeDocument;
  // A crawl follows the page's links, the link graph reads them: from the parse the document is built from.
  let links: string[] = [];
  // Extraction reads the page itself while it is loaded, before anything is removed.
  let reading: PageReading | null = null;
  try {
    document = await buildDocument(
      {
        bytes: Buffer.from(page.body),
        contentType: page.contentType,
        url: page.url,
        finalUrl: page.finalUrl,
        statusCode: page.statusCode,
        headers: page.headers,
      },
      plan ? withMarkdown(options) : options,
      {
        ...(page.jobId || feedsGraph ? { pageLinks: (found: string[]) => (links = found) } : {}),
        ...(plan?.json ? { extraction: { plan, found: (found: PageReading) => (reading = found) } } : {}),
      },
      documents,
      signal,
    );
  } catch (error) {
    const known = serviceCode(error);
    if (ERRORS[known].retriable) return { kind: 'retry', code: known, message: (error as Error).message };
    return { kind: 'fail', code: known, message: error instanceof Error ? error.message : String(error) };
  }
  const json = JSON.stringify(document);
  const title = typeof document.metadata.title === 'string' ? document.metadata.title : '';
  // The body's hash, taken once by the reader that produced the page (pages written before
  // PageFetched carried it are hashed here): the content_hash of both stored copies.
  const contentHash = page.bodySha256 || createHash('sha256').update(page.body).digest('hex');
  // The page copy and, for a job's page, its job_pages row are written at once (two tables,
  // two batches: neither waits for the other's); the event is acked after both landed, except
  // a job page's copy, which is queued (pipeline/jobs/job-page.ts JOB_PAGE_COPY_DELAY_MS): the
  // job page is acked when its job_pages row landed. The search index rows and the link graph's
  // edges are always queued. A store failure throws store_unavailable (retriable): the pool
  // tries the page again, and a row that landed before collapses with its second copy.
  const copied = stored
    ? Promise.all([
        page.jobId
          ? queueWrite(runtime.writer, 'pages', [pagesRow(page, { title, document: json, contentHash }, options)], JOB_PAGE_COPY, (error) =>
              runtime.log?.warn({ url: page.url, jobId: page.jobId, err: error }, 'job page cache copy not stored'),
            )
          : runtime.writer.write('pages', [pagesRow(page, { title, document: json, contentHash }, options)]),
        writeSearchRows(runtime.writer, page, document, options, (error) => runtime.log?.warn({ url: page.url, err: error }, 'search index rows not stored')),
        feedsGraph && links.length > 0
          ? queueLinkEdges(runtime.writer, linkEdgesOf(page.finalUrl || page.url, links, page.requestedAtMs || page.fetchedAtMs), (error) =>
              runtime.log?.warn({ url: page.url, err: error }, 'link graph edges not stored'),
            )
          : undefined,
      ])
    : Promise.resolve();
  const extras = extrasOf(page.extras);
  if (plan) {
    await copied;
    const answer: Record<string, unknown> = extras ? { ...document, ...extras } : { ...document };
    return finishExtraction(page, plan, answer, reading, { title, contentHash, links, source, requested: requestedFormats(options) }, runtime);
  }
  const data = extras ? JSON.stringify({ ...document, ...extras }) : json;
  // A page of a crawl or batch job (pipeline/jobs/job-page.ts): stored in job_pages, reported to the frontier.
  const [, job] = await Promise.all([copied, storeJobPage(page, { title, documentJson: data, contentHash, links }, runtime.writer)]);
  return { kind: 'ack', emit: [...replyTo(page, { ok: true, data, errorCode: null, errorMessage: null, credits: page.credits, source }), ...job] };
}

/** The options with `markdown` among the formats: summaries, models and change tracking read it. */
function withMarkdown(options: ScrapeOptions): ScrapeOptions {
  const formats = options.formats ?? ['markdown'];
  return formats.includes('markdown') ? options : { ...options, formats: [...formats, 'markdown'] };
}

function requestedFormats(options: ScrapeOptions): ReadonlySet<string> {
  return new Set((options.formats ?? ['markdown']).map((f) => (typeof f === 'string' ? f : f.type)));
}

interface PageRead {
  readonly title: string;
  readonly contentHash: string;
  readonly links: readonly string[];
  readonly source: string;
  readonly requested: ReadonlySet<string>;
}

/**
 * A page whose formats ask for extraction (actors/parser/page-data): what markup and page rules
 * answer is written into the answer; what is left for a model goes to the extractor pool
 * (ExtractRequested), which finishes the page; otherwise the page is finished here
 * (pipeline/structured/finish.ts: change tracking, the reply, the job page).
 */
async function finishExtraction(
  page: PageFetched,
  plan: ExtractionPlan,
  answer: Record<string, unknown>,
  reading: PageReading | null,
  read: PageRead,
  runtime: ParserRuntime,
): Promise<Outcome> {
  const finish: FinishPlan = { changeTracking: plan.changeTracking, scrapedAtMs: page.requestedAtMs || page.fetchedAtMs, dropMarkdown: !read.requested.has('markdown') };
  const modelAvailable = page.sealedModel !== '' || runtime.config.modelProvider !== null;
  let outcome: ExtractionOutcome;
  try {
    outcome = extractFromPage(plan, answer, reading, { modelAvailable, finish });
  } catch (error) {
    return { kind: 'fail', code: serviceCode(error), message: error instanceof Error ? error.message : String(error) };
  }
  const facts = { ...page, source: read.source };
  if (!outcome.task) {
    const emit = await finishPage({ page: facts, document: answer, warnings: outcome.warnings, plan: finish, title: read.title, contentHash: read.contentHash, links: read.links }, runtime);
    return { kind: 'ack', emit };
  }
  return { kind: 'ack', emit: [extractRequested(page, answer, outcome, read)] };
}

/** The extractor's event for a page a model is to finish. */
function extractRequested(page: PageFetched, answer: Record<string, unknown>, outcome: ExtractionOutcome, read: PageRead): Emission {
  const text = typeof answer.markdown === 'string' ? answer.markdown : '';
  const task = outcome.task as ExtractTask;
  const value: EventValue<'ExtractRequested'> = {
    requestId: page.requestId,
    tenant: page.tenant,
    jobId: page.jobId,
    url: page.url,
    finalUrl: page.finalUrl,
    statusCode: page.statusCode,
    contentType: page.contentType,
    replyTo: page.replyTo,
    correlationId: page.correlationId,
    deadlineMs: page.deadlineMs,
    createdAtMs: Date.now(),
    credits: page.credits,
    source: read.source,
    document: JSON.stringify({ ...answer, ...(outcome.warnings.length ? { warning: [...(typeof answer.warning === 'string' && answer.warning ? [answer.warning] : []), ...outcome.warnings].join('; ') } : {}) }),
    task: encodeTask(task),
    text,
    title: read.title,
    contentHash: read.contentHash,
    links: [...read.links],
    sealedModel: page.sealedModel,
  };
  const emission: Emission<'extractRequested'> = { topic: 'extractRequested', key: page.requestId, headers: { [HEADERS.requestId]: page.requestId }, value };
  return emission as Emission;
}

/**
 * What a browser render returned besides the DOM (PageFetched v3 `extras`: `screenshot`,
 * `actions`, `network`, `captcha`), merged into the answered document; the stored copy keeps
 * the document alone. Null when there is nothing (every page fetched over HTTP).
 */
function extrasOf(json: string): Record<string, unknown> | null {
  return !json || json === '{}' ? null : parseJsonObject(json);
}

/**
 * PageFetched as the pool runs it (pipeline/runtime/pool.ts): a page the parser cannot read is
 * answered with its code (the Reply's `source` null: the answer is no page) and, for a job's
 * page, reported to the frontier with the page's status. A page is read even past its
 * deadline: it was fetched, and its copy is worth keeping.
 */
export function pageFetchedHandling(runtime: ParserRuntime, documents?: DocumentReader): EventHandling<'PageFetched'> {
  return {
    handle: (page, ctx) => handlePageFetched(page, runtime, documents, ctx.signal),
    failed: (page, code, message) => jobPageFailed(page, code, message, page.statusCode),
    replySource: null,
    expires: false,
  };
}

export function createParserActor(runtime: ServiceRuntime): ActorDefinition {
  const documents = new DocumentPool(runtime.config, runtime.log.child({ actor: 'parser' }));
  return {
    name: 'parser',
    group: 'parser',
    topics: ['pageFetched', 'parseRequested'],
    concurrency: runtime.config.poolConcurrency,
    timeoutMs: 120_000,
    handlers: {
      PageFetched: pageFetchedHandling(runtime, documents),
      ParseRequested: (event, ctx) => handleParseRequested(event, { log: ctx.log, documents, signal: ctx.signal }),
    },
    close: () => documents.close(),
  };
}
