/**
 * The providers asked in order (SEARCH_PROVIDERS): the first that answers serves the search;
 * a provider that fails is recorded and the next is asked.
 *
 * - A failure is anything but an answer: a timeout, a 429, a 5xx, refused credentials, an
 *   answer the client cannot read (pipeline/clients/service-http.ts ServiceError kinds), or
 *   the local index's store failing. An empty list of results is an answer, not a failure.
 * - Each provider gets SEARCH_TIMEOUT_MS, never more than what is left before the request's
 *   deadline; a provider with less than MIN_PROVIDER_MS left is not started.
 * - When none answers, the search fails, never with an empty success:
 *   `provider_rate_limited` (429, with the shortest wait a provider asked for) when every
 *   provider tried was rate limited, `provider_failed` (502) otherwise; the message names
 *   each provider and why it failed.
 */
import { AppError, errorCode } from '../runtime/errors.js';
import { isServiceError, type ServiceFailure } from '../clients/service-http.js';
import type { ProviderName, SearchProvider, SearchQuery, SerpPage } from '../clients/web-search.js';

/** Less than this left before the deadline: the next provider is not started. */
export const MIN_PROVIDER_MS = 250;

export interface FailedProvider {
  /** The provider's name (`searxng`, …), or the service's for places (`nominatim`, `overpass`). */
  readonly provider: string;
  readonly kind: ServiceFailure;
  readonly message: string;
  readonly retryAfterMs: number | null;
}

export interface Served {
  readonly page: SerpPage;
  /** The providers asked before the one that answered, and why each failed. */
  readonly failed: readonly FailedProvider[];
}

export interface AskContext {
  readonly tenant: string;
  /** Epoch ms by which an answer must be ready. */
  readonly deadlineMs: number;
  /** SEARCH_TIMEOUT_MS: the most one provider may take. */
  readonly perProviderMs: number;
  readonly signal: AbortSignal;
  readonly now?: () => number;
}

/** The search failed everywhere: `retryAfterMs` is set for `provider_rate_limited`. */
export class ProvidersFailed extends AppError {
  constructor(
    readonly failed: readonly FailedProvider[],
    readonly retryAfterMs: number | null,
  ) {
    const rateLimited = failed.length > 0 && failed.every((f) => f.kind === 'rate_limited');
    const detail = failed.length ? failed.map((f) => `${f.provider}: ${f.kind} (${f.message})`).join('; ') : 'no provider could be asked before the deadline';
    super(rateLimited ? 'provider_rate_limited' : 'provider_failed', `no search provider answered: ${detail}`, retryAfterMs !== null && rateLimited ? { headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) } } : {});
  }
}

function failureOf(provider: ProviderName, error: unknown): FailedProvider {
  if (isServiceError(error)) return { provider, kind: error.kind, message: error.message, retryAfterMs: error.retryAfterMs };
  // The local index: its store did not answer (store_unavailable) or refused the statement.
  const message = error instanceof Error ? error.message : String(error);
  return { provider, kind: 'unavailable', message: `${errorCode(error) ?? 'error'}: ${message}`, retryAfterMs: null };
}

/** The first provider's answer, in order; ProvidersFailed when none answers. */
export async function askInOrder(providers: readonly SearchProvider[], query: SearchQuery, ctx: AskContext): Promise<Served> {
  const now = ctx.now ?? Date.now;
  const failed: FailedProvider[] = [];
  for (const provider of providers) {
    const left = ctx.deadlineMs - now();
    if (left < MIN_PROVIDER_MS || ctx.signal.aborted) break;
    try {
      const page = await provider.search(query, { tenant: ctx.tenant, timeoutMs: Math.min(ctx.perProviderMs, left), signal: ctx.signal });
      return { page, failed };
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      failed.push(failureOf(provider.name, error));
    }
  }
  const waits = failed.map((f) => f.retryAfterMs).filter((w): w is number => w !== null);
  throw new ProvidersFailed(failed, waits.length ? Math.min(...waits) : null);
}
