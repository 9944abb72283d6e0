/**
 * The fetcher's cache lookup (scrape option `maxAge`; pipeline/pages/cache.ts has the key and
 * the prices). The fetcher owns it because it owns getting a page's bytes: a hit replaces the
 * HTTP fetch, and the parser reads the stored bytes exactly as it reads fetched ones.
 *
 * Order: this tenant's newest copy within the window (source `cache`, free); else, when the
 * request may use the shared index (it sent no headers of its own), any tenant's newest
 * shareable copy within the window (source `index`, 1 credit); else null, and the page is
 * fetched fresh. `maxAge: 0` (the default) never looks.
 *
 * A store that fails during the lookup does not fail the scrape: the failure is logged and
 * the page is fetched fresh (the lookup is an optimization, the fetch is the answer).
 */
import { errorCode } from '../../pipeline/runtime/errors.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import { redactUrl } from '../../pipeline/runtime/net/guard.js';
import { cachedCopy, type CachePlan, type CachedCopy, type CachedRow } from '../../pipeline/pages/cache.js';
import { CACHED_PAGE_FOR_TENANT, CACHED_PAGE_SHARED } from '../../pipeline/runtime/store/queries.js';
import type { Store } from '../../pipeline/runtime/store/store.js';
import { EARLIEST_BOUND_MS } from '../../pipeline/runtime/store/wire.js';

export type CacheReader = Pick<Store, 'query'>;

/** The newest usable copy for this request, or null (fetch fresh). Throws what the store throws. */
export async function findCachedCopy(store: CacheReader, plan: CachePlan, tenant: string, nowMs: number): Promise<CachedCopy | null> {
  if (plan.maxAgeMs <= 0) return null;
  // A window reaching back before 1970's first hours (maxAge 2e12 ms, Number.MAX_SAFE_INTEGER)
  // holds every stored copy: it starts at the earliest time the store binds, not before.
  const since = new Date(Math.max(EARLIEST_BOUND_MS, nowMs - plan.maxAgeMs));
  const own = await store.query<CachedRow>(CACHED_PAGE_FOR_TENANT, { url: plan.url, tenant, since, cacheKey: plan.key });
  if (own[0]) return cachedCopy(own[0], 'cache');
  if (!plan.shareable) return null;
  const shared = await store.query<CachedRow>(CACHED_PAGE_SHARED, { url: plan.url, since, cacheKey: plan.key });
  return shared[0] ? cachedCopy(shared[0], 'index') : null;
}

/** `findCachedCopy`, with a store failure logged and answered as a miss. */
export async function lookupCachedCopy(store: CacheReader, plan: CachePlan, tenant: string, nowMs: number, log: Logger): Promise<CachedCopy | null> {
  try {
    return await findCachedCopy(store, plan, tenant, nowMs);
  } catch (error) {
    log.warn({ url: redactUrl(plan.url), code: errorCode(error), err: error }, 'page cache lookup failed; fetching the page fresh');
    return null;
  }
}
