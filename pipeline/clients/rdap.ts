/**
 * RDAP (RFC 9082/9083), the registries' JSON successor of WHOIS: `GET <base>domain/<name>` with
 * `Accept: application/rdap+json`, the base URL found through IANA's bootstrap file
 * (pipeline/clients/rdap-bootstrap.ts) or set for every TLD by RDAP_BASE_URL.
 *
 * - Bootstrap: the shipped snapshot, replaced by the file read from `bootstrapUrl`
 *   (RDAP_BOOTSTRAP_URL, IANA's by default) once a day (BOOTSTRAP_REFRESH_MS); a failed read
 *   keeps what is in use and is tried again an hour later (BOOTSTRAP_RETRY_MS). The first
 *   lookup waits for the first read (at most BOOTSTRAP_TIMEOUT_MS, within its own budget), so
 *   a configured file is used from the start; later reads run beside the lookups. With
 *   `baseUrl` (RDAP_BASE_URL) no file is read: every TLD goes to that server (tests, private
 *   registries).
 * - Reserved and private-use names (`localhost`, `test`, `onion`, `home.arpa`, `corp`, …) never
 *   reach a registry: `no_registry` `reserved_tld`. A TLD the file does not list is
 *   `no_registry` `unknown_tld`.
 * - 404 is `not_found` (the registry has no such object: not proof the name is free). A thin
 *   registry's `related` link is followed to the registrar's record and the two are merged
 *   (pipeline/clients/rdap-answer.ts); the registrar's failure leaves the registry's record as
 *   it is. That link comes from the answer: on another origin than the registry it is read
 *   through a fetcher whose guard refuses private addresses, like any page.
 * - Each registry (and registrar) host gets at most `registryConcurrency` requests at once
 *   (pipeline/clients/host-gate.ts). A 429 is a ServiceError `rate_limited` with the wait from
 *   Retry-After, and pauses that host for that wait (at most MAX_PAUSE_MS; PAUSE_DEFAULT_MS
 *   when it names none): requests to it wait for the pause or, when their budget ends first,
 *   fail `rate_limited` at once without reaching it.
 * - `ctx.timeoutMs` bounds the whole lookup, waits included (`timeout`). Answers are capped
 *   (MAX_ANSWER_BYTES: more is `unavailable`), refused when nested deeper than MAX_DEPTH
 *   (`unreadable`), and every field is checked before use.
 */
import { AppError } from '../runtime/errors.js';
import { depthOver } from '../runtime/json-limits.js';
import { NetGuard } from '../runtime/net/guard.js';
import { HttpFetcher } from '../runtime/net/http.js';
import { domainOf, mergeRecords, relatedLink, type RdapDomain } from './rdap-answer.js';
import { isDomainName, isReservedName, parseBootstrap, registryIn, shippedBootstrap, type RdapBootstrap } from './rdap-bootstrap.js';
import { GateClosed, HostGate } from './host-gate.js';
import { getJson, isServiceError, serviceFetcher, ServiceError, shownEndpoint } from './service-http.js';

export type { RdapDomain, RdapRegistrar } from './rdap-answer.js';

export const RDAP_BOOTSTRAP_URL = 'https://data.iana.org/rdap/dns.json';

export const BOOTSTRAP_REFRESH_MS = 24 * 3600_000;
export const BOOTSTRAP_RETRY_MS = 3600_000;
export const BOOTSTRAP_TIMEOUT_MS = 5_000;
export const MAX_BOOTSTRAP_BYTES = 2 * 1024 * 1024;
export const MAX_ANSWER_BYTES = 1024 * 1024;
export const MAX_DEPTH = 32;
export const MAX_PAUSE_MS = 30_000;
export const PAUSE_DEFAULT_MS = 2_000;
export const DEFAULT_REGISTRY_CONCURRENCY = 10;

const SERVICE = 'rdap';
const ACCEPT = 'application/rdap+json, application/json;q=0.9';

export interface RdapOptions {
  /** RDAP_BOOTSTRAP_URL (refresh source); null: shipped snapshot only. Default: IANA's. */
  readonly bootstrapUrl?: string | null;
  /** RDAP_BASE_URL: every TLD to this one server. */
  readonly baseUrl?: string | null;
  /** Default serviceFetcher(): the operator's endpoints may be private addresses. */
  readonly fetcher?: HttpFetcher;
  /** Injected clock (epoch ms). */
  readonly now?: () => number;
  /** Parallel requests per registry host (default 10). */
  readonly registryConcurrency?: number;
}

export type RdapLookup =
  | { readonly outcome: 'found'; readonly registry: string; readonly domain: RdapDomain }
  | { readonly outcome: 'not_found'; readonly registry: string }
  | { readonly outcome: 'no_registry'; readonly reason: 'unknown_tld' | 'reserved_tld' };

export interface RdapContext {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** The fetcher for links that come back in answers: private addresses refused, as for any page. */
let linkFetcher: HttpFetcher | null = null;
function guardedFetcher(): HttpFetcher {
  linkFetcher ??= new HttpFetcher({ guard: new NetGuard({ allowPrivate: false }), retry: { attempts: 2, baseDelayMs: 100, maxDelayMs: 500 } });
  return linkFetcher;
}

export class RdapClient {
  private readonly bootstrapUrl: URL | null;
  private readonly baseUrl: string | null;
  private readonly fetcher: HttpFetcher;
  private readonly now: () => number;
  private readonly gate: HostGate;
  private bootstrap: RdapBootstrap = shippedBootstrap();
  private refreshed = false;
  private nextRefreshAt = 0;
  private refreshing: Promise<boolean> | null = null;

  constructor(options: RdapOptions = {}) {
    const bootstrapUrl = options.bootstrapUrl === undefined ? RDAP_BOOTSTRAP_URL : options.bootstrapUrl;
    this.bootstrapUrl = bootstrapUrl ? new URL(bootstrapUrl) : null;
    this.baseUrl = options.baseUrl ? withSlash(new URL(options.baseUrl)) : null;
    this.fetcher = options.fetcher ?? serviceFetcher();
    this.now = options.now ?? Date.now;
    this.gate = new HostGate(options.registryConcurrency ?? DEFAULT_REGISTRY_CONCURRENCY, this.now);
  }

  /** The base URL chosen for `domain`'s TLD; null for a reserved name or a TLD without RDAP. */
  registryFor(domain: string): string | null {
    if (isReservedName(domain)) return null;
    return this.baseUrl ?? registryIn(this.bootstrap, domain);
  }

  /** `domain` is a registrable, lower-case, A-label name. Failures throw ServiceError('rdap', …). */
  async lookup(domain: string, ctx: RdapContext): Promise<RdapLookup> {
    if (!isDomainName(domain, 2)) throw new AppError('bad_request', `rdap: "${domain.slice(0, 300)}" is not a lower-case A-label domain name`);
    if (isReservedName(domain)) return { outcome: 'no_registry', reason: 'reserved_tld' };
    const deadline = this.now() + ctx.timeoutMs;
    if (!this.baseUrl) await this.refreshIfDue(domain, deadline);
    const registry = this.registryFor(domain);
    if (!registry) return { outcome: 'no_registry', reason: 'unknown_tld' };
    const url = new URL(`domain/${domain}`, registry);
    const answer = await this.read(url, this.fetcher, deadline, ctx.signal);
    if (answer === null) return { outcome: 'not_found', registry };
    const found = domainOf(answer, domain, url.href);
    if (!found) throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered JSON that is not a domain object`);
    return { outcome: 'found', registry, domain: await this.withRegistrar(found, answer, url, deadline, ctx.signal) };
  }

  /** Reads the bootstrap file from `bootstrapUrl`; true when it replaced the one in use. */
  refreshBootstrap(ctx: { readonly timeoutMs: number }): Promise<boolean> {
    this.refreshing ??= this.readBootstrap(ctx.timeoutMs).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async readBootstrap(timeoutMs: number): Promise<boolean> {
    if (!this.bootstrapUrl) return false;
    let parsed: RdapBootstrap | null = null;
    try {
      const answer = await getJson(SERVICE, { url: this.bootstrapUrl, timeoutMs, maxBytes: MAX_BOOTSTRAP_BYTES }, this.fetcher);
      parsed = depthOver(answer.json, MAX_DEPTH) ? null : parseBootstrap(answer.json);
    } catch {
      // Unreachable, refused, not JSON: the file in use stays.
    }
    this.nextRefreshAt = this.now() + (parsed ? BOOTSTRAP_REFRESH_MS : BOOTSTRAP_RETRY_MS);
    if (!parsed) return false;
    this.bootstrap = parsed;
    this.refreshed = true;
    return true;
  }

  /**
   * Reads the bootstrap file when it is due: waits for it until a file was read once (or when
   * the TLD is not in the one in use), else lets it run beside the lookup.
   */
  private async refreshIfDue(domain: string, deadline: number): Promise<void> {
    if (!this.bootstrapUrl || this.now() < this.nextRefreshAt) return;
    const budget = Math.min(BOOTSTRAP_TIMEOUT_MS, deadline - this.now());
    const refresh = this.refreshBootstrap({ timeoutMs: Math.max(1, budget) });
    if (!this.refreshed || registryIn(this.bootstrap, domain) === null) await refresh;
  }

  /** The registrar's record merged in, when the registry links to one and it can be read. */
  private async withRegistrar(found: RdapDomain, answer: unknown, registryUrl: URL, deadline: number, signal?: AbortSignal): Promise<RdapDomain> {
    const link = relatedLink(answer, registryUrl.href);
    if (!link) return found;
    const url = new URL(link);
    const fetcher = url.origin === registryUrl.origin ? this.fetcher : guardedFetcher();
    try {
      const theirs = await this.read(url, fetcher, deadline, signal);
      const record = theirs === null ? null : domainOf(theirs, found.ldhName, url.href);
      return record ? mergeRecords(found, record) : found;
    } catch (error) {
      if (signal?.aborted || !isServiceError(error)) throw error;
      return found;
    }
  }

  /** One RDAP GET through the host's gate: its JSON, or null for a 404. */
  private async read(url: URL, fetcher: HttpFetcher, deadline: number, signal?: AbortSignal): Promise<unknown> {
    const host = url.host;
    try {
      return await this.gate.run(host, deadline, signal, async () => {
        const timeoutMs = deadline - this.now();
        if (timeoutMs <= 0) throw new ServiceError(SERVICE, 'timeout', `no time left to ask ${shownEndpoint(url)}`);
        let answer;
        try {
          answer = await getJson(SERVICE, { url, timeoutMs, signal, maxBytes: MAX_ANSWER_BYTES, headers: { Accept: ACCEPT } }, fetcher);
        } catch (error) {
          // Paused before this slot is freed, so no waiter slips through to the host.
          if (isServiceError(error) && error.kind === 'rate_limited') this.gate.pause(host, Math.min(MAX_PAUSE_MS, error.retryAfterMs ?? PAUSE_DEFAULT_MS));
          throw error;
        }
        if (depthOver(answer.json, MAX_DEPTH)) throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered JSON nested deeper than ${MAX_DEPTH}`, null, answer.status);
        // `null` is not the 404 that says there is no record (read's null): a 200 of `null` was reported as "no record", a fact.
        if (answer.json === null || typeof answer.json !== 'object') throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered JSON that is not an object`, null, answer.status);
        return answer.json;
      });
    } catch (error) {
      if (error instanceof GateClosed) throw gateFailure(error, url);
      if (!isServiceError(error)) throw error;
      if (error.status === 404) return null;
      throw error;
    }
  }
}

function gateFailure(error: GateClosed, url: URL): ServiceError {
  return error.reason === 'paused'
    ? new ServiceError(SERVICE, 'rate_limited', `${url.host} asked us to wait (${error.waitMs} ms left), longer than this lookup may take`, error.waitMs)
    : new ServiceError(SERVICE, 'timeout', `waited for a free slot at ${url.host} until the lookup's time ran out`);
}

function withSlash(url: URL): string {
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  url.search = '';
  url.hash = '';
  return url.href;
}
