/**
 * POST /v1/company, /v1/products and /v1/posts through the pipeline: the gateway reads the
 * site the request names first (pipeline/intel/site/site.ts: a domain or any URL on it; a
 * URL that is neither, or not http(s), is a 422 with `detail`), then publishes an
 * IntelRequested (`company`, `products`, `posts`) and awaits the intel pool's Reply
 * (actors/intel/sites.ts), which reads the site over the fetch path.
 *
 * - The answer is the pool's data; a site that does not answer, refuses us, runs no store or
 *   offers no posts is the pool's error code (`site_unreachable`, `site_blocked`,
 *   `site_password_protected`, `no_products_found`, `no_posts_found`; docs/errors.md).
 * - Charging: one credit a page the site answered (schemas/api/prices.ts `sitePage`); the
 *   reservation is the most a call may read: COMPANY_MAX_PAGES for a company, the listing's
 *   page budget for its limit (`listingPageBudget`). A company answered from the key's stored
 *   answer costs nothing; a failed call costs nothing.
 * - The wait: the pool's read budget (SITE_READ_BUDGET_MS), one page's timeout beyond it and
 *   the pipeline's slack, within REQUEST_TIMEOUT_MS.
 */
import type { CompanyBody, ListingBody } from '../../schemas/api/intel.js';
import { PRICES } from '../../schemas/api/prices.js';
import { COMPANY_MAX_PAGES, listingPageBudget } from '../../pipeline/intel/site/limits.js';
import { siteOf } from '../../pipeline/intel/site/site.js';
import type { IntelConfig } from '../../pipeline/intel/settings.js';
import { PIPELINE_SLACK_MS, type Requester } from '../../pipeline/runtime/request-reply.js';
import type { HandlerContext, OperationHandler } from '../handler.js';
import { ValidationFailed } from '../replies.js';
import { askPipeline, replyResult } from './ask.js';

/** The limit a listing reads to when the body names none (the contract's default). */
const DEFAULT_LIMIT = 500;

export interface SiteWaits {
  readonly requestTimeoutMs: number;
  readonly config: Pick<IntelConfig, 'siteReadBudgetMs' | 'sitePageTimeoutMs'>;
}

/** Throws 422 when `url` names no site. */
export function checkSite(url: string): void {
  if (!siteOf(url)) throw new ValidationFailed([{ loc: ['body', 'url'], msg: 'must be a domain or an http(s) URL on one', type: 'url_invalid' }]);
}

/** The most a company costs: every page it may read, and the model's reading on a service with one. */
export const companyEstimate = (operatorModel = false): number => COMPANY_MAX_PAGES * PRICES.sitePage.credits + (operatorModel ? PRICES.operatorModelPage.credits : 0);

/** The most a listing of `limit` items costs: its page budget. */
export function listingEstimate(body: Pick<ListingBody, 'limit'>): number {
  return listingPageBudget(body.limit ?? DEFAULT_LIMIT) * PRICES.sitePage.credits;
}

function siteHandler(requester: Requester, waits: SiteWaits, kind: 'company' | 'products' | 'posts'): OperationHandler {
  const waitMs = Math.min(waits.requestTimeoutMs, waits.config.siteReadBudgetMs + waits.config.sitePageTimeoutMs + PIPELINE_SLACK_MS);
  return {
    async handle(ctx: HandlerContext) {
      const body = ctx.body as CompanyBody | ListingBody;
      checkSite(body.url);
      const reply = await askPipeline(requester, ctx, 'intelRequested', { kind, query: JSON.stringify(body) }, waitMs);
      return replyResult(reply);
    },
  };
}

export const companyHandler = (requester: Requester, waits: SiteWaits): OperationHandler => siteHandler(requester, waits, 'company');
export const productsHandler = (requester: Requester, waits: SiteWaits): OperationHandler => siteHandler(requester, waits, 'products');
export const postsHandler = (requester: Requester, waits: SiteWaits): OperationHandler => siteHandler(requester, waits, 'posts');
