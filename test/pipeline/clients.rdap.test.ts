/**
 * pipeline/clients/rdap.ts against a local RDAP service (test/helpers/fake-rdap.ts) on
 * 127.0.0.1 through the real HTTP stack: a thin registry's record merged with the registrar's
 * it links to, 404 as not_found, reserved and unknown TLDs that never reach a server, the
 * bootstrap file read from RDAP_BOOTSTRAP_URL (once a day, single-flight, the shipped snapshot
 * kept when it fails), RDAP_BASE_URL for every TLD, 429 with Retry-After pausing that registry,
 * the per-registry concurrency limit, and hostile answers (hanging, dripping, huge, deeply
 * nested, not JSON) that end as ServiceErrors within the lookup's budget.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { RdapClient, BOOTSTRAP_RETRY_MS } from '../../pipeline/clients/rdap.js';
import { shippedBootstrap } from '../../pipeline/clients/rdap-bootstrap.js';
import { FAKE_REGISTRAR, startFakeRdap, type FakeRdap } from '../helpers/fake-rdap.js';
import { serviceFailure } from '../helpers/service-error.js';
import { track } from '../helpers/wait.js';

const CTX = { timeoutMs: 5_000 };

/** How `promise` settled: its value or its error. */
async function settled<T>(promise: Promise<T>): Promise<{ value: T | undefined; error: unknown }> {
  try {
    return { value: await promise, error: undefined };
  } catch (error) {
    return { value: undefined, error };
  }
}

/**
 * With fake timers: one turn of the real event loop (the sockets to the local registry are
 * real), then the fake timers due now (the registry answers on a 0 ms timer). No fake time
 * passes. The fake clock moves synchronously only (`advance`): a 0 ms timer set while an
 * asynchronous advance yields to the loop would be put 1 ms later.
 */
async function turn(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  vi.advanceTimersByTime(0);
}

/** Moves the fake clock by `ms`, firing the timers due, then turns the loop once. */
async function advance(ms: number): Promise<void> {
  vi.advanceTimersByTime(ms);
  await turn();
}

/** Turns the loop (see `turn`) until `check` holds; the test's own timeout bounds it. */
async function turnUntil(check: () => boolean): Promise<void> {
  while (!check()) await turn();
}

/** `promise` once it settled, the loop turned meanwhile (see `turn`). */
async function driven<T>(promise: Promise<T>): Promise<T> {
  const state = track(promise);
  await turnUntil(() => state.settled);
  return promise;
}

/**
 * Runs `body` with fake timers (setTimeout and clearTimeout only: Date and the sockets stay
 * real) and a client clock that stands still, so the registry's pause and the lookups'
 * budgets end only when the test moves the fake clock.
 */
async function onFakeTimers(body: (now: () => number) => Promise<void>): Promise<void> {
  const frozen = Date.now();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  try {
    await body(() => frozen);
  } finally {
    vi.useRealTimers();
  }
}

const EXAMPLE = {
  registered: '1995-08-14T04:00:00Z',
  expires: '2027-08-13T04:00:00Z',
  lastChanged: '2026-08-14T07:01:38Z',
  status: ['client delete prohibited', 'client transfer prohibited', 'client update prohibited'],
  nameservers: ['a.iana-servers.net', 'b.iana-servers.net'],
  secureDns: true,
  registrarOnly: ['expires'] as const,
};

let fake: FakeRdap;

beforeAll(async () => {
  fake = await startFakeRdap({
    domains: {
      'example.com': EXAMPLE,
      'moved.com': { registered: '2001-02-03T00:00:00Z', transferred: '2024-05-06T07:08:09Z', registrar: { name: 'Other Registrar AG', ianaId: '4242' }, registrarOnly: ['registrar', 'nameservers'], nameservers: ['ns1.moved.com'] },
      'plain.zzfake': { registered: '2020-01-01T00:00:00Z', expires: '2030-01-01T00:00:00Z', related: false },
      ...Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`name${i}.com`, { registered: '2010-01-01T00:00:00Z', related: false }])),
    },
  });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => {
  fake.setMode('ok');
  fake.setBootstrapMode('ok');
  fake.reset();
});

// A fake-timer test that failed by its timeout is left unfinished: the next test gets real timers.
afterEach(() => {
  vi.useRealTimers();
});

describe('pipeline/clients/rdap: answers', () => {
  it('reads a thin registry and merges the registrar record its related link points to', async () => {
    const client = new RdapClient({ baseUrl: fake.url, bootstrapUrl: null });
    const found = await client.lookup('example.com', CTX);
    expect(found).toEqual({
      outcome: 'found',
      registry: `${fake.url}/`,
      domain: {
        ldhName: 'example.com',
        unicodeName: null,
        handle: expect.stringContaining('DOMAIN-FAKE'),
        registered: '1995-08-14T04:00:00.000Z',
        expires: '2027-08-13T04:00:00.000Z',
        lastChanged: '2026-08-14T07:01:38.000Z',
        transferred: null,
        status: EXAMPLE.status,
        nameservers: EXAMPLE.nameservers,
        registrar: { name: FAKE_REGISTRAR.name, ianaId: FAKE_REGISTRAR.ianaId, url: FAKE_REGISTRAR.url },
        secureDns: true,
        sources: [`${fake.url}/domain/example.com`, `${fake.url}/registrar/domain/example.com`],
      },
    });
    expect(fake.requests).toEqual(['/domain/example.com', '/registrar/domain/example.com']);
  });

  it("takes the registrar's own record for its fields, the registry's for the rest", async () => {
    const client = new RdapClient({ baseUrl: fake.url, bootstrapUrl: null });
    const found = await client.lookup('moved.com', CTX);
    if (found.outcome !== 'found') throw new Error(`expected found, got ${found.outcome}`);
    expect(found.domain.registrar).toEqual({ name: 'Other Registrar AG', ianaId: '4242', url: null });
    expect(found.domain.nameservers).toEqual(['ns1.moved.com']);
    expect(found.domain.transferred).toBe('2024-05-06T07:08:09.000Z');
    expect(found.domain.expires).toBeNull();
  });

  it('answers not_found for a 404, and a registry record alone when there is no related link', async () => {
    const client = new RdapClient({ baseUrl: fake.url, bootstrapUrl: null });
    expect(await client.lookup('nobody-has-this.com', CTX)).toEqual({ outcome: 'not_found', registry: `${fake.url}/` });
    const plain = await client.lookup('plain.zzfake', CTX);
    expect(plain.outcome === 'found' && plain.domain.sources).toEqual([`${fake.url}/domain/plain.zzfake`]);
    expect(fake.requests).toEqual(['/domain/nobody-has-this.com', '/domain/plain.zzfake']);
  });

  it('never sends a reserved or private-use name to a registry, even with RDAP_BASE_URL', async () => {
    const client = new RdapClient({ baseUrl: fake.url, bootstrapUrl: fake.bootstrapUrl });
    for (const name of ['printer.local', 'app.localhost', 'site.test', 'www.example', 'x.invalid', 'svc.internal', 'abc.onion', 'nas.home.arpa', 'router.lan', 'dc.corp', 'tv.home']) {
      expect(await client.lookup(name, CTX), name).toEqual({ outcome: 'no_registry', reason: 'reserved_tld' });
      expect(client.registryFor(name)).toBeNull();
    }
    expect(fake.requests).toEqual([]);
  });

  it('answers unknown_tld for a TLD the bootstrap file does not list, without a request', async () => {
    const client = new RdapClient({ bootstrapUrl: null });
    expect(await client.lookup('shop.zzfake', CTX)).toEqual({ outcome: 'no_registry', reason: 'unknown_tld' });
    expect(client.registryFor('example.com')).toBe('https://rdap.verisign.com/com/v1/');
    expect(client.registryFor('example.org')).toBe('https://rdap.publicinterestregistry.org/rdap/');
    expect(fake.requests).toEqual([]);
  });

  it('refuses what is not a lower-case A-label domain with bad_request, before any request', async () => {
    const client = new RdapClient({ baseUrl: fake.url, bootstrapUrl: null });
    for (const bad of ['Example.com', 'com', 'exa mple.com', '-bad.com', 'a..com', 'ünï.com', `${'a'.repeat(64)}.com`]) {
      await expect(client.lookup(bad, CTX), bad).rejects.toMatchObject({ code: 'bad_request' });
    }
    expect(fake.requests).toEqual([]);
  });

  it('does not follow a related link to another origin on a private address (the guard refuses it)', async () => {
    const registrar = await startFakeRdap({ domains: { 'elsewhere.com': { registered: '2001-01-01T00:00:00Z' } } });
    const registry = await startFakeRdap({ domains: { 'elsewhere.com': { registered: '2001-01-01T00:00:00Z', related: `${registrar.url}/registrar/domain/elsewhere.com` } } });
    try {
      const client = new RdapClient({ baseUrl: registry.url, bootstrapUrl: null });
      const found = await client.lookup('elsewhere.com', CTX);
      expect(found.outcome === 'found' && found.domain.sources).toEqual([`${registry.url}/domain/elsewhere.com`]);
      expect(registrar.requests).toEqual([]);
    } finally {
      await Promise.all([registrar.close(), registry.close()]);
    }
  });
});

describe('pipeline/clients/rdap: bootstrap', () => {
  it('reads RDAP_BOOTSTRAP_URL once before the first lookup, however many run at once', async () => {
    const client = new RdapClient({ bootstrapUrl: fake.bootstrapUrl });
    expect(client.registryFor('plain.zzfake')).toBeNull();
    const answers = await Promise.all(['plain.zzfake', 'example.com', 'name1.com', 'name2.com', 'nobody.zzfake'].map((d) => client.lookup(d, CTX)));
    expect(answers.map((a) => a.outcome)).toEqual(['found', 'found', 'found', 'found', 'not_found']);
    expect(fake.requests.filter((p) => p === '/dns.json')).toHaveLength(1);
    expect(client.registryFor('example.com')).toBe(`${fake.url}/`);
  });

  it('reads it again a day later, not sooner, taking the time from the injected clock', async () => {
    let clock = Date.now();
    const client = new RdapClient({ bootstrapUrl: fake.bootstrapUrl, now: () => clock });
    await client.lookup('name3.com', CTX);
    clock += 23 * 3600_000;
    await client.lookup('name3.com', CTX);
    expect(fake.requests.filter((p) => p === '/dns.json')).toHaveLength(1);
    clock += 2 * 3600_000;
    await client.lookup('name3.com', CTX);
    // The later reads run beside the lookups; wait for it to arrive.
    for (let i = 0; i < 100 && fake.requests.filter((p) => p === '/dns.json').length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(fake.requests.filter((p) => p === '/dns.json')).toHaveLength(2);
  });

  it('keeps the shipped snapshot when the file cannot be read or is not a bootstrap file', async () => {
    for (const mode of ['error', 'not_json', 'empty'] as const) {
      fake.setBootstrapMode(mode);
      const client = new RdapClient({ bootstrapUrl: fake.bootstrapUrl });
      expect(await client.refreshBootstrap({ timeoutMs: 2_000 }), mode).toBe(false);
      expect(client.registryFor('example.com')).toBe('https://rdap.verisign.com/com/v1/');
    }
    const closed = await startFakeRdap({ domains: {} });
    await closed.close();
    const unreachable = new RdapClient({ bootstrapUrl: closed.bootstrapUrl });
    expect(await unreachable.refreshBootstrap({ timeoutMs: 2_000 })).toBe(false);
    expect(unreachable.registryFor('example.org')).toBe(shippedBootstrap().registries.get('org'));
  });

  it('after a failed read, answers from the snapshot and tries again an hour later', async () => {
    fake.setBootstrapMode('error');
    let clock = Date.now();
    const client = new RdapClient({ bootstrapUrl: fake.bootstrapUrl, now: () => clock });
    expect(await client.lookup('plain.zzfake', CTX)).toEqual({ outcome: 'no_registry', reason: 'unknown_tld' });
    expect(await client.lookup('plain.zzfake', CTX)).toEqual({ outcome: 'no_registry', reason: 'unknown_tld' });
    expect(fake.requests).toEqual(['/dns.json']);
    fake.setBootstrapMode('ok');
    clock += BOOTSTRAP_RETRY_MS;
    expect((await client.lookup('plain.zzfake', CTX)).outcome).toBe('found');
    expect(fake.requests).toEqual(['/dns.json', '/dns.json', '/domain/plain.zzfake']);
  });

  it('sends every TLD to RDAP_BASE_URL and never reads the bootstrap file then', async () => {
    const client = new RdapClient({ baseUrl: `${fake.url}/`, bootstrapUrl: fake.bootstrapUrl });
    expect(client.registryFor('example.org')).toBe(`${fake.url}/`);
    expect(await client.lookup('unknown.zzneverlisted', CTX)).toEqual({ outcome: 'not_found', registry: `${fake.url}/` });
    expect(await client.refreshBootstrap({ timeoutMs: 2_000 })).toBe(true);
    fake.reset();
    await client.lookup('name4.com', CTX);
    expect(fake.requests).toEqual(['/domain/name4.com']);
  });
});

describe('pipeline/clients/rdap: limits and failures', () => {
  it('reports a 429 with its Retry-After and pauses that registry: requests wait or fail at once without reaching it', async () => {
    await onFakeTimers(async (now) => {
      const client = new RdapClient({ baseUrl: fake.url, bootstrapUrl: null, now });
      fake.setMode('rate_limited', { times: 1, retryAfterS: 1 });
      const limited = await serviceFailure(driven(client.lookup('name5.com', CTX)));
      expect(limited).toMatchObject({ service: 'rdap', kind: 'rate_limited', retryAfterMs: 1000, status: 429 });
      const seen = fake.requests.length;
      // A budget shorter than the pause is refused at once: settled before any timer fires (its
      // deadline's timer would make it a timeout), the whole pause left, the registry not asked.
      const short = serviceFailure(client.lookup('name6.com', { timeoutMs: 800 }));
      const refusal = track(short);
      await new Promise((resolve) => setImmediate(resolve));
      expect(refusal.settled).toBe(true);
      expect(await short).toMatchObject({ kind: 'rate_limited', retryAfterMs: 1000, status: null });
      expect(fake.requests.length).toBe(seen);
      // A budget longer than the pause waits all of it, then asks.
      const patient = client.lookup('name6.com', CTX);
      const waiting = track(patient);
      await advance(999);
      // Another client's request reaches the registry meanwhile; the waiting one is not sent.
      const other = new RdapClient({ baseUrl: fake.url, bootstrapUrl: null, now });
      expect((await driven(other.lookup('name13.com', CTX))).outcome).toBe('found');
      expect(fake.requests.slice(seen)).toEqual(['/domain/name13.com']);
      expect(waiting.settled).toBe(false);
      await advance(1);
      expect((await driven(patient)).outcome).toBe('found');
      expect(fake.requests.slice(seen)).toEqual(['/domain/name13.com', '/domain/name6.com']);
    });
  });

  it('lets no queued request reach a registry between its 429 and the end of the pause', async () => {
    await onFakeTimers(async (now) => {
      const client = new RdapClient({ baseUrl: fake.url, bootstrapUrl: null, registryConcurrency: 1, now });
      fake.setMode('rate_limited', { times: 1, retryAfterS: 1 });
      const lookups = ['name10.com', 'name11.com', 'name12.com'].map((d) => settled(client.lookup(d, CTX)));
      const first = await driven(lookups[0] as (typeof lookups)[0]);
      expect(first.error).toMatchObject({ kind: 'rate_limited', retryAfterMs: 1000 });
      await advance(999);
      // Another client's request reaches the registry meanwhile; the queued ones are not sent.
      const other = new RdapClient({ baseUrl: fake.url, bootstrapUrl: null, now });
      expect((await driven(other.lookup('name13.com', CTX))).outcome).toBe('found');
      expect(fake.requests).toEqual(['/domain/name10.com', '/domain/name13.com']);
      await advance(1);
      const rest = await driven(Promise.all(lookups.slice(1)));
      expect(rest.map((r) => r.value?.outcome)).toEqual(['found', 'found']);
      expect(fake.requests).toEqual(['/domain/name10.com', '/domain/name13.com', '/domain/name11.com', '/domain/name12.com']);
    });
  });

  it('keeps at most registryConcurrency requests in flight at one registry', async () => {
    const slow = await startFakeRdap({ domains: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`n${i}.com`, { related: false }])), latencyMs: [40, 60] });
    try {
      const client = new RdapClient({ baseUrl: slow.url, bootstrapUrl: null, registryConcurrency: 3 });
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => client.lookup(`n${i}.com`, CTX)));
      expect(answers.every((a) => a.outcome === 'found')).toBe(true);
      expect(slow.maxInFlight).toBe(3);
    } finally {
      await slow.close();
    }
  });

  it('gives up on a registry that never answers, or drips its answer for ever, at the lookup budget', async () => {
    await onFakeTimers(async (now) => {
      const client = new RdapClient({ baseUrl: fake.url, bootstrapUrl: null, now });
      for (const [mode, timeoutMs] of [
        ['hang', 300],
        ['slow', 500],
      ] as const) {
        fake.setMode(mode);
        fake.reset();
        const failure = serviceFailure(client.lookup('name7.com', { timeoutMs }));
        const pending = track(failure);
        await turnUntil(() => fake.requests.length === 1); // the registry holds the request open
        await advance(timeoutMs - 1);
        expect(pending.settled, mode).toBe(false);
        await advance(1);
        expect(await driven(failure), mode).toMatchObject({ kind: 'timeout', message: expect.stringContaining(`did not answer within ${timeoutMs} ms`) });
        expect(fake.requests, mode).toEqual(['/domain/name7.com']);
      }
    });
  });

  it('ends hostile answers as ServiceErrors of their cause, after one request: huge, deeply nested, not JSON, 500', async () => {
    const client = new RdapClient({ baseUrl: fake.url, bootstrapUrl: null });
    const cases = [
      { mode: 'huge', kind: 'unavailable', cause: '(content_too_large)' },
      // Told before it is parsed (service-http.ts); JSON under that depth is walked against 32.
      { mode: 'deep', kind: 'unreadable', cause: 'answered JSON nested deeper than 256 levels' },
      { mode: 'not_json', kind: 'unreadable', cause: 'answered something that is not JSON' },
      // A 200 of `null` is not the 404 that says there is no record.
      { mode: 'null', kind: 'unreadable', cause: 'answered JSON that is not an object' },
      { mode: 'error', kind: 'unavailable', cause: 'answered HTTP 500' },
    ] as const;
    for (const { mode, kind, cause } of cases) {
      fake.setMode(mode);
      fake.reset();
      const failure = await serviceFailure(client.lookup('name8.com', CTX));
      expect(failure.kind, mode).toBe(kind);
      expect(failure.message, mode).toContain(cause);
      // Read once, cut off at its limit: no second request, no wait for another.
      expect(fake.requests, mode).toEqual(['/domain/name8.com']);
    }
    fake.setMode('ok');
    expect((await client.lookup('name8.com', CTX)).outcome).toBe('found');
  });

  it('keeps the registry record when the registrar it links to fails', async () => {
    const client = new RdapClient({ baseUrl: fake.url, bootstrapUrl: null });
    for (const mode of ['error', 'not_json', 'deep'] as const) {
      fake.setMode(mode, { paths: 'registrar' });
      const found = await client.lookup('example.com', CTX);
      if (found.outcome !== 'found') throw new Error(`expected found, got ${found.outcome}`);
      expect(found.domain.sources, mode).toEqual([`${fake.url}/domain/example.com`]);
      expect(found.domain.registered).toBe('1995-08-14T04:00:00.000Z');
      expect(found.domain.expires).toBeNull();
    }
    expect(fake.requests.filter((p) => p.startsWith('/registrar/'))).toHaveLength(3);
  });

  it('stops when the caller aborts', async () => {
    const client = new RdapClient({ baseUrl: fake.url, bootstrapUrl: null });
    fake.setMode('hang');
    const controller = new AbortController();
    const pending = client.lookup('name9.com', { timeoutMs: 5_000, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(pending).rejects.toThrow('caller gave up');
  });
});
