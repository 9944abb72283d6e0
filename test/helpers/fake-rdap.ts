/**
 * A local RDAP service (RFC 9082/9083, /work/shared/design/reference-shapes-wave2.md §5): one
 * node:http server on 127.0.0.1 (a free port) playing IANA's bootstrap, a thin registry and
 * the registrars behind it, with the real paths, media type and JSON.
 *
 * - `GET /dns.json`: a bootstrap file (RFC 9224) sending every TLD of `domains` (and `tlds`)
 *   to this server (`<url>/`). Point RDAP_BOOTSTRAP_URL at `bootstrapUrl`, or RDAP_BASE_URL
 *   at `url`.
 * - `GET /domain/<name>`: the registry's record, as Verisign writes one: upper-case `ldhName`
 *   and nameservers, `status`, `events` (registration, expiration, last changed, transfer,
 *   last update of RDAP database), the registrar entity (jCard `fn`, `publicIds` IANA
 *   Registrar ID, an abuse contact inside it), `secureDNS`, and `links` `self` plus, for a
 *   thin registry, `related` (type `application/rdap+json`) to `/registrar/domain/<name>`.
 *   Fields a domain lists in `registrarOnly` are left out of it.
 * - `GET /registrar/domain/<name>`: the registrar's own record: everything, lower-case, with
 *   a redacted registrant (RFC 9537 `redacted`).
 * - A name not in `domains`: 404 `{errorCode, title, description}`; any other path 400.
 * - Every answer waits `latencyMs` ([min, max], uniform) first, when set.
 *
 * Modes (`setMode(mode, {times, retryAfterS, paths})`) apply to the record paths (`paths`:
 * `all`, or only `registry` or `registrar` ones), not the bootstrap:
 * `ok`; `rate_limited` (429, `Retry-After: retryAfterS`, default 1); `error` (500); `hang` (no
 * answer until the client gives up or `close()`); `slow` (200, then one byte every 200 ms,
 * never ending); `huge` (200, 3 MiB of valid JSON streamed without a length); `deep` (200,
 * arrays nested 100,000 deep); `not_json` (200, an HTML page). With `times` the mode lasts that
 * many requests, then `ok` again. The bootstrap has its own (`setBootstrapMode`): `ok`,
 * `error` (503), `not_json`, `empty` (a file with no services).
 *
 * `requests` lists every path asked for, in order; `inFlight` and `maxInFlight` count record
 * requests being answered (latency included) — a registry's view of a client's concurrency.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRdapRegistrar {
  readonly name: string;
  readonly ianaId: string;
  readonly url?: string;
}

export interface FakeRdapDomain {
  readonly registered?: string;
  readonly expires?: string;
  readonly lastChanged?: string;
  readonly transferred?: string;
  /** Default `['client transfer prohibited']`. */
  readonly status?: readonly string[];
  readonly nameservers?: readonly string[];
  /** Default the server's `registrar`. */
  readonly registrar?: FakeRdapRegistrar;
  readonly secureDns?: boolean;
  /** Fields only the registrar's record carries: a thin registry leaves them out. */
  readonly registrarOnly?: readonly ('expires' | 'registrar' | 'nameservers' | 'status')[];
  /** The registry's `related` link: true (default) to this server's registrar path, false none, or this href. */
  readonly related?: boolean | string;
}

export type FakeRdapMode = 'ok' | 'rate_limited' | 'error' | 'hang' | 'slow' | 'huge' | 'deep' | 'not_json' | 'null';
/** Which record paths a mode applies to: both, the registry's (`/domain/`) or the registrar's. */
export type FakeRdapPaths = 'all' | 'registry' | 'registrar';
export type FakeBootstrapMode = 'ok' | 'error' | 'not_json' | 'empty';

export interface FakeRdapOptions {
  readonly domains: Readonly<Record<string, FakeRdapDomain>>;
  /** Delay before each answer, uniform in [min, max] ms. */
  readonly latencyMs?: readonly [number, number];
  /** The registrar of domains that name none. */
  readonly registrar?: FakeRdapRegistrar;
  /** TLDs the bootstrap sends here besides those of `domains`. */
  readonly tlds?: readonly string[];
}

export interface FakeRdap {
  /** `http://127.0.0.1:<port>` (RDAP_BASE_URL). */
  readonly url: string;
  /** `<url>/dns.json` (RDAP_BOOTSTRAP_URL). */
  readonly bootstrapUrl: string;
  readonly requests: string[];
  readonly inFlight: number;
  readonly maxInFlight: number;
  setMode(mode: FakeRdapMode, options?: { readonly times?: number; readonly retryAfterS?: number; readonly paths?: FakeRdapPaths }): void;
  setBootstrapMode(mode: FakeBootstrapMode): void;
  /** Forgets the requests and the in-flight peak. */
  reset(): void;
  close(): Promise<void>;
}

export const FAKE_REGISTRAR: FakeRdapRegistrar = { name: 'Fake Registrar, LLC', ianaId: '1999', url: 'https://registrar.example/' };
const RDAP_TYPE = 'application/rdap+json';
const CONFORMANCE = ['rdap_level_0', 'icann_rdap_technical_implementation_guide_1', 'icann_rdap_response_profile_1'];
const DATABASE_UPDATE = '2026-11-30T12:00:00Z';

export async function startFakeRdap(options: FakeRdapOptions): Promise<FakeRdap> {
  const requests: string[] = [];
  const open = new Set<http.ServerResponse>();
  let mode: FakeRdapMode = 'ok';
  let modeLeft = Infinity;
  let retryAfterS = 1;
  let modePaths: FakeRdapPaths = 'all';
  let bootstrapMode: FakeBootstrapMode = 'ok';
  let inFlight = 0;
  let maxInFlight = 0;
  let base = '';

  const tlds = [...new Set([...Object.keys(options.domains).map((d) => d.slice(d.lastIndexOf('.') + 1)), ...(options.tlds ?? [])])].sort();
  const registrarOf = (d: FakeRdapDomain) => d.registrar ?? options.registrar ?? FAKE_REGISTRAR;

  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    requests.push(path);
    open.add(res);
    res.on('close', () => open.delete(res));
    const record = path.startsWith('/domain/') || path.startsWith('/registrar/domain/');
    if (record) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      res.on('close', () => inFlight--);
    }
    const applies = record && (modePaths === 'all' || (modePaths === 'registrar') === path.startsWith('/registrar/'));
    const current = applies ? mode : 'ok';
    if (applies && mode !== 'ok' && --modeLeft <= 0) {
      mode = 'ok';
      modeLeft = Infinity;
    }
    setTimeout(() => answer(path, current, res), delay(options.latencyMs));
  });

  function answer(path: string, current: FakeRdapMode, res: http.ServerResponse): void {
    if (res.destroyed) return;
    if (path === '/dns.json') return bootstrap(res);
    if (current !== 'ok') return misbehave(current, res, retryAfterS);
    const registrar = path.startsWith('/registrar/domain/');
    if (!path.startsWith('/domain/') && !registrar) return send(res, 400, errorBody(400, 'Bad Request', `no such path ${path}`));
    const name = path.slice(registrar ? '/registrar/domain/'.length : '/domain/'.length).toLowerCase();
    const domain = Object.hasOwn(options.domains, name) ? options.domains[name] : undefined;
    if (!domain) return send(res, 404, errorBody(404, 'Not Found', `${name} is not registered here`));
    send(res, 200, registrar ? registrarRecord(name, domain, registrarOf(domain), base) : registryRecord(name, domain, registrarOf(domain), base));
  }

  function bootstrap(res: http.ServerResponse): void {
    if (bootstrapMode === 'error') return send(res, 503, '<html><body>Service Unavailable</body></html>', 'text/html');
    if (bootstrapMode === 'not_json') return send(res, 200, '<html><body>moved</body></html>', 'text/html');
    const services = bootstrapMode === 'empty' ? [] : [[tlds, [`${base}/`]]];
    send(res, 200, JSON.stringify({ description: 'RDAP bootstrap file for Domain Name System registrations', publication: DATABASE_UPDATE, services, version: '1.0' }), 'application/json');
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    bootstrapUrl: `${base}/dns.json`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    setMode(next, opts = {}) {
      mode = next;
      modeLeft = opts.times ?? Infinity;
      retryAfterS = opts.retryAfterS ?? 1;
      modePaths = opts.paths ?? 'all';
    },
    setBootstrapMode(next) {
      bootstrapMode = next;
    },
    reset() {
      requests.length = 0;
      maxInFlight = inFlight;
    },
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function delay(range: readonly [number, number] | undefined): number {
  if (!range) return 0;
  const [min, max] = range;
  return min + Math.random() * (max - min);
}

function send(res: http.ServerResponse, status: number, body: string, type = RDAP_TYPE): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function errorBody(code: number, title: string, description: string): string {
  return JSON.stringify({ rdapConformance: ['rdap_level_0'], errorCode: code, title, description: [description] });
}

function misbehave(mode: FakeRdapMode, res: http.ServerResponse, retryAfterS: number): void {
  switch (mode) {
    case 'rate_limited':
      res.writeHead(429, { 'content-type': RDAP_TYPE, 'retry-after': String(retryAfterS) });
      return void res.end(errorBody(429, 'Too Many Requests', 'query rate exceeded'));
    case 'error':
      return send(res, 500, errorBody(500, 'Internal Server Error', 'the database is unavailable'));
    case 'hang':
      return;
    case 'slow': {
      res.writeHead(200, { 'content-type': RDAP_TYPE });
      res.write('{"objectClassName":"domain","remarks":[');
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write(' ')), 200);
      res.on('close', () => clearInterval(drip));
      return;
    }
    case 'huge':
      return streamHuge(res);
    case 'deep':
      return send(res, 200, `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    case 'not_json':
      return send(res, 200, '<!doctype html><html><body><h1>Whois lookup</h1></body></html>', 'text/html; charset=utf-8');
    case 'null':
      return send(res, 200, 'null');
    case 'ok':
      return;
  }
}

/** 3 MiB of valid JSON, streamed in 64 KiB chunks without a Content-Length. */
function streamHuge(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': RDAP_TYPE });
  const chunk = `"${'x'.repeat(64 * 1024 - 3)}",`;
  let left = 48;
  res.write('{"objectClassName":"domain","ldhName":"huge.example","remarks":[');
  const next = () => {
    while (left > 0 && !res.destroyed) {
      left--;
      if (!res.write(chunk)) return void res.once('drain', next);
    }
    if (!res.destroyed) res.end('"end"]}');
  };
  next();
}

function eventsOf(d: FakeRdapDomain, omit: ReadonlySet<string>): object[] {
  const events: object[] = [];
  if (d.registered) events.push({ eventAction: 'registration', eventDate: d.registered });
  if (d.expires && !omit.has('expires')) events.push({ eventAction: 'expiration', eventDate: d.expires });
  if (d.lastChanged) events.push({ eventAction: 'last changed', eventDate: d.lastChanged });
  if (d.transferred) events.push({ eventAction: 'transfer', eventDate: d.transferred });
  events.push({ eventAction: 'last update of RDAP database', eventDate: DATABASE_UPDATE });
  return events;
}

function registrarEntity(r: FakeRdapRegistrar): object {
  return {
    objectClassName: 'entity',
    handle: r.ianaId,
    roles: ['registrar'],
    publicIds: [{ type: 'IANA Registrar ID', identifier: r.ianaId }],
    vcardArray: ['vcard', [['version', {}, 'text', '4.0'], ['fn', {}, 'text', r.name]]],
    ...(r.url ? { links: [{ value: r.url, rel: 'about', href: r.url, type: 'text/html' }] } : {}),
    entities: [
      {
        objectClassName: 'entity',
        roles: ['abuse'],
        vcardArray: ['vcard', [['version', {}, 'text', '4.0'], ['fn', {}, 'text', ''], ['tel', { type: 'voice' }, 'uri', 'tel:+1.5555550100'], ['email', {}, 'text', 'abuse@registrar.example']]],
      },
    ],
  };
}

function registryRecord(name: string, d: FakeRdapDomain, registrar: FakeRdapRegistrar, base: string): string {
  const omit = new Set<string>(d.registrarOnly ?? []);
  const self = `${base}/domain/${name}`;
  const related = d.related === false ? null : typeof d.related === 'string' ? d.related : `${base}/registrar/domain/${name}`;
  const links: object[] = [{ value: self, rel: 'self', href: self, type: RDAP_TYPE }];
  if (related) links.push({ value: self, rel: 'related', href: related, type: RDAP_TYPE });
  return JSON.stringify({
    objectClassName: 'domain',
    handle: `${name.length}${name.replace(/\W/g, '').toUpperCase().slice(0, 12)}_DOMAIN-FAKE`,
    ldhName: name.toUpperCase(),
    links,
    status: omit.has('status') ? [] : (d.status ?? ['client transfer prohibited']),
    entities: omit.has('registrar') ? [] : [registrarEntity(registrar)],
    events: eventsOf(d, omit),
    secureDNS: { delegationSigned: d.secureDns ?? false },
    nameservers: omit.has('nameservers') ? [] : (d.nameservers ?? []).map((ns) => ({ objectClassName: 'nameserver', ldhName: ns.toUpperCase() })),
    rdapConformance: CONFORMANCE,
    notices: [{ title: 'Terms of Use', description: ['Service subject to Terms of Use.'], links: [{ href: 'https://registry.example/terms', type: 'text/html' }] }],
  });
}

function registrarRecord(name: string, d: FakeRdapDomain, registrar: FakeRdapRegistrar, base: string): string {
  const self = `${base}/registrar/domain/${name}`;
  return JSON.stringify({
    objectClassName: 'domain',
    ldhName: name,
    links: [{ value: self, rel: 'self', href: self, type: RDAP_TYPE }],
    status: d.status ?? ['client transfer prohibited'],
    entities: [
      registrarEntity(registrar),
      { objectClassName: 'entity', roles: ['registrant'], vcardArray: ['vcard', [['version', {}, 'text', '4.0'], ['fn', {}, 'text', 'REDACTED FOR PRIVACY']]] },
    ],
    events: eventsOf(d, new Set()),
    secureDNS: { delegationSigned: d.secureDns ?? false },
    nameservers: (d.nameservers ?? []).map((ns) => ({ objectClassName: 'nameserver', ldhName: ns })),
    redacted: [{ name: { type: 'Registrant Name' }, method: 'removal' }],
    rdapConformance: CONFORMANCE,
  });
}
