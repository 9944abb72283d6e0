import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppError } from '../../pipeline/runtime/errors.js';
import { refusedRange } from '../../pipeline/runtime/net/addresses.js';
import { guardedAgents } from '../../pipeline/runtime/net/agents.js';
import { bareHostname, NetGuard, redactUrl, type ResolvedAddress, type Resolver } from '../../pipeline/runtime/net/guard.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { rejection } from '../helpers/wait.js';

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

const DNS: Record<string, ResolvedAddress[]> = {
  'evil.test': [v4('127.0.0.1')],
  localhost: [v4('127.0.0.1'), v6('::1')],
  'mixed.test': [v4('93.184.216.34'), v4('10.0.0.1')],
  'public.test': [v4('93.184.216.34'), v6('2606:2800:220:1:248:1893:25c8:1946')],
  'v6evil.test': [v6('::1')],
  'meta.test': [v4('169.254.169.254')],
  'mapped.test': [v6('::ffff:192.168.0.1')],
  'empty.test': [],
};

const fakeResolver: Resolver = async (hostname) => {
  const found = DNS[hostname];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};

const guard = new NetGuard({ allowPrivate: false, resolve: fakeResolver });

async function verdict(g: NetGuard, url: string): Promise<string> {
  try {
    await g.check(url);
    return 'allowed';
  } catch (error) {
    return (error as { code: string }).code;
  }
}

const REFUSED: [string, string][] = [
  ['loopback', 'http://127.0.0.1/'],
  ['loopback elsewhere in 127/8', 'http://127.3.2.1:8080/x'],
  ['localhost', 'http://localhost/'],
  ['localhost, trailing dot', 'http://localhost./'],
  ['localhost, upper case', 'http://LOCALHOST:3000/'],
  ['a .localhost name', 'http://app.localhost/'],
  ['private 10/8', 'http://10.0.0.1/'],
  ['private 172.16/12', 'http://172.16.5.4/'],
  ['private 172.31', 'http://172.31.255.255/'],
  ['private 192.168/16', 'http://192.168.1.1/'],
  ['link-local', 'http://169.254.10.20/'],
  ['AWS metadata', 'http://169.254.169.254/latest/meta-data/'],
  ['Alibaba metadata', 'http://100.100.100.200/'],
  ['CGNAT', 'http://100.64.0.1/'],
  ['multicast', 'http://224.0.0.1/'],
  ['broadcast', 'http://255.255.255.255/'],
  ['unspecified', 'http://0.0.0.0/'],
  ['this network 0/8', 'http://0.1.2.3/'],
  ['documentation TEST-NET-1', 'http://192.0.2.1/'],
  ['documentation TEST-NET-3', 'http://203.0.113.9/'],
  ['benchmarking', 'http://198.18.0.1/'],
  ['reserved 240/4', 'http://240.0.0.1/'],
  ['IPv6 loopback', 'http://[::1]/'],
  ['IPv6 unspecified', 'http://[::]/'],
  ['IPv6 link-local', 'http://[fe80::1]/'],
  ['IPv6 unique-local', 'http://[fc00::1]/'],
  ['AWS IPv6 metadata', 'http://[fd00:ec2::254]/'],
  ['IPv6 documentation', 'http://[2001:db8::1]/'],
  ['IPv6 multicast', 'http://[ff02::1]/'],
  ['IPv4-mapped loopback', 'http://[::ffff:127.0.0.1]/'],
  ['IPv4-mapped loopback, long form', 'http://[0:0:0:0:0:ffff:7f00:1]/'],
  ['IPv4-mapped private', 'http://[::ffff:10.0.0.1]/'],
  ['IPv4-translated loopback', 'http://[::ffff:0:127.0.0.1]/'],
  ['NAT64 of private', 'http://[64:ff9b::10.0.0.1]/'],
  ['NAT64 of metadata', 'http://[64:ff9b::a9fe:a9fe]/'],
  ['6to4 of loopback', 'http://[2002:7f00:1::1]/'],
  ['6to4 of private', 'http://[2002:a00:1::1]/'],
  ['Teredo with private client', 'http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/'],
  ['decimal IPv4', 'http://2130706433/'],
  ['hex IPv4 short', 'http://0x7f.1/'],
  ['hex IPv4', 'http://0x7f000001/'],
  ['octal IPv4', 'http://017700000001/'],
  ['short IPv4', 'http://127.1/'],
  ['GCP metadata name', 'http://metadata.google.internal/computeMetadata/v1/'],
  ['GCP metadata name, trailing dot', 'http://metadata.google.internal./'],
  ['name resolving to loopback', 'http://evil.test/'],
  ['name resolving to public and private', 'http://mixed.test/'],
  ['name resolving to IPv6 loopback', 'http://v6evil.test/'],
  ['name resolving to metadata', 'http://meta.test/'],
  ['name resolving to IPv4-mapped private', 'http://mapped.test/'],
  ['userinfo does not help', 'http://user:pw@127.0.0.1/'],
];

const SCHEMES = ['file:///etc/passwd', 'ftp://example.com/', 'gopher://example.com/_x', 'data:text/html,hi', 'javascript:alert(1)', 'ws://example.com/', 'blob:http://x/y'];

const ALLOWED = [
  'http://93.184.216.34/',
  'https://public.test/path?q=1',
  'http://[2606:2800:220:1:248:1893:25c8:1946]/',
  'http://[::ffff:93.184.216.34]/',
  'http://[64:ff9b::5db8:d822]/',
  'http://[2002:5db8:d822::1]/',
  'https://user:secret@public.test/',
  'http://public.test./',
];

describe('pipeline/runtime/net/guard', () => {
  describe('refuses non-public targets', () => {
    it.each(REFUSED)('%s: %s', async (_why, url) => {
      expect(await verdict(guard, url)).toBe('url_blocked');
    });
  });

  it.each(SCHEMES)('refuses the scheme of %s, even with allowPrivate', async (url) => {
    expect(await verdict(guard, url)).toBe('url_blocked');
    expect(await verdict(new NetGuard({ allowPrivate: true, resolve: fakeResolver }), url)).toBe('url_blocked');
  });

  it.each(ALLOWED)('allows public %s', async (url) => {
    expect(await verdict(guard, url)).toBe('allowed');
  });

  it('answers dns_failed for names that do not resolve or have no address', async () => {
    expect(await verdict(guard, 'http://nx.test/')).toBe('dns_failed');
    expect(await verdict(guard, 'http://empty.test/')).toBe('dns_failed');
  });

  it('returns every checked address of a name', async () => {
    const target = await guard.check('https://public.test/');
    expect(target.hostname).toBe('public.test');
    expect(target.addresses.map((a) => a.address)).toEqual(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
  });

  it('turns the address checks off with allowPrivate, not the scheme check', async () => {
    const open = new NetGuard({ allowPrivate: true, resolve: fakeResolver });
    for (const url of ['http://127.0.0.1/', 'http://localhost/', 'http://evil.test/', 'http://[::1]/', 'http://10.0.0.1/']) {
      expect(await verdict(open, url)).toBe('allowed');
    }
  });

  it('lets allow-listed ranges through and keeps the rest refused', async () => {
    const some = new NetGuard({ allowPrivate: false, allowCidrs: ['127.0.0.1', '10.1.0.0/16'], resolve: fakeResolver });
    expect(await verdict(some, 'http://127.0.0.1/')).toBe('allowed');
    expect(await verdict(some, 'http://[::ffff:127.0.0.1]/')).toBe('allowed');
    expect(await verdict(some, 'http://10.1.2.3/')).toBe('allowed');
    expect(await verdict(some, 'http://127.0.0.2/')).toBe('url_blocked');
    expect(await verdict(some, 'http://10.2.0.1/')).toBe('url_blocked');
  });

  it('never puts userinfo in a refusal message', async () => {
    const error = await guard.check('http://alice:hunter2@evil.test/').catch((e: Error) => e);
    expect((error as Error).message).not.toMatch(/hunter2|alice/);
    expect(redactUrl('https://alice:hunter2@example.com/a?b=1')).toBe('https://example.com/a?b=1');
  });

  it('checks scheme, local names and IP literals without DNS (checkWithoutLookup), telling when a lookup is still needed', () => {
    const noDns = new NetGuard({ allowPrivate: false, resolve: async () => Promise.reject(new Error('no lookup expected')) });
    for (const url of ['http://127.0.0.1/', 'http://[::1]:8080/', 'http://2130706433/', 'http://169.254.169.254/', 'http://localhost/', 'http://a.localhost/', 'http://metadata.google.internal/', 'ftp://example.com/']) {
      expect(() => noDns.checkWithoutLookup(url), url).toThrow(expect.objectContaining({ code: 'url_blocked' }));
    }
    expect(noDns.checkWithoutLookup('https://93.184.216.34/x')).toMatchObject({ hostname: '93.184.216.34', needsLookup: false });
    expect(noDns.checkWithoutLookup('https://Example.COM./x')).toMatchObject({ hostname: 'example.com', needsLookup: true });
    const open = new NetGuard({ allowPrivate: true, resolve: fakeResolver });
    expect(open.checkWithoutLookup('http://127.0.0.1/')).toMatchObject({ needsLookup: false });
    expect(open.checkWithoutLookup('http://anything.test/')).toMatchObject({ needsLookup: false });
  });

  it('takes a host name\'s trailing dots off in one pass (/\\.+$/ was quadratic over a long inner run of dots)', async () => {
    // URL parsing keeps such a host (a page's request or a redirect may carry one); 250,000
    // dots before a letter kept the old pattern busy for over a minute.
    const host = `a${'.'.repeat(250_000)}b`;
    expect(bareHostname(new URL(`http://${host}.../x`))).toBe(host);
    // No DNS name is that long: `parse` refuses it before anything else reads it.
    expect(() => guard.checkWithoutLookup(`http://${host.toUpperCase()}/`)).toThrow(/host is not a DNS name: 250002 characters, over 253$/);
    const asked: string[] = [];
    const recording = new NetGuard({ allowPrivate: false, resolve: async (name) => (asked.push(name), [v4('93.184.216.34')]) });
    expect(await recording.addressesOf(`${host}..`)).toEqual([v4('93.184.216.34')]);
    expect(asked).toEqual([host]);
  });

  it('refuses a host that can be no DNS name (too long, an empty label, a label over 63), without quoting it', () => {
    const fault = (url: string) => {
      try {
        guard.parse(url);
        return null;
      } catch (error) {
        return error as AppError;
      }
    };
    const label = 'a'.repeat(63);
    const longest = `${label}.${label}.${label}.${'b'.repeat(61)}`;
    expect(longest).toHaveLength(253);
    for (const ok of [`http://${longest}/`, `http://${longest}./`, 'https://example.com./x', 'http://93.184.216.34/', 'http://[2606:2800:220:1::]/', 'http://xn--bcher-kva.example/']) {
      expect(fault(ok), ok).toBeNull();
    }
    const refused: Array<[string, string]> = [
      [`http://${longest}b/`, '254 characters, over 253'],
      ['http://a..b/', 'an empty label'],
      ['http://.example.com/', 'an empty label'],
      [`http://${label}a.example/`, 'a label of 64 characters, over 63'],
      [`http://x${'.'.repeat(20_000)}y/`, '20002 characters, over 253'],
    ];
    for (const [url, why] of refused) {
      const error = fault(url);
      expect(error?.code, url).toBe('url_blocked');
      expect(error?.message).toBe(`refused to fetch a URL whose host is not a DNS name: ${why}`);
    }
  });

  it('never asks DNS for an empty name (a host of dots only), private addresses allowed or not', async () => {
    const asked: string[] = [];
    const resolve: Resolver = async (name) => (asked.push(name), [v4('93.184.216.34')]);
    for (const allowPrivate of [true, false]) {
      const g = new NetGuard({ allowPrivate, resolve });
      expect((await rejection<AppError>(g.addressesOf('...'))).code).toBe(allowPrivate ? 'dns_failed' : 'url_blocked');
      expect(() => g.parse('http://./')).toThrow(/not a DNS name: an empty label/);
    }
    expect(asked).toEqual([]);
  });

  it('names the refused range', () => {
    expect(refusedRange('127.0.0.1')).toBe('loopback');
    expect(refusedRange('::ffff:10.0.0.1')).toBe('ipv4Mapped(private)');
    expect(refusedRange('169.254.169.254')).toBe('metadata');
    expect(refusedRange('8.8.8.8')).toBeNull();
    expect(refusedRange('4000::1')).toBe('notGlobalUnicast');
  });

  describe('lookup (for agents)', () => {
    const lookup = (g: NetGuard, host: string, options: { all?: boolean; family?: number }) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
        g.lookup(host, options, (error, address, family) => resolve({ error, address, family })),
      );

    it('answers a single address or all of them', async () => {
      expect(await lookup(guard, 'public.test', {})).toMatchObject({ error: null, address: '93.184.216.34', family: 4 });
      expect((await lookup(guard, 'public.test', { all: true })).address).toEqual([
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
      ]);
      expect(await lookup(guard, 'public.test', { family: 6 })).toMatchObject({ address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
    });

    it('refuses names with any refused address', async () => {
      expect((await lookup(guard, 'mixed.test', { all: true })).error?.code).toBe('url_blocked');
      expect((await lookup(guard, 'evil.test', {})).error?.code).toBe('url_blocked');
    });

    it('checks again at connect time: a name that rebinds after the check is refused', async () => {
      let calls = 0;
      const rebinding = new NetGuard({
        allowPrivate: false,
        resolve: async () => (++calls === 1 ? [v4('93.184.216.34')] : [v4('127.0.0.1')]),
      });
      expect(await verdict(rebinding, 'http://rebind.test/')).toBe('allowed');
      expect((await lookup(rebinding, 'rebind.test', { all: true })).error?.code).toBe('url_blocked');
    });
  });

  describe('guarded agents', () => {
    let site: FixtureSite;
    beforeAll(async () => {
      site = await startFixtureSite();
    });
    afterAll(async () => {
      await site.close();
    });

    const get = (agent: http.Agent, url: string) =>
      new Promise<{ status?: number; code?: string }>((resolve) => {
        const request = http.get(url, { agent }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0 });
        });
        request.on('error', (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? 'unknown' }));
      });

    it('refuses an IP-literal host before connecting (Node skips lookup for literals)', async () => {
      const agents = guardedAgents(new NetGuard({ allowPrivate: false }));
      const before = site.requests.length;
      expect(await get(agents.http, site.url('/html'))).toEqual({ code: 'url_blocked' });
      expect(site.requests.length).toBe(before);
      agents.destroy();
    });

    it('refuses a name resolving to a refused address, through lookup', async () => {
      const agents = guardedAgents(new NetGuard({ allowPrivate: false, resolve: fakeResolver }));
      const before = site.requests.length;
      expect(await get(agents.http, `http://evil.test:${site.port}/html`)).toEqual({ code: 'url_blocked' });
      expect(site.requests.length).toBe(before);
      agents.destroy();
    });

    it('connects when allowed', async () => {
      const agents = guardedAgents(new NetGuard({ allowPrivate: true, resolve: fakeResolver }));
      expect(await get(agents.http, `http://evil.test:${site.port}/html`)).toEqual({ status: 200 });
      agents.destroy();
    });
  });
});
