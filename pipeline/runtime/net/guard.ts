/**
 * The SSRF guard: every outbound request of the service (scrape, fetch, each redirect hop,
 * crawl, webhooks, providers) asks it first, and connects only through its `lookup`.
 *
 * - `parse` accepts only http(s) URLs. WHATWG URL parsing normalizes the odd IPv4 spellings
 *   (`2130706433`, `0x7f.1`, `017700000001`, `127.1`) and IPv6 forms before any check.
 * - `check` refuses names that are local by definition (`localhost`, `*.localhost`, cloud
 *   metadata names), checks an IP-literal host directly, and resolves a name and checks
 *   EVERY address it returns: one refused address refuses the URL.
 * - `lookup` is the same resolve-and-check for Node's `http`/`https` agents (their `lookup`
 *   option), so the socket connects to an address that was checked at connect time — a DNS
 *   answer that changes between `check` and the connection (rebinding) is checked again.
 *   `agents()` (see agents.ts) also checks IP-literal hosts, for which Node skips `lookup`.
 *
 * `allowPrivate` (config FETCH_ALLOW_PRIVATE) turns the name and address checks off; the
 * scheme check stays. `allowCidrs` lets chosen ranges through while the rest stays refused.
 * Refusals are AppError `url_blocked` (403); names that do not resolve are `dns_failed`.
 * Messages never include the URL's userinfo (see `redactUrl`).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { AppError } from '../errors.js';
import { trimEndOf } from '../trim.js';
import { inCidrs, parseCidr, refusedRange, type Cidr } from './addresses.js';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to every address it has (a test injects a fake one). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface GuardOptions {
  /** Let loopback, private and other non-public addresses through (tests, local development). */
  readonly allowPrivate: boolean;
  /** Ranges allowed even though non-public (`10.1.0.0/16`, `127.0.0.1`). */
  readonly allowCidrs?: readonly string[];
  /** Default: the operating system's resolver (getaddrinfo, all addresses). */
  readonly resolve?: Resolver;
}

export interface CheckedTarget {
  readonly url: URL;
  /** The host name without brackets or a trailing dot. */
  readonly hostname: string;
  /** The checked addresses (the literal itself for an IP host). */
  readonly addresses: readonly ResolvedAddress[];
}

export type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type GuardedLookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

const SCHEMES = new Set(['http:', 'https:']);

/** Names refused without asking DNS (compared lower-case, without a trailing dot). */
const LOCAL_NAMES = new Set([
  'localhost',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

export const systemResolver: Resolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** The URL as text without username and password: what logs and messages may show. */
export function redactUrl(url: string | URL): string {
  try {
    const u = new URL(String(url));
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return '(unparseable URL)';
  }
}

function blocked(url: string | URL, why: string): AppError {
  return new AppError('url_blocked', `refused to fetch ${redactUrl(url)}: ${why}`);
}

/** A host name bare: `[::1]` → `::1`, `example.com.` → `example.com`, lower case. */
export function bareHost(hostname: string): string {
  return trimEndOf(hostname.replace(/^\[|\]$/g, ''), '.').toLowerCase();
}

/** Longest DNS name (RFC 1035 2.3.4, without its trailing dot) and label. */
const MAX_NAME = 253;
const MAX_LABEL = 63;

/**
 * Why a bare host (`bareHost`) can be no DNS name, or null when it can be one (or is an IP
 * literal): over 253 characters, an empty label (`a..b`) or one over 63. URL parsing keeps
 * such a host, and none can resolve; refusing it in `parse` keeps it from everything after
 * (the cookie jar's own host patterns are quadratic over a long run of dots).
 */
export function dnsNameFault(host: string): string | null {
  if (isIP(host) !== 0) return null;
  if (host.length > MAX_NAME) return `${host.length} characters, over ${MAX_NAME}`;
  let start = 0;
  for (;;) {
    const dot = host.indexOf('.', start);
    const length = (dot === -1 ? host.length : dot) - start;
    if (length === 0) return 'an empty label';
    if (length > MAX_LABEL) return `a label of ${length} characters, over ${MAX_LABEL}`;
    if (dot === -1) return null;
    start = dot + 1;
  }
}

/** The URL's host name bare (`bareHost`). */
export const bareHostname = (url: URL): string => bareHost(url.hostname);

function dnsError(hostname: string, error: unknown): AppError {
  const code = (error as NodeJS.ErrnoException)?.code ?? 'unknown';
  return new AppError('dns_failed', `could not resolve ${hostname} (${code})`, { cause: error });
}

export class NetGuard {
  readonly allowPrivate: boolean;
  private readonly allowCidrs: readonly Cidr[];
  private readonly resolve: Resolver;

  constructor(options: GuardOptions) {
    this.allowPrivate = options.allowPrivate;
    this.allowCidrs = (options.allowCidrs ?? []).map(parseCidr);
    this.resolve = options.resolve ?? systemResolver;
  }

  /** The URL parsed, if its scheme is http or https; else `url_blocked`. */
  parse(input: string | URL): URL {
    let url: URL;
    try {
      url = new URL(String(input));
    } catch {
      throw new AppError('url_blocked', 'refused to fetch a URL that does not parse');
    }
    if (!SCHEMES.has(url.protocol)) throw blocked(url, `scheme ${url.protocol} is not http or https`);
    if (!url.hostname) throw blocked(url, 'no host');
    const notName = dnsNameFault(bareHostname(url));
    // Not quoted: such a host may be a quarter of a megabyte long.
    if (notName) throw new AppError('url_blocked', `refused to fetch a URL whose host is not a DNS name: ${notName}`);
    return url;
  }

  /** Why the address is refused, or null when it may be reached. */
  addressRefusal(address: string): string | null {
    if (this.allowPrivate) return null;
    const range = refusedRange(address);
    if (range === null || inCidrs(address, this.allowCidrs)) return null;
    return range;
  }

  /** Throws `url_blocked` when a host name is local by definition. */
  private checkName(hostname: string, url: string | URL): void {
    if (this.allowPrivate) return;
    if (hostname === '' || LOCAL_NAMES.has(hostname) || hostname.endsWith('.localhost')) {
      throw blocked(url, `host ${hostname || '(empty)'} is a local name`);
    }
  }

  /**
   * Resolves `hostname` (a name or an IP literal) and checks every address: all of them, or
   * `url_blocked` when any is refused; `dns_failed` when the name does not resolve.
   */
  async addressesOf(hostname: string, url: string | URL = `http://${hostname}/`): Promise<readonly ResolvedAddress[]> {
    const host = bareHost(hostname);
    const literal = isIP(host);
    if (literal !== 0) {
      const why = this.addressRefusal(host);
      if (why) throw blocked(url, `address ${host} is ${why}`);
      return [{ address: host, family: literal === 6 ? 6 : 4 }];
    }
    this.checkName(host, url);
    // No name to look up (a host of dots only): Node deprecates asking DNS for '' (DEP0118).
    if (host === '') throw dnsError('(an empty name)', Object.assign(new Error('no name'), { code: 'ENOTFOUND' }));
    let found: readonly ResolvedAddress[];
    try {
      found = await this.resolve(host);
    } catch (error) {
      throw dnsError(host, error);
    }
    if (found.length === 0) throw dnsError(host, Object.assign(new Error('no addresses'), { code: 'ENODATA' }));
    for (const { address } of found) {
      const why = this.addressRefusal(address);
      if (why) throw blocked(url, `${host} resolves to ${address}, which is ${why}`);
    }
    return found;
  }

  /**
   * The checks that need no DNS: the scheme, names local by definition and an IP-literal
   * host; `url_blocked` when one refuses. Answers whether a lookup is still needed to decide
   * (a name, when private addresses are refused): `check` makes it.
   */
  checkWithoutLookup(input: string | URL): { url: URL; hostname: string; needsLookup: boolean } {
    const url = this.parse(input);
    const hostname = bareHostname(url);
    if (isIP(hostname) !== 0) {
      const why = this.addressRefusal(hostname);
      if (why) throw blocked(url, `address ${hostname} is ${why}`);
      return { url, hostname, needsLookup: false };
    }
    this.checkName(hostname, url);
    return { url, hostname, needsLookup: !this.allowPrivate };
  }

  /** Parses and checks a URL before it is requested (each redirect hop too). */
  async check(input: string | URL): Promise<CheckedTarget> {
    const url = this.parse(input);
    const hostname = bareHostname(url);
    const addresses = await this.addressesOf(hostname, url);
    return { url, hostname, addresses };
  }

  /**
   * A `lookup` for net/tls/http agents: resolves with the guard's resolver, checks every
   * address, and answers in the form asked for (`all` or the first matching the family).
   */
  readonly lookup: GuardedLookup = (hostname, options, callback) => {
    this.addressesOf(hostname).then(
      (found) => {
        const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
        const usable = family === 0 ? found : found.filter((a) => a.family === family);
        if (usable.length === 0) {
          const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
          callback(error, '', undefined);
        } else if (options.all) {
          callback(null, usable.map((a) => ({ address: a.address, family: a.family })));
        } else {
          const first = usable[0] as ResolvedAddress;
          callback(null, first.address, first.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', undefined),
    );
  };
}
