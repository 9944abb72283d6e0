/**
 * DNS through Node's resolver (`dns.promises.Resolver`, c-ares): the servers are DNS_SERVERS
 * (`host:port` entries, IPv6 as `[::1]:53`; the system's when none), each query tried `tries`
 * times with `timeoutMs` for the first try (c-ares doubles it for each further round). The
 * packets are c-ares's; nothing here builds one.
 *
 * - `lookup` asks every type at once, on a resolver of its own (so an abort cancels its
 *   queries only). NXDOMAIN (`ENOTFOUND`) for any type is `nxdomain` (whatever the others
 *   did); otherwise the first failure is thrown; a type with no data
 *   (`ENODATA`, NOERROR without answers) is []. No answer in time (`ETIMEOUT`) is a
 *   ServiceError `timeout`; a refused connection, SERVFAIL, REFUSED, a malformed answer and
 *   every other resolver failure are `unavailable`.
 * - `exists` asks NS, SOA and A: true when any has data, false when none has (or the name is
 *   NXDOMAIN); a failure counts only when no other answer had data.
 * - Lists are capped (MAX_RECORDS each); TXT strings are joined from their chunks and capped
 *   (MAX_TXT_CHARS); names are lower-cased without a trailing dot; MX are sorted by priority.
 */
import { Resolver } from 'node:dns/promises';
import { AppError, errorCode } from '../runtime/errors.js';
import { isDomainName } from './rdap-bootstrap.js';
import { ServiceError } from './service-http.js';

export interface DnsOptions {
  /** DNS_SERVERS: `host:port` (or `host`, port 53) entries; `[::1]:53` for IPv6. Default: the system's. */
  readonly servers?: readonly string[];
  /** The first try's timeout per query (default 2000 ms). */
  readonly timeoutMs?: number;
  /** Tries per server (default 2). */
  readonly tries?: number;
}

export type DnsType = 'A' | 'AAAA' | 'MX' | 'NS' | 'TXT';

export interface DnsRecords {
  readonly A: readonly string[];
  readonly AAAA: readonly string[];
  readonly MX: readonly { readonly exchange: string; readonly priority: number }[];
  readonly NS: readonly string[];
  readonly TXT: readonly string[];
}

export type DnsLookup = { readonly outcome: 'found'; readonly records: DnsRecords } | { readonly outcome: 'nxdomain' };

export const DNS_TYPES: readonly DnsType[] = ['A', 'AAAA', 'MX', 'NS', 'TXT'];
export const MAX_RECORDS = 100;
export const MAX_TXT_CHARS = 4_096;
const SERVICE = 'dns';

/** What one query gave: its records, no data, or no such name. */
type Answer<T> = { readonly kind: 'data'; readonly records: T[] } | { readonly kind: 'nodata' } | { readonly kind: 'nxdomain' };

export class DnsClient {
  private readonly servers: readonly string[] | null;
  private readonly timeoutMs: number;
  private readonly tries: number;

  constructor(options: DnsOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 2_000;
    this.tries = options.tries ?? 2;
    this.servers = options.servers && options.servers.length > 0 ? options.servers.map(serverEntry) : null;
    // Checked once here, so a bad entry fails at start-up rather than on the first lookup.
    this.resolver();
  }

  /** Failures (timeout, refused, SERVFAIL) throw ServiceError('dns', 'timeout' | 'unavailable', …). A type with no data is []. */
  async lookup(domain: string, types: readonly DnsType[], ctx: { readonly signal?: AbortSignal } = {}): Promise<DnsLookup> {
    const name = checkedName(domain);
    return this.withResolver(ctx.signal, async (resolver) => {
      const settled = await Promise.allSettled(types.map((type) => ask(resolver, name, type)));
      if (settled.some((s) => s.status === 'fulfilled' && s.value.kind === 'nxdomain')) return { outcome: 'nxdomain' };
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      const records: Record<DnsType, unknown[]> = { A: [], AAAA: [], MX: [], NS: [], TXT: [] };
      settled.forEach((s, i) => {
        if (s.status === 'fulfilled' && s.value.kind === 'data') records[types[i] as DnsType] = s.value.records;
      });
      return { outcome: 'found', records: records as unknown as DnsRecords };
    });
  }

  /** Whether the name has any delegation or address (NS, SOA or A): for availability screening. */
  async exists(domain: string, ctx: { readonly signal?: AbortSignal } = {}): Promise<boolean> {
    const name = checkedName(domain);
    return this.withResolver(ctx.signal, async (resolver) => {
      const settled = await Promise.allSettled([ask(resolver, name, 'NS'), ask(resolver, name, 'SOA'), ask(resolver, name, 'A')]);
      if (settled.some((s) => s.status === 'fulfilled' && s.value.kind === 'data')) return true;
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      return false;
    });
  }

  private resolver(): Resolver {
    const resolver = new Resolver({ timeout: this.timeoutMs, tries: this.tries });
    if (this.servers) {
      try {
        resolver.setServers([...this.servers]);
      } catch (error) {
        throw new AppError('bad_request', `dns: DNS_SERVERS holds an entry that is not host:port (${this.servers.join(', ')})`, { cause: error });
      }
    }
    return resolver;
  }

  /** Runs `fn` on a resolver of its own, cancelled when `signal` aborts (its reason is thrown). */
  private async withResolver<T>(signal: AbortSignal | undefined, fn: (resolver: Resolver) => Promise<T>): Promise<T> {
    if (signal?.aborted) throw signal.reason;
    const resolver = this.resolver();
    const onAbort = () => resolver.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await fn(resolver);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** `host:port`, `[v6]:port`, `host` or a bare IPv6 address, trimmed; an empty entry is refused. */
function serverEntry(raw: string): string {
  const entry = raw.trim();
  if (entry === '') throw new AppError('bad_request', 'dns: DNS_SERVERS holds an empty entry');
  return entry;
}

/** A name DNS is asked for: a domain name, optionally under underscore labels (`_dmarc.`, RFC 8552). */
function checkedName(domain: string): string {
  const name = domain.toLowerCase().replace(/\.$/, '');
  let rest = name;
  while (rest.startsWith('_')) {
    const dot = rest.indexOf('.');
    if (dot < 2 || dot > 63 || !/^[a-z0-9-]+$/.test(rest.slice(1, dot))) break;
    rest = rest.slice(dot + 1);
  }
  if (!isDomainName(rest)) throw new AppError('bad_request', `dns: "${domain.slice(0, 300)}" is not a domain name`);
  return name;
}

/** One query's answer; failures other than NXDOMAIN and no data are ServiceErrors. */
async function ask(resolver: Resolver, name: string, type: DnsType | 'SOA'): Promise<Answer<unknown>> {
  try {
    const records = await query(resolver, name, type);
    return records.length > 0 ? { kind: 'data', records } : { kind: 'nodata' };
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOTFOUND') return { kind: 'nxdomain' };
    if (code === 'ENODATA') return { kind: 'nodata' };
    if (code === 'ECANCELLED') throw error;
    if (code === 'ETIMEOUT') throw new ServiceError(SERVICE, 'timeout', `no answer for ${type} ${name} in time`);
    throw new ServiceError(SERVICE, 'unavailable', `${type} ${name} failed (${code ?? 'resolver error'})`);
  }
}

async function query(resolver: Resolver, name: string, type: DnsType | 'SOA'): Promise<unknown[]> {
  switch (type) {
    case 'A':
      return (await resolver.resolve4(name)).slice(0, MAX_RECORDS);
    case 'AAAA':
      return (await resolver.resolve6(name)).slice(0, MAX_RECORDS);
    case 'MX':
      return (await resolver.resolveMx(name))
        .slice(0, MAX_RECORDS)
        .map((mx) => ({ exchange: hostName(mx.exchange), priority: mx.priority }))
        .sort((a, b) => a.priority - b.priority || a.exchange.localeCompare(b.exchange));
    case 'NS':
      return (await resolver.resolveNs(name)).slice(0, MAX_RECORDS).map(hostName);
    case 'TXT':
      return (await resolver.resolveTxt(name)).slice(0, MAX_RECORDS).map((chunks) => chunks.join('').slice(0, MAX_TXT_CHARS));
    case 'SOA':
      return [await resolver.resolveSoa(name)];
  }
}

function hostName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}
