/**
 * The intel pool's site questions: `company` (POST /v1/company), `products` (POST
 * /v1/products) and `posts` (POST /v1/posts), answered by the site readers of
 * pipeline/intel/site/ over the fetch path (site-pages.ts).
 *
 * - Each call reads within SITE_READ_BUDGET_MS (and the request's own deadline); pages within
 *   SITE_PAGE_TIMEOUT_MS each.
 * - A company the key had read within COMPANY_CACHE_HOURS is answered from the stored answer
 *   (pipeline/intel/site/company-cache.ts), free, `cached: true`; a fresh answer is stored
 *   before it is given (a store that refuses it is logged; the answer is still given).
 * - Charged one credit a page the site answered (the answer's `pagesRead`); a failed call
 *   nothing. A company whose missing details the operator's model filled (`inferred` not
 *   empty) also pays PRICES.operatorModelPage once; a model that fails or fills nothing, nothing.
 * - A site whose home page the fetch path refused (`url_blocked`: a private or local address)
 *   fails `url_blocked`, not `site_unreachable`.
 */
import { generateStructured, type ModelCallOptions, type ModelChoice } from '../../pipeline/clients/models/index.js';
import { cachedCompany, keepCompany } from '../../pipeline/intel/site/company-cache.js';
import type { CompanyModelAsk } from '../../pipeline/intel/site/company-model.js';
import { readCompany } from '../../pipeline/intel/site/company.js';
import { readPosts } from '../../pipeline/intel/site/posts.js';
import { readProducts } from '../../pipeline/intel/site/products.js';
import { siteOf } from '../../pipeline/intel/site/site.js';
import { AppError, errorCode } from '../../pipeline/runtime/errors.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import type { Requester } from '../../pipeline/runtime/request-reply.js';
import type { BatchWriter } from '../../pipeline/runtime/store/batch-writer.js';
import type { Store } from '../../pipeline/runtime/store/store.js';
import { PRICES } from '../../schemas/api/prices.js';
import { sitePages, type SitePages } from './site-pages.js';

export interface SiteDeps {
  readonly store: Pick<Store, 'query'>;
  readonly writer: Pick<BatchWriter, 'write'>;
  /** The pool's Requester, started on first use. */
  readonly requester: () => Promise<Requester>;
  /** SITE_PAGE_TIMEOUT_MS. */
  readonly pageTimeoutMs: number;
  /** SITE_READ_BUDGET_MS. */
  readonly readBudgetMs: number;
  /** COMPANY_CACHE_HOURS. */
  readonly companyCacheHours: number;
  /** The operator's model (MODEL_*), which reads the company details the pages state in words no rule knows; null: none. */
  readonly model: ModelChoice | null;
  readonly modelConfig: ModelCallOptions['config'];
}

export interface SiteQuestion {
  readonly kind: 'company' | 'products' | 'posts';
  readonly requestId: string;
  readonly tenant: string;
  readonly query: Readonly<Record<string, unknown>>;
  /** The latest the work may end (the request's deadline less the reply's margin). */
  readonly deadlineMs: number;
}

export interface SiteAnswer {
  readonly data: object;
  readonly credits: number;
}

/** A question the gateway should have refused (the event contract guarded). */
export class BadSiteQuestion extends Error {}

/** Less time than this left in the call's budget: the model is not asked. */
const MIN_MODEL_MS = 2_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** The failure a reader threw, made `url_blocked` when the fetch path refused the site's home page. */
function blockedOr(error: unknown, pages: SitePages, home: string): unknown {
  return errorCode(error) === 'site_unreachable' && pages.failureOf(home) === 'url_blocked'
    ? new AppError('url_blocked', `${home} may not be fetched: it is, or resolves to, a private or local address`, { cause: error })
    : error;
}

/** Answers one site question (see the file comment); throws AppError with the call's failure. */
export async function answerSiteQuestion(question: SiteQuestion, deps: SiteDeps, signal: AbortSignal, now: () => number, log: Logger): Promise<SiteAnswer> {
  const url = typeof question.query.url === 'string' ? question.query.url : '';
  const site = siteOf(url);
  if (!site) throw new BadSiteQuestion('the url is not a domain or an http(s) URL');
  const startedMs = now();
  const deadlineMs = Math.min(startedMs + deps.readBudgetMs, question.deadlineMs);
  const perPage = PRICES.sitePage.credits;

  if (question.kind === 'company') {
    const contacts = question.query.contacts !== false;
    const cached = await cachedCompany(deps.store, { tenant: question.tenant, domain: site.domain, contacts, windowHours: deps.companyCacheHours, nowMs: startedMs });
    if (cached) {
      log.info({ kind: 'company', domain: site.domain }, 'company answered from its stored answer');
      return { data: { ...cached.answer, cached: true, readAt: iso(cached.readAtMs) }, credits: 0 };
    }
  }
  const pages = sitePages(deps.requester, { requestId: question.requestId, tenant: question.tenant, pageTimeoutMs: deps.pageTimeoutMs, deadlineMs, now });
  const common = { read: pages.read, signal, now, deadlineMs };
  try {
    switch (question.kind) {
      case 'company': {
        const model = deps.model;
        // The model's call fits in what is left of the call's budget (the gateway waits no longer).
        const infer = model
          ? async (ask: CompanyModelAsk) => {
              const leftMs = deadlineMs - now();
              if (leftMs < MIN_MODEL_MS) throw new AppError('model_timeout', 'the call\'s time budget was spent reading the pages');
              const config = { ...deps.modelConfig, modelTimeoutMs: Math.min(deps.modelConfig.modelTimeoutMs, leftMs) };
              return (await generateStructured(model, ask, { config, signal, log })).object;
            }
          : undefined;
        const answer = await readCompany(url, { ...common, contacts: question.query.contacts !== false, ...(infer ? { infer, inferMaxChars: deps.modelConfig.modelMaxInputChars } : {}) });
        await keepCompany(deps.writer, question.tenant, answer, startedMs).catch((error: unknown) => log.warn({ err: error, domain: answer.domain }, 'company answer not stored'));
        log.info({ kind: 'company', domain: answer.domain, pages: answer.pagesRead }, 'company read');
        const modelCredits = answer.inferred.length > 0 ? PRICES.operatorModelPage.credits : 0;
        return { data: { ...answer, cached: false, readAt: iso(startedMs) }, credits: answer.pagesRead * perPage + modelCredits };
      }
      case 'products': {
        const answer = await readProducts(url, { ...common, limit: limitOf(question.query) });
        log.info({ kind: 'products', domain: answer.domain, platform: answer.platform, products: answer.products.length, pages: answer.pagesRead }, 'products listed');
        return { data: answer, credits: answer.pagesRead * perPage };
      }
      case 'posts': {
        const answer = await readPosts(url, { ...common, limit: limitOf(question.query) });
        log.info({ kind: 'posts', domain: answer.domain, platform: answer.platform, posts: answer.posts.length, pages: answer.pagesRead }, 'posts listed');
        return { data: answer, credits: answer.pagesRead * perPage };
      }
    }
  } catch (error) {
    throw blockedOr(error, pages, site.home);
  }
}

function limitOf(query: Readonly<Record<string, unknown>>): number {
  const limit = query.limit;
  return typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && limit <= 10_000 ? limit : 500;
}
