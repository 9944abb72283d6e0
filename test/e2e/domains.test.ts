/**
 * The domain operations end to end (issue 29), embedded mode with the production actors,
 * against local servers speaking the real protocols: a registry over RDAP (RDAP_BASE_URL),
 * an authoritative DNS server over UDP/TCP (DNS_SERVERS), the Wayback Machine's CDX index and
 * raw snapshots (WAYBACK_URL, behind a stand-in that can hold chosen years back), and a site
 * on 127.0.0.1 whose pages link to the domain (the link graph learns them as they are scraped).
 *
 * - POST /v1/domain: registration, DNS and backlinks for a URL and for its bare domain alike,
 *   IDNs as punycode, each section switched off by its flag, a failing source reported in its
 *   section (registry down or rate-limited, DNS silent) with the lookup still 200, charging;
 * - POST /v1/domain/screen: every status, invalid names and duplicates, charged per name the
 *   registry answered for, nothing charged when it answered for none;
 * - POST /v1/domain/report: evidence, concerns and questions at each depth, archived snapshots
 *   past the budget left pending; POST /v1/domain/history/snapshots loads them (included years
 *   free, others 1 credit, stored ones free) and another key gets a 404;
 * - bad input: 422 with `detail`, never sent to a registry, nothing charged.
 *
 * Today's home page is read through the scrape path like any page, so the fetcher resolves
 * the domain with the system's resolver: the names here are made up (`*-wds-e2e.*`) and
 * resolve nowhere, so that read fails the same way wherever the suite runs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { domainToASCII } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedWithSecondKey, type Embedded } from '../helpers/embedded.js';
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js';
import { startFakeRdap, type FakeRdap } from '../helpers/fake-rdap.js';
import { startFakeWayback, type FakeCapture, type FakeWayback } from '../helpers/fake-wayback.js';
import { postJson } from '../helpers/api.js';
import { scrape } from '../helpers/scrape.js';

const API_KEY = 'e2e-domains-key-0123456789';
const DAY = 86_400_000;
const at = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY).toISOString().replace(/\.\d{3}Z$/, 'Z');
const IDN = domainToASCII('bücher-laden.de');

/** A home page as archived in `year`, of one of three owners. */
function archivedPage(year: number): string {
  if (year <= 2016) {
    return `<html lang="en"><head><title>Acme Widgets | Handmade brass widgets</title></head><body><h1>Acme Widgets</h1>
      <p>Handmade brass widgets since 1990. Our workshop machines every widget, gear and sprocket by hand in Sheffield.</p>
      <p>Browse widgets, sprockets, gears and brass fittings. Workshop tours every Friday. Widgets shipped worldwide.</p></body></html>`;
  }
  if (year <= 2019) {
    return `<html><head><title>Best online casino bonus ${year}</title></head><body><h1>Casino poker slots</h1>
      <p>Play casino games, poker tournaments and slots jackpot online. Betting odds, roulette and blackjack bonus codes.</p>
      <p>Cheap viagra cialis pharmacy online. Casino casino poker betting jackpot slots. <a href="https://casino-partner.com/">Our partner</a>.</p></body></html>`;
  }
  return `<html lang="en"><head><title>Blue Harbor Yoga Studio</title></head><body><h1>Blue Harbor Yoga</h1>
    <p>Morning yoga classes, meditation sessions and breathing workshops by the harbour. Book a class with our teachers.</p>
    <p>Beginners yoga, vinyasa flow, restorative yoga and meditation retreats every season.</p></body></html>`;
}

const ACME_CAPTURES: FakeCapture[] = Array.from({ length: 13 }, (_, i) => ({ timestamp: `${2012 + i}0615120000`, html: archivedPage(2012 + i) }));

interface Archive {
  readonly url: string;
  /** Years whose snapshot pages are held back (answered only once released or after 60 s). */
  readonly held: Set<number>;
  close(): Promise<void>;
}

/** A stand-in for the archive that forwards to the local Wayback Machine, holding back the snapshots of `held` years. */
async function startArchive(wayback: FakeWayback): Promise<Archive> {
  const held = new Set<number>();
  const waiting = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const year = /^\/web\/(\d{4})/.exec(path)?.[1];
    const forward = () => {
      const upstream = http.get(`${wayback.url}${path}`, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
    };
    if (year && held.has(Number(year))) {
      waiting.add(res);
      const timer = setTimeout(forward, 60_000);
      res.on('close', () => {
        clearTimeout(timer);
        waiting.delete(res);
      });
      return;
    }
    forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held,
    close: async () => {
      for (const res of waiting) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface LinkSite {
  /** `/blog/<n>` on 127.0.0.<n>: three referring "domains" (an IP host is filed as itself). */
  url(n: 1 | 2 | 3): string;
  /** Whether /blog/2 still links to the domain. */
  linking: boolean;
  close(): Promise<void>;
}

/** Pages linking to acme-widgets-wds-e2e.com, each on its own loopback address (Linux answers all of 127/8). */
async function startLinkSite(): Promise<LinkSite> {
  const state = { linking: true };
  const pages: Record<string, () => string> = {
    '/blog/1': () => '<html><head><title>Widget review</title></head><body><p>We love <a href="https://www.acme-widgets-wds-e2e.com/shop">Acme Widgets</a> and <a href="https://acme-widgets-wds-e2e.com/">their site</a>.</p></body></html>',
    '/blog/2': () =>
      state.linking
        ? '<html><head><title>Brass fittings</title></head><body><p>See <a href="https://acme-widgets-wds-e2e.com/fittings">fittings</a>.</p></body></html>'
        : '<html><head><title>Brass fittings</title></head><body><p>That shop closed.</p></body></html>',
    '/blog/3': () => '<html><head><title>Links</title></head><body><p><a href="http://shop.acme-widgets-wds-e2e.com/sale">Sale</a></p></body></html>',
  };
  const handler: http.RequestListener = (req, res) => {
    const page = pages[(req.url ?? '/').split('?')[0] ?? '/'];
    if (!page) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>Not found</body></html>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page());
  };
  const servers = await Promise.all(
    [1, 2, 3].map(async (n) => {
      const server = http.createServer(handler);
      await new Promise<void>((resolve) => server.listen(0, `127.0.0.${n}`, resolve));
      return server;
    }),
  );
  return {
    url: (n) => `http://127.0.0.${n}:${(servers[n - 1]?.address() as AddressInfo).port}/blog/${n}`,
    get linking() {
      return state.linking;
    },
    set linking(value: boolean) {
      state.linking = value;
    },
    close: async () => {
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}

let rdap: FakeRdap;
let dns: FakeDns;
let wayback: FakeWayback;
let archive: Archive;
let links: LinkSite;
let svc: Embedded;
let otherKey = '';
const post = (path: string, body: unknown, key = API_KEY) => postJson(svc.base, key, path, body);

beforeAll(async () => {
  rdap = await startFakeRdap({
    domains: {
      'acme-widgets-wds-e2e.com': {
        registered: at(-3 * 365),
        expires: at(40),
        lastChanged: at(-30),
        transferred: at(-30),
        status: ['client transfer prohibited'],
        nameservers: ['NS1.ACME-DNS.NET', 'NS2.ACME-DNS.NET'],
      },
      'quiet-garden-wds-e2e.org': { registered: '2008-03-01T00:00:00Z', expires: at(700), status: ['active'], nameservers: ['ns1.quiet-garden-wds-e2e.org'] },
      'taken-name-wds-e2e.com': { registered: '2015-01-01T00:00:00Z', expires: at(300) },
      [IDN]: { registered: '2011-05-05T00:00:00Z', expires: at(200) },
      'parked-lot-wds-e2e.net': { registered: '2020-01-01T00:00:00Z', expires: at(365), nameservers: ['ns1.sedoparking.com', 'ns2.sedoparking.com'] },
    },
    tlds: ['net', 'org', 'de', 'io'],
  });
  dns = await startFakeDns({
    zones: {
      'acme-widgets-wds-e2e.com': { A: ['203.0.113.10'], NS: ['ns1.acme-dns.net', 'ns2.acme-dns.net'], TXT: ['v=spf1 -all'] },
      'quiet-garden-wds-e2e.org': { A: ['203.0.113.20'], AAAA: ['2001:db8::20'], MX: [{ exchange: 'mail.quiet-garden-wds-e2e.org', priority: 10 }], NS: ['ns1.quiet-garden-wds-e2e.org'], TXT: ['v=spf1 mx -all'] },
      '_dmarc.quiet-garden-wds-e2e.org': { TXT: ['v=DMARC1; p=reject'] },
      'taken-name-wds-e2e.com': { NS: ['ns1.registrar.example'] },
      'ghost-site.net': { A: ['198.51.100.7'] },
      'parked-lot-wds-e2e.net': { A: ['198.51.100.9'], NS: ['ns1.sedoparking.com'] },
    },
  });
  wayback = await startFakeWayback({ captures: { 'acme-widgets-wds-e2e.com': ACME_CAPTURES } });
  archive = await startArchive(wayback);
  links = await startLinkSite();
  ({ svc, otherKey } = await embeddedWithSecondKey(API_KEY, {
    FETCH_ALLOW_PRIVATE: 'true',
    RDAP_BASE_URL: rdap.url,
    DNS_SERVERS: dns.server,
    DNS_TIMEOUT_MS: '400',
    DNS_TRIES: '1',
    WAYBACK_URL: archive.url,
    // Wide enough that a page read under a loaded CI machine still lands (a linking page past
    // 3 s once came back `unreachable`); the held-back snapshot (60 s) stays past it.
    DOMAIN_REPORT_BUDGET_MS: '10000',
    DOMAIN_PAGE_TIMEOUT_MS: '8000',
  }));
  // The link graph learns who links to acme-widgets-wds-e2e.com from the pages this instance reads.
  for (const n of [1, 2, 3] as const) {
    const read = await scrape(svc.base, API_KEY, { url: links.url(n) });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
  }
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await Promise.all([rdap?.close(), dns?.close(), archive?.close(), links?.close()]);
  await wayback?.close();
});

describe('e2e/domains: POST /v1/domain', () => {
  it('answers registration, DNS and backlinks, a URL on the domain and the bare domain alike', async () => {
    const bare = await post('/v1/domain', { domain: 'acme-widgets-wds-e2e.com' });
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
    const data = bare.body.data;
    expect(data).toMatchObject({ domain: 'acme-widgets-wds-e2e.com', unicode: 'acme-widgets-wds-e2e.com', host: 'acme-widgets-wds-e2e.com', errors: [] });
    expect(data.registration).toMatchObject({
      found: true,
      registry: expect.stringContaining(rdap.url),
      expires: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      status: ['client transfer prohibited'],
      nameservers: ['ns1.acme-dns.net', 'ns2.acme-dns.net'],
      registrar: { name: 'Fake Registrar, LLC', ianaId: '1999' },
    });
    expect(data.registration.ageDays).toBeGreaterThanOrEqual(3 * 365 - 1);
    expect(data.registration.expiresInDays).toBeGreaterThanOrEqual(39);
    expect(data.dns).toMatchObject({ exists: true, A: ['203.0.113.10'], MX: [], NS: ['ns1.acme-dns.net', 'ns2.acme-dns.net'], TXT: ['v=spf1 -all'] });
    // 127.0.0.1's page links twice; the others once.
    expect(data.backlinks.referringDomains.map((d: { domain: string }) => d.domain)).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3']);
    expect(data.backlinks.referringDomains[0]).toMatchObject({ links: 2, pages: 1, firstSeen: expect.any(String), lastSeen: expect.any(String) });
    expect(data.backlinks.totalReferringDomains).toBe(3);
    expect(data.backlinks.coverage).toMatchObject({ pages: expect.any(Number), note: expect.stringContaining('pages this instance has read') });
    expect(data.cost.credits).toBe(1);

    const limited = await post('/v1/domain', { domain: 'acme-widgets-wds-e2e.com', registration: false, dns: false, backlinkLimit: 1 });
    expect(limited.body.data.backlinks).toMatchObject({ referringDomains: [expect.objectContaining({ domain: '127.0.0.1' })], totalReferringDomains: 3, truncated: true });

    const url = await post('/v1/domain', { domain: 'https://shop.ACME-widgets-wds-e2e.com/sale?x=1#top' });
    expect(url.status).toBe(200);
    expect(url.body.data).toMatchObject({ domain: 'acme-widgets-wds-e2e.com', host: 'shop.acme-widgets-wds-e2e.com' });
    expect(url.body.data.registration.created).toBe(data.registration.created);
  });

  it('asks for an internationalised name in punycode and answers it in both forms', async () => {
    const { status, body } = await post('/v1/domain', { domain: 'https://www.bücher-laden.de/katalog', dns: false, backlinks: false });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data).toMatchObject({ domain: IDN, unicode: 'bücher-laden.de', registration: { found: true } });
    expect(rdap.requests).toContain(`/domain/${IDN}`);
  });

  it('switches each section off by its flag', async () => {
    const { body } = await post('/v1/domain', { domain: 'quiet-garden-wds-e2e.org', registration: false, backlinks: false });
    expect(body.data.registration).toBeUndefined();
    expect(body.data.backlinks).toBeUndefined();
    expect(body.data.dns).toMatchObject({ MX: [{ exchange: 'mail.quiet-garden-wds-e2e.org', priority: 10 }], AAAA: ['2001:db8::20'] });
  });

  it('answers a name the registry has no record of: found false, DNS NXDOMAIN', async () => {
    const { body } = await post('/v1/domain', { domain: 'never-registered-here.com', backlinks: false });
    expect(body.data.registration).toMatchObject({ found: false, created: null });
    expect(body.data.dns).toMatchObject({ exists: false, A: [] });
    expect(body.data.cost.credits).toBe(1);
  });

  it('reports a registry that is down in its section, still answering DNS and backlinks', async () => {
    rdap.setMode('error');
    try {
      const { status, body } = await post('/v1/domain', { domain: 'acme-widgets-wds-e2e.com' });
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.data.registration).toBeNull();
      expect(body.data.errors).toEqual([expect.objectContaining({ section: 'registration', code: 'registry_unavailable' })]);
      expect(body.data.dns.A).toEqual(['203.0.113.10']);
      expect(body.data.backlinks.totalReferringDomains).toBe(3);
      expect(body.data.cost.credits).toBe(1);
    } finally {
      rdap.setMode('ok');
    }
  });

  it('charges nothing when every section asked for failed (registry down, DNS silent)', async () => {
    rdap.setMode('error');
    dns.setMode('silent');
    try {
      const { status, body } = await post('/v1/domain', { domain: 'quiet-garden-wds-e2e.org', backlinks: false });
      expect(status).toBe(200);
      expect(body.data.registration).toBeNull();
      expect(body.data.dns).toBeNull();
      expect(body.data.errors.map((e: { code: string }) => e.code).sort()).toEqual(['dns_timeout', 'registry_unavailable']);
      expect(body.data.cost.credits).toBe(0);
    } finally {
      rdap.setMode('ok');
      dns.setMode('ok');
    }
  });

  it('says how long a rate-limited registry asked us to wait', async () => {
    rdap.setMode('rate_limited', { retryAfterS: 1, times: 1 });
    const { status, body } = await post('/v1/domain', { domain: 'taken-name-wds-e2e.com', dns: false, backlinks: false });
    expect(status).toBe(200);
    expect(body.data.errors).toEqual([expect.objectContaining({ section: 'registration', code: 'registry_rate_limited', retryAfter: 1 })]);
    // The client pauses that registry for the wait it was given.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
  });

  it.each([
    ['127.0.0.1', 'domain_ip_address'],
    ['http://[::1]/', 'domain_ip_address'],
    ['intranet', 'domain_single_label'],
    ['localhost', 'domain_local_name'],
    [`${'a'.repeat(64)}.com`, 'domain_label_too_long'],
    ['https://user:secret@acme-widgets-wds-e2e.com/', 'domain_credentials'],
    ['printer.local', 'domain_reserved_tld'],
    ['wiki.corp', 'domain_unknown_tld'],
    ['co.uk', 'domain_public_suffix'],
  ])('refuses %j with 422 detail, asks no registry and charges nothing', async (domain, type) => {
    const before = rdap.requests.length;
    for (const path of ['/v1/domain', '/v1/domain/report', '/v1/domain/history/snapshots']) {
      const { status, body } = await post(path, { domain }, otherKey);
      expect(status, `${path} ${JSON.stringify(body)}`).toBe(422);
      expect(body.detail[0]).toMatchObject({ loc: ['body', 'domain'], type });
      expect(body.detail[0].msg).toEqual(expect.any(String));
    }
    expect(rdap.requests.length).toBe(before);
  });
});

describe('e2e/domains: POST /v1/domain/screen', () => {
  it('reads every status, checks duplicates once and charges per name the registry answered for', async () => {
    const domains = [
      'taken-name-wds-e2e.com',
      'https://www.taken-name-wds-e2e.com/about',
      'free-name-1.com',
      'ghost-site.net',
      'bücher-laden.de',
      '10.0.0.1',
      'wiki.corp',
      'nobody-has-this.io',
    ];
    const { status, body } = await post('/v1/domain/screen', { domains });
    expect(status, JSON.stringify(body)).toBe(200);
    const results = body.data.results as { input: string; status: string; [k: string]: unknown }[];
    expect(results.map((r) => [r.input, r.status])).toEqual([
      ['taken-name-wds-e2e.com', 'registered'],
      ['https://www.taken-name-wds-e2e.com/about', 'registered'],
      ['free-name-1.com', 'likely_available'],
      ['ghost-site.net', 'no_registry_record'],
      ['bücher-laden.de', 'registered'],
      ['10.0.0.1', 'invalid'],
      ['wiki.corp', 'invalid'],
      ['nobody-has-this.io', 'likely_available'],
    ]);
    expect(results[1]).toMatchObject({ domain: 'taken-name-wds-e2e.com', duplicate: true });
    expect(results[2]).toMatchObject({ dns: 'none' });
    expect(results[3]).toMatchObject({ dns: 'resolves' });
    expect(results[4]).toMatchObject({ domain: IDN, expires: expect.any(String) });
    expect(results[5]).toMatchObject({ domain: null, reason: 'ip_address' });
    expect(body.data.counts).toEqual({ registered: 2, likely_available: 2, no_registry_record: 1, unknown: 0, invalid: 2, duplicates: 1 });
    // taken-name-wds-e2e.com, free-name-1.com, ghost-site.net, the IDN, nobody-has-this.io.
    expect(body.data.answered).toBe(5);
    expect(body.data.cost.credits).toBe(5);
  });

  it('reads names without a record as no_registry_record when DNS is not asked', async () => {
    const queries = dns.queries;
    const { body } = await post('/v1/domain/screen', { domains: ['free-name-1.com', 'taken-name-wds-e2e.com'], dns: false });
    expect(body.data.results.map((r: { status: string }) => r.status)).toEqual(['no_registry_record', 'registered']);
    expect(dns.queries).toBe(queries);
  });

  it('reads names as unknown when the registry does not answer, and charges nothing for them', async () => {
    rdap.setMode('error');
    try {
      const { status, body } = await post('/v1/domain/screen', { domains: ['taken-name-wds-e2e.com', 'free-name-1.com', 'not a name'] });
      expect(status).toBe(200);
      expect(body.data.results.map((r: { status: string }) => r.status)).toEqual(['unknown', 'unknown', 'invalid']);
      expect(body.data.results[0].error).toMatchObject({ code: 'registry_unavailable' });
      expect(body.data.cost.credits).toBe(0);
    } finally {
      rdap.setMode('ok');
    }
  });

  it('refuses an empty list and more than 500 names with 422', async () => {
    expect((await post('/v1/domain/screen', { domains: [] })).status).toBe(422);
    expect((await post('/v1/domain/screen', { domains: Array.from({ length: 501 }, (_, i) => `n${i}.com`) })).status).toBe(422);
  });
});

describe('e2e/domains: POST /v1/domain/report and /v1/domain/history/snapshots', () => {
  it('answers a quick report: registration, DNS, mail, today\'s website, no archive', async () => {
    const { status, body } = await post('/v1/domain/report', { domain: 'quiet-garden-wds-e2e.org', depth: 'quick' });
    expect(status, JSON.stringify(body)).toBe(200);
    const data = body.data;
    expect(data).toMatchObject({ domain: 'quiet-garden-wds-e2e.org', depth: 'quick', snapshots: 0, verifyLinks: 0 });
    expect(data.evidence.mail).toEqual({ mx: [{ exchange: 'mail.quiet-garden-wds-e2e.org', priority: 10 }], spf: 'v=spf1 mx -all', dmarc: 'v=DMARC1; p=reject' });
    expect(data.evidence.history).toBeNull();
    expect(data.evidence.backlinks).toBeNull();
    // The made-up domain does not resolve for the fetcher: today's website is an error, not a failure.
    expect(data.evidence.website).toBeNull();
    expect(data.errors).toEqual([expect.objectContaining({ section: 'website', code: expect.any(String) })]);
    expect(data.concerns).toEqual([]);
    expect(data.findings.map((f: { topic: string }) => f.topic)).toEqual(['registration', 'dns', 'mail']);
    expect(data.questions.length).toBeGreaterThanOrEqual(2);
    expect(data.cost.credits).toBe(2);
  });

  it('answers a buyer report with its concerns, each with evidence, and leaves held-back years pending', async () => {
    // The 2012 snapshot is held back past the report's budget.
    archive.held.add(2012);
    const { status, body } = await post('/v1/domain/report', { domain: 'https://acme-widgets-wds-e2e.com/', depth: 'buyer' }).finally(() => archive.held.clear());
    expect(status, JSON.stringify(body)).toBe(200);
    const data = body.data;
    expect(data).toMatchObject({ domain: 'acme-widgets-wds-e2e.com', depth: 'buyer', snapshots: 6, verifyLinks: 20, reportId: expect.stringMatching(/^rep_/) });
    const history = data.evidence.history;
    expect(history.captures).toHaveLength(13);
    expect(history.pending).toEqual([2012]);
    expect(history.snapshots.map((s: { year: number }) => s.year)).toEqual([2024, 2022, 2019, 2017, 2014]);
    const rules = data.concerns.map((c: { rule: string }) => c.rule);
    expect(rules).toEqual(expect.arrayContaining(['recent_transfer', 'expiring_soon', 'spam_history', 'owner_changed', 'registration_after_history', 'mail_records_missing']));
    for (const c of data.concerns) expect(c.evidence.length, c.rule).toBeGreaterThan(0);
    const spam = data.concerns.find((c: { rule: string }) => c.rule === 'spam_history');
    expect(spam.evidence.map((e: { year: number }) => e.year).sort()).toEqual([2017, 2019]);
    expect(spam.evidence[0].url).toContain(`${archive.url}/web/`);
    expect(data.questions.some((q: { concern: string }) => q.concern === 'recent_transfer')).toBe(true);
    expect(data.evidence.backlinks.totalReferringDomains).toBe(3);
    expect(data.evidence.links).toMatchObject({ checked: 3, linking: 3, missing: 0 });
    // buyer's flat price; its 6 snapshots are included.
    expect(data.cost.credits).toBe(25);
  }, 60_000);

  it('keeps archived pages out of the link graph: their links are the past\'s', async () => {
    const { body } = await post('/v1/domain', { domain: 'casino-partner.com', registration: false, dns: false });
    expect(body.data.backlinks.totalReferringDomains).toBe(0);
  });

  it('loads the pending year free (included, within 7 days), then answers it from the store', async () => {
    const first = await post('/v1/domain/history/snapshots', { domain: 'acme-widgets-wds-e2e.com' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const loaded = first.body.data.snapshots as { year: number; charge: string; title: string }[];
    expect(loaded.find((s) => s.year === 2012)).toMatchObject({ charge: 'included', title: 'Acme Widgets | Handmade brass widgets' });
    expect(loaded.filter((s) => s.year !== 2012).every((s) => s.charge === 'stored')).toBe(true);
    expect(first.body.data.pending).toEqual([]);
    expect(first.body.data.cost.credits).toBe(0);
    const again = await post('/v1/domain/history/snapshots', { domain: 'acme-widgets-wds-e2e.com', years: [2012] });
    expect(again.body.data.snapshots).toEqual([expect.objectContaining({ year: 2012, charge: 'stored' })]);
    expect(again.body.data.cost.credits).toBe(0);
  });

  it('charges 1 credit a year beyond the report\'s, and names years the archive never captured', async () => {
    const { body } = await post('/v1/domain/history/snapshots', { domain: 'acme-widgets-wds-e2e.com', years: [2013, 2015, 1999] });
    expect(body.data.snapshots.map((s: { year: number; charge: string }) => [s.year, s.charge])).toEqual([
      [2015, 'loaded'],
      [2013, 'loaded'],
    ]);
    expect(body.data.unavailable).toEqual([1999]);
    expect(body.data.cost.credits).toBe(2);
  });

  it('reuses the stored snapshots in a later report, and charges a snapshot beyond those included', async () => {
    const requests = wayback.requests.filter((r) => r.path.startsWith('/web/')).length;
    const { body } = await post('/v1/domain/report', { domain: 'acme-widgets-wds-e2e.com', depth: 'buyer', snapshots: 7, verifyLinks: 0 });
    expect(body.data.evidence.history.pending).toEqual([]);
    // 7 years planned: 2012, 2014, 2016, 2018, 2020, 2022, 2024; 2012, 2014, 2022, 2024 are stored.
    // The buyer report's held-back read of 2012 may still reach the archive this late (its fetch
    // is tried again within its own deadline, which a loaded machine stretches): 2012's request is
    // no evidence either way, so the charge below is what shows 2012 came from the store.
    const read = wayback.requests.filter((r) => r.path.startsWith('/web/')).map((r) => r.path.slice(5, 9));
    expect(read.slice(requests).filter((year) => year !== '2012').sort()).toEqual(['2016', '2018', '2020']);
    // The 7th planned year (the oldest, 2012) is beyond buyer's 6 but stored: free (read again, it would be an extra credit).
    expect(body.data.cost.credits).toBe(25);
    expect(body.data.evidence.history.snapshots.map((s: { year: number }) => s.year)).toContain(2012);
  });

  it('keeps reports and snapshots per key: another key gets a 404 for snapshots, and pays for its own', async () => {
    const { status, body } = await post('/v1/domain/history/snapshots', { domain: 'acme-widgets-wds-e2e.com' }, otherKey);
    expect(status).toBe(404);
    expect(body.error.code).toBe('not_found');
    // The first key's stored 2024 snapshot is not the other key's: beyond quick's none included, it costs 1.
    const report = await post('/v1/domain/report', { domain: 'acme-widgets-wds-e2e.com', depth: 'quick', snapshots: 1 }, otherKey);
    expect(report.body.data.evidence.history.snapshots.map((s: { year: number }) => s.year)).toEqual([2024]);
    expect(report.body.data.cost.credits).toBe(2 + 1);
    const again = await post('/v1/domain/history/snapshots', { domain: 'acme-widgets-wds-e2e.com', snapshots: 1 }, otherKey);
    expect(again.body.data.snapshots).toEqual([expect.objectContaining({ year: 2024, charge: 'stored' })]);
    expect(again.body.data.reportId).toBe(report.body.data.reportId);
  });

  it('finds a link that is gone, and a parked domain by its name servers', async () => {
    links.linking = false;
    try {
      const { body } = await post('/v1/domain/report', { domain: 'acme-widgets-wds-e2e.com', depth: 'quick', verifyLinks: 5 });
      expect(body.data.evidence.links).toMatchObject({ checked: 3, linking: 2, missing: 1 });
      expect(body.data.evidence.links.pages.find((p: { status: string }) => p.status === 'missing').sourceUrl).toBe(links.url(2));
    } finally {
      links.linking = true;
    }
    const parked = await post('/v1/domain/report', { domain: 'parked-lot-wds-e2e.net', depth: 'quick' });
    expect(parked.body.data.concerns).toEqual([expect.objectContaining({ rule: 'parked_or_for_sale', text: expect.stringContaining('parking service'), evidence: expect.arrayContaining([expect.objectContaining({ kind: 'dns', value: 'ns1.sedoparking.com' })]) }), expect.objectContaining({ rule: 'mail_records_missing' })]);
  });

  it('charges nothing for a report none of whose sources answered', async () => {
    rdap.setMode('error');
    dns.setMode('silent');
    try {
      const { status, body } = await post('/v1/domain/report', { domain: 'quiet-garden-wds-e2e.org', depth: 'quick' });
      expect(status).toBe(200);
      expect(body.data.evidence).toEqual({ registration: null, dns: null, mail: null, website: null, history: null, backlinks: null, links: null });
      expect(body.data.errors.map((e: { section: string }) => e.section).sort()).toEqual(['dns', 'registration', 'website']);
      expect(body.data.cost.credits).toBe(0);
    } finally {
      rdap.setMode('ok');
      dns.setMode('ok');
    }
  });

  it('answers a report whose archive is down with the history in errors, still charging the depth', async () => {
    wayback.setMode('error');
    try {
      const { status, body } = await post('/v1/domain/report', { domain: 'taken-name-wds-e2e.com', depth: 'buyer', verifyLinks: 0 });
      expect(status).toBe(200);
      expect(body.data.evidence.history).toBeNull();
      expect(body.data.errors).toEqual(expect.arrayContaining([expect.objectContaining({ section: 'history', code: 'archive_unavailable' })]));
      expect(body.data.cost.credits).toBe(25);
    } finally {
      wayback.setMode('ok');
    }
  });
});
