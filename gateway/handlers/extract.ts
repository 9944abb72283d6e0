/**
 * POST /v1/extract: JSON from 1 to 100 pages, one result per URL in input order,
 * `data.results[i] = {url, data, confidence, error, warning?, sources?}`.
 *
 * Each URL is read through the real scrape path (a ScrapeRequested per URL with the request's
 * `scrapeOptions`, its cache and rendering rules) with one format, `{type: 'json', schema,
 * template, prompt}`: the parser fills it from the page's markup and page rules, and the
 * extractor asks a model for what is left (pipeline/structured, actors/parser/page-data,
 * actors/extractor). Pages are read EXTRACT_PARALLEL at a time.
 *
 * - The model: the caller's own `model` ({provider, apiKey, name}) is sealed here (AES-256-GCM
 *   under a key derived from the server secret) and travels sealed on the events; it is used
 *   for this request only and never stored or logged. Without it, the operator's (MODEL_*).
 * - With neither `schema` nor `template`, `prompt` drives the model (no model at all: 400
 *   `model_required`, before anything is read); with none of the three, each result's `data`
 *   is the page's own structured data, `{items: [...]}` (schema.org objects).
 * - A page that fails (fetch error, timeout, unreadable), answers an HTTP error status
 *   (`upstream_error`) or yields none of the asked fields (`no_data_found`) gets
 *   `error: {code, message}` and `data: null`, and costs nothing; the request still succeeds. A caller's key
 *   the provider rejects fails the whole request 400 `model_key_rejected` (nothing charged).
 * - `confidence` (0–1) is the page's `metadata.jsonConfidence` (pipeline/structured/fill.ts
 *   `confidenceOf`: where each field came from and how much of the schema was filled).
 * - Charging: each page as the scrape it is (a fresh page 1, a browser page 5, a cached one 0),
 *   plus PRICES.operatorModelPage for each page the operator's model answered; the caller's
 *   own model costs nothing (rule 9); a URL whose result carries an `error` costs nothing.
 */
import type { ExtractBody } from '../../schemas/api/page-reading.js';
import { PAGE_TIMEOUT_MS, type ScrapeOptions } from '../../schemas/api/scrape-options.js';
import { PRICES } from '../../schemas/api/prices.js';
import type { ErrorCode } from '../../schemas/errors.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { PIPELINE_SLACK_MS, type ReplyValue, type Requester } from '../../pipeline/runtime/request-reply.js';
import { scrapeRequestFields } from '../../pipeline/pages/scrape-request.js';
import { sealSecret } from '../../pipeline/runtime/seal.js';
import { serverWebhookSecret } from '../../pipeline/webhooks/secret.js';
import type { HandlerContext, OperationHandler } from '../handler.js';
import { ValidationFailed } from '../replies.js';
import type { Config } from '../../pipeline/service/config.js';
import { readPages } from './pages.js';
import { jsonTargetProblems, MODEL_REQUIRED_MESSAGE, promptOnly } from './format-checks.js';
import { scrapeEstimate, unservedScrapeOptions, type ScrapeRouting } from './scrape.js';

/** Pages read at once for one request. */
export const EXTRACT_PARALLEL = 10;

export interface ExtractResult {
  readonly url: string;
  readonly data: Record<string, unknown> | null;
  readonly confidence: number;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly warning?: string;
  readonly sources?: Record<string, string>;
}

/** Most an extract can cost: every page at its scrape price, plus the operator model's per page when it may be called. */
export function extractEstimate(body: ExtractBody, operatorModel: boolean): number {
  const options = (body.scrapeOptions ?? {}) as Omit<ScrapeOptions, 'formats'>;
  const model = operatorModel && !body.model ? PRICES.operatorModelPage.credits : PRICES.callerModelPage.credits;
  return body.urls.length * (scrapeEstimate(options) + model);
}

/** The scrape options each URL is read with: the caller's, with the one `json` format. */
function pageOptions(body: ExtractBody): ScrapeOptions {
  const json = { type: 'json' as const, schema: body.schema ?? null, template: body.template ?? null, prompt: body.prompt ?? null };
  return { ...(body.scrapeOptions ?? {}), formats: [json] };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The fields of a page's answer that hold something. */
function filledCount(json: Record<string, unknown>): number {
  return Object.values(json).filter((v) => v !== null && v !== undefined && !(Array.isArray(v) && v.length === 0) && v !== '').length;
}

/** One URL's result from the page's Reply. */
export function resultOf(url: string, reply: ReplyValue): { result: ExtractResult; credits: number } {
  if (!reply.ok) {
    const code = reply.errorCode ?? 'upstream_error';
    return { result: { url, data: null, confidence: 0, error: { code, message: reply.errorMessage ?? 'the page could not be read' } }, credits: 0 };
  }
  const document = reply.data ? (JSON.parse(reply.data) as Record<string, unknown>) : {};
  const json = isObject(document.json) ? document.json : {};
  const metadata = isObject(document.metadata) ? document.metadata : {};
  const warning = typeof document.warning === 'string' ? { warning: document.warning } : {};
  const sources = isObject(metadata.jsonSources) ? { sources: metadata.jsonSources as Record<string, string> } : {};
  const status = typeof metadata.statusCode === 'number' ? metadata.statusCode : 200;
  if (status >= 400) {
    const error = { code: 'upstream_error', message: `the page answered HTTP ${status}` };
    return { result: { url, data: null, confidence: 0, error }, credits: 0 };
  }
  const items = Array.isArray(json.items) ? json.items : null;
  const empty = items ? items.length === 0 && filledCount(json) <= 1 : filledCount(json) === 0;
  if (empty) {
    const error = { code: 'no_data_found', message: 'the page was read, but none of the asked fields were found on it' };
    return { result: { url, data: null, confidence: 0, error, ...warning }, credits: 0 };
  }
  const confidence = typeof metadata.jsonConfidence === 'number' ? metadata.jsonConfidence : 0;
  return { result: { url, data: json, confidence, error: null, ...warning, ...sources }, credits: reply.credits };
}

function checkBody(body: ExtractBody, routing: ScrapeRouting): void {
  const unserved = unservedScrapeOptions(pageOptions(body), routing);
  if (unserved.length) throw new AppError('not_implemented', `this instance does not serve ${unserved.join(', ')} yet`);
  const problems = jsonTargetProblems(body, ['body']);
  if (problems.length) throw new ValidationFailed(problems);
  if (promptOnly(body) && !body.model && !routing.operatorModel) {
    throw new AppError('model_required', `${MODEL_REQUIRED_MESSAGE}, and the request brought none (\`model\`)`);
  }
}

const REJECTED: ErrorCode = 'model_key_rejected';

export function extractHandler(deps: { readonly requester: Requester; readonly config: Config }, routing: ScrapeRouting): OperationHandler {
  // The server secret callers' keys are sealed with: read (or generated) once.
  const serverSecret = serverWebhookSecret(deps.config);
  return {
    async handle(ctx: HandlerContext) {
      const body = ctx.body as ExtractBody;
      checkBody(body, routing);
      const options = pageOptions(body);
      const fields = scrapeRequestFields(options, body.model ? sealSecret(serverSecret, JSON.stringify(body.model)) : '');
      const pageTimeout = options.timeout ?? PAGE_TIMEOUT_MS.default;
      // Queueing behind EXTRACT_PARALLEL lanes, then the page, then a model's call and its retries.
      const timeoutMs = Math.min(deps.config.requestTimeoutMs, pageTimeout + PIPELINE_SLACK_MS + deps.config.modelTimeoutMs * 2);
      const replies = await readPages(deps.requester, ctx, body.urls, fields, EXTRACT_PARALLEL, timeoutMs);
      const pages = replies.map((reply, i) => resultOf(body.urls[i] as string, reply));
      const rejected = pages.find((p) => p.result.error?.code === REJECTED);
      if (rejected) throw new AppError(REJECTED, rejected.result.error?.message ?? 'the model provider rejected the key');
      const credits = pages.reduce((sum, p) => sum + p.credits, 0);
      ctx.log.info({ urls: body.urls.length, failed: pages.filter((p) => p.result.error).length, ownModel: Boolean(body.model) }, 'extract answered');
      return { data: { results: pages.map((p) => p.result) }, credits };
    },
  };
}
