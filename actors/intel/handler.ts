/**
 * The intel pool's pure handler: one IntelRequested in, an Outcome out.
 *
 * - `domain` (POST /v1/domain): registration, DNS and backlinks (pipeline/intel/lookup.ts).
 * - `screen` (POST /v1/domain/screen): availability of up to 500 names
 *   (pipeline/intel/screen.ts), answered by the request's deadline.
 * - `report` (POST /v1/domain/report): the buyer's report (pipeline/intel/report.ts), its
 *   archived snapshots and linking pages read through the scrape path within
 *   DOMAIN_REPORT_BUDGET_MS.
 * - `snapshots` (POST /v1/domain/history/snapshots): pending snapshots loaded
 *   (pipeline/intel/snapshots.ts); no report on the domain by this key: `not_found`.
 * - `company`, `products`, `posts` (POST /v1/company, /v1/products, /v1/posts): the site
 *   readers of pipeline/intel/site/ over the fetch path (sites.ts).
 *
 * Each answer is the Reply's data with the credits it costs. A question that cannot be read
 * (the gateway validated it; this guards the event contract) is `bad_request`. The pool
 * stopping mid-way: `retry`.
 */
import { randomUUID } from 'node:crypto';
import { lookupDomain, type LookupContext } from '../../pipeline/intel/lookup.js';
import { readDomainName, type DomainName } from '../../pipeline/intel/names.js';
import type { ReadPage } from '../../pipeline/intel/pages.js';
import type { ReportDepth } from '../../pipeline/intel/records.js';
import { makeReport } from '../../pipeline/intel/report.js';
import { screenNames } from '../../pipeline/intel/screen.js';
import { loadSnapshots } from '../../pipeline/intel/snapshots.js';
import type { IntelSources, SourceLimits } from '../../pipeline/intel/sources.js';
import { serviceCode } from '../../pipeline/runtime/errors.js';
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Outcome } from '../../pipeline/runtime/pool.js';
import { replyTo } from '../../pipeline/runtime/request-reply.js';
import type { BatchWriter } from '../../pipeline/runtime/store/batch-writer.js';
import { answerSiteQuestion, BadSiteQuestion, type SiteDeps } from './sites.js';
import type { EventValue } from '../../schemas/events/index.js';

export type IntelRequested = EventValue<'IntelRequested'>;

/** Time kept between the work's end and the request's deadline, for the answer to travel. */
export const REPLY_MARGIN_MS = 1_000;

export interface IntelDeps {
  readonly sources: IntelSources;
  readonly limits: SourceLimits;
  readonly writer: Pick<BatchWriter, 'write'>;
  /** A page reader for one request (the scrape path, actors/intel/pages.ts). */
  readonly pages: (requestId: string, tenant: string) => ReadPage;
  readonly pageTimeoutMs: number;
  readonly pageConcurrency: number;
  /** DOMAIN_REPORT_BUDGET_MS. */
  readonly reportBudgetMs: number;
  /** DOMAIN_SCREEN_CONCURRENCY. */
  readonly screenConcurrency: number;
  /** What the site questions need (company, products, posts). */
  readonly site: SiteDeps;
  readonly log: Logger;
  readonly now?: () => number;
}

type Query = Record<string, unknown>;

class BadQuestion extends Error {}

function nameOf(query: Query): DomainName {
  const reading = readDomainName(typeof query.domain === 'string' ? query.domain : '');
  if (!reading.ok) throw new BadQuestion(`the domain is not one: ${reading.message}`);
  return reading.name;
}

const bool = (value: unknown, fallback: boolean): boolean => (typeof value === 'boolean' ? value : fallback);
const int = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isInteger(value) ? value : fallback);
const intOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) ? value : null);

function answer(event: IntelRequested, data: object, credits: number, log: Logger): Outcome {
  return { kind: 'ack', emit: replyTo(event, { ok: true, data: JSON.stringify(data), errorCode: null, errorMessage: null, credits, source: null }, log) };
}

async function run(event: IntelRequested, query: Query, deps: IntelDeps, signal: AbortSignal, log: Logger): Promise<Outcome> {
  const now = deps.now ?? Date.now;
  const deadlineMs = event.deadlineMs - REPLY_MARGIN_MS;
  const lookup: LookupContext = { sources: deps.sources, limits: deps.limits, now, signal };
  switch (event.kind) {
    case 'domain': {
      const options = { registration: bool(query.registration, true), dns: bool(query.dns, true), backlinks: bool(query.backlinks, true), backlinkLimit: int(query.backlinkLimit, 100) };
      const { answer: data, credits } = await lookupDomain(nameOf(query), options, lookup);
      log.info({ kind: event.kind, domain: data.domain, errors: data.errors.map((e) => e.code) }, 'domain looked up');
      return answer(event, data, credits, log);
    }
    case 'screen': {
      const domains = Array.isArray(query.domains) ? query.domains.filter((d): d is string => typeof d === 'string') : [];
      if (domains.length === 0) throw new BadQuestion('no names to screen');
      const { answer: data, credits } = await screenNames(domains, { dns: bool(query.dns, true) }, { ...lookup, concurrency: deps.screenConcurrency, deadlineMs });
      log.info({ kind: event.kind, names: domains.length, answered: data.answered }, 'names screened');
      return answer(event, data, credits, log);
    }
    case 'report': {
      const depth = (['quick', 'buyer', 'deep'] as const).find((d) => d === query.depth) ?? 'buyer';
      const request = { name: nameOf(query), depth: depth as ReportDepth, snapshots: intOrNull(query.snapshots), verifyLinks: intOrNull(query.verifyLinks) };
      const { answer: data, credits } = await makeReport(request, {
        ...lookup,
        tenant: event.tenant,
        writer: deps.writer,
        readPage: deps.pages(event.requestId, event.tenant),
        pageTimeoutMs: deps.pageTimeoutMs,
        pageConcurrency: deps.pageConcurrency,
        budgetEndMs: Math.min(now() + deps.reportBudgetMs, deadlineMs),
        newId: () => `rep_${randomUUID().replace(/-/g, '')}`,
      });
      log.info({ kind: event.kind, domain: request.name.domain, depth, credits }, 'domain reported');
      return answer(event, data, credits, log);
    }
    case 'snapshots': {
      const years = Array.isArray(query.years) ? query.years.filter((y): y is number => typeof y === 'number' && Number.isInteger(y)) : null;
      const stop = AbortSignal.any([signal, AbortSignal.timeout(Math.max(1, Math.min(deps.reportBudgetMs, deadlineMs - now())))]);
      const loaded = await loadSnapshots(
        { name: nameOf(query), years, snapshots: int(query.snapshots, 6) },
        { tenant: event.tenant, sources: deps.sources, writer: deps.writer, readPage: deps.pages(event.requestId, event.tenant), pageTimeoutMs: deps.pageTimeoutMs, pageConcurrency: deps.pageConcurrency, now, signal: stop },
      );
      if (!loaded) return { kind: 'fail', code: 'not_found', message: 'this key has no report on this domain: POST /v1/domain/report first' };
      log.info({ kind: event.kind, credits: loaded.credits }, 'snapshots loaded');
      return answer(event, loaded.answer, loaded.credits, log);
    }
    case 'company':
    case 'products':
    case 'posts': {
      const question = { kind: event.kind, requestId: event.requestId, tenant: event.tenant, query, deadlineMs } as const;
      const { data, credits } = await answerSiteQuestion(question, deps.site, signal, now, log);
      return answer(event, data, credits, log);
    }
    default:
      return { kind: 'fail', code: 'not_implemented', message: `${event.kind} is not served by this intel pool yet` };
  }
}

export async function handleIntelRequested(event: IntelRequested, deps: IntelDeps, signal: AbortSignal): Promise<Outcome> {
  const log = deps.log.child({ requestId: event.requestId });
  const query = parseJsonObject(event.query);
  if (!query) return { kind: 'fail', code: 'bad_request', message: 'the question is not a JSON object' };
  try {
    return await run(event, query, deps, signal, log);
  } catch (error) {
    if (error instanceof BadQuestion || error instanceof BadSiteQuestion) return { kind: 'fail', code: 'bad_request', message: error.message };
    if (signal.aborted) return { kind: 'retry', code: 'service_unavailable', message: 'the intel work was interrupted' };
    const code = serviceCode(error);
    const message = error instanceof Error ? error.message : String(error);
    log.warn({ code, kind: event.kind }, `intel work failed: ${message}`);
    return { kind: 'fail', code, message };
  }
}
