/**
 * pipeline/clients/dns.ts (Node's c-ares resolver) against a local DNS server on 127.0.0.1
 * speaking real DNS over UDP and TCP (test/helpers/fake-dns.ts): every record type, NXDOMAIN,
 * a type without data, an answer too large for UDP fetched again over TCP, `exists`, and the
 * failures (a server that never answers, SERVFAIL, REFUSED, nothing listening) as ServiceErrors.
 */
import dgram from 'node:dgram';
import { once } from 'node:events';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DnsClient, DNS_TYPES } from '../../pipeline/clients/dns.js';
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js';
import { serviceFailure } from '../helpers/service-error.js';

/** The options of every resolver the client made: what c-ares was told to wait and to try. */
const resolvers = vi.hoisted(() => ({ options: [] as unknown[] }));
vi.mock('node:dns/promises', async (importOriginal) => {
  const dns = await importOriginal<typeof import('node:dns/promises')>();
  class Resolver extends dns.Resolver {
    constructor(options?: ConstructorParameters<typeof dns.Resolver>[0]) {
      super(options);
      resolvers.options.push(options);
    }
  }
  return { ...dns, default: { ...dns, Resolver }, Resolver };
});

const LONG_TXT = `google-site-verification=${'k'.repeat(600)}`;

let fake: FakeDns;

beforeAll(async () => {
  fake = await startFakeDns({
    zones: {
      'example.com': {
        A: ['93.184.215.14', '93.184.215.15'],
        AAAA: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
        MX: [
          { exchange: 'backup.example.com', priority: 20 },
          { exchange: 'Mail.Example.com', priority: 10 },
        ],
        NS: ['a.iana-servers.net', 'b.iana-servers.net'],
        TXT: ['v=spf1 -all', LONG_TXT],
      },
      'address-only.org': { A: ['198.51.100.7'] },
      'bigtxt.net': { TXT: Array.from({ length: 12 }, (_, i) => `record-${i}-${'t'.repeat(120)}`) },
      'empty.io': {},
    },
  });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => fake.setMode('ok'));

describe('pipeline/clients/dns', () => {
  it('reads A, AAAA, MX, NS and TXT over UDP from the configured server', async () => {
    const client = new DnsClient({ servers: [fake.server] });
    const before = fake.queries;
    expect(await client.lookup('example.com', DNS_TYPES)).toEqual({
      outcome: 'found',
      records: {
        A: ['93.184.215.14', '93.184.215.15'],
        AAAA: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
        MX: [
          { exchange: 'mail.example.com', priority: 10 },
          { exchange: 'backup.example.com', priority: 20 },
        ],
        NS: ['a.iana-servers.net', 'b.iana-servers.net'],
        TXT: ['v=spf1 -all', LONG_TXT],
      },
    });
    expect(fake.queries - before).toBeGreaterThanOrEqual(5);
  });

  it('asks again over TCP when the answer does not fit in UDP', async () => {
    const client = new DnsClient({ servers: [fake.server] });
    const tcpBefore = fake.tcpQueries;
    const answer = await client.lookup('bigtxt.net', ['TXT']);
    expect(answer.outcome === 'found' && answer.records.TXT).toHaveLength(12);
    expect(fake.tcpQueries).toBeGreaterThan(tcpBefore);
  });

  it('answers nxdomain for a name that does not exist, and [] for a type without data', async () => {
    const client = new DnsClient({ servers: [fake.server] });
    expect(await client.lookup('nothing-here.com', ['A', 'MX'])).toEqual({ outcome: 'nxdomain' });
    expect(await client.lookup('address-only.org', ['A', 'TXT', 'MX'])).toEqual({
      outcome: 'found',
      records: { A: ['198.51.100.7'], AAAA: [], MX: [], NS: [], TXT: [] },
    });
    expect(await client.lookup('www.example.com', DNS_TYPES)).toEqual({ outcome: 'found', records: { A: [], AAAA: [], MX: [], NS: [], TXT: [] } });
  });

  it('says whether a name has a delegation or an address', async () => {
    const client = new DnsClient({ servers: [fake.server] });
    expect(await client.exists('example.com')).toBe(true);
    expect(await client.exists('address-only.org')).toBe(true);
    expect(await client.exists('empty.io')).toBe(true);
    expect(await client.exists('www.example.com')).toBe(false);
    expect(await client.exists('nothing-here.com')).toBe(false);
  });

  it('reports a server that never answers as timeout, within its tries', async () => {
    const control = new DnsClient({ servers: [fake.server] });
    /** The queries the server got while `run` ran against it silent: counted once it answered a later one (it reads them in order). */
    const queriesDuring = async (run: () => Promise<void>): Promise<number> => {
      fake.setMode('silent');
      const before = fake.queries;
      await run();
      fake.setMode('ok');
      expect(await control.lookup('address-only.org', ['A'])).toMatchObject({ outcome: 'found' });
      return fake.queries - before - 1;
    };
    for (const tries of [1, 2]) {
      resolvers.options.length = 0;
      const client = new DnsClient({ servers: [fake.server], timeoutMs: 150, tries });
      // Each query sent `tries` times, then given up on as a timeout: not asked again, not waited on for ever.
      const lookup = await queriesDuring(async () => {
        expect(await serviceFailure(client.lookup('example.com', ['A']))).toMatchObject({ service: 'dns', kind: 'timeout' });
      });
      expect(lookup, `lookup, ${tries} tries`).toBe(tries);
      const exists = await queriesDuring(async () => {
        expect(await serviceFailure(client.exists('example.com'))).toMatchObject({ kind: 'timeout' });
      });
      expect(exists, `exists, ${tries} tries`).toBe(3 * tries); // NS, SOA and A
      // Its resolvers (checked at start, the lookup's, the exists') waited as long as asked for
      // each try (c-ares doubles it for each further round); the control's are its defaults.
      const controls = { timeout: 2_000, tries: 2 };
      expect(resolvers.options).toEqual([{ timeout: 150, tries }, { timeout: 150, tries }, controls, { timeout: 150, tries }, controls]);
    }
  });

  it('reports SERVFAIL, REFUSED and a port where nothing listens as unavailable', async () => {
    const client = new DnsClient({ servers: [fake.server], timeoutMs: 300, tries: 1 });
    for (const mode of ['servfail', 'refused'] as const) {
      fake.setMode(mode);
      expect(await serviceFailure(client.lookup('example.com', ['A'])), mode).toMatchObject({ kind: 'unavailable' });
    }
    const socket = dgram.createSocket('udp4');
    socket.bind(0, '127.0.0.1');
    await once(socket, 'listening');
    const closedPort = socket.address().port;
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    const nobody = new DnsClient({ servers: [`127.0.0.1:${closedPort}`], timeoutMs: 300, tries: 1 });
    expect(await serviceFailure(nobody.lookup('example.com', ['A']))).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('ECONNREFUSED') });
  });

  it('stops when the caller aborts', async () => {
    const client = new DnsClient({ servers: [fake.server], timeoutMs: 400, tries: 3 });
    fake.setMode('silent');
    const controller = new AbortController();
    const pending = client.lookup('example.com', ['A']);
    const aborted = client.lookup('example.com', ['A'], { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(aborted).rejects.toThrow('caller gave up');
    fake.setMode('ok');
    // Another lookup's queries are its own: the abort did not cancel them.
    expect((await pending).outcome).toBe('found');
  });

  it('takes host:port entries, IPv6 in brackets, and refuses entries that are not', () => {
    expect(() => new DnsClient({ servers: ['127.0.0.1:5353', '[::1]:53', '192.0.2.1'] })).not.toThrow();
    expect(() => new DnsClient({ servers: ['not a server:xx'] })).toThrow(expect.objectContaining({ code: 'bad_request' }));
    expect(() => new DnsClient({ servers: [' '] })).toThrow(expect.objectContaining({ code: 'bad_request' }));
  });

  it('refuses a name that is not a domain name, before any query', async () => {
    const client = new DnsClient({ servers: [fake.server] });
    const before = fake.queries;
    await expect(client.lookup('exa mple.com', ['A'])).rejects.toMatchObject({ code: 'bad_request' });
    await expect(client.exists('')).rejects.toMatchObject({ code: 'bad_request' });
    expect(fake.queries).toBe(before);
  });
});
