/**
 * pipeline/runtime/net/http.ts (the fetcher's HTTP stack) against local fixture sites (test/helpers/fixture-site.ts) on
 * 127.0.0.1: `allowPrivate: true` reaches them, except in the SSRF suite, which allow-lists
 * 127.0.0.1 alone and checks that redirects and rebinding into other addresses are refused.
 *
 * Every case runs twice: through got-scraping, and with every request `lean` (lean-hop.ts,
 * node:http itself): the guard, redirects, caps, timeouts, retries, charsets, decoding, proxies
 * and error codes must be the same on both paths.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchRaw } from '../../actors/fetcher/raw.js';
import { HttpFetcher, type FetchRequest, type HttpFetcherOptions } from '../../pipeline/runtime/net/http.js';
import { NetGuard, type Resolver } from '../../pipeline/runtime/net/guard.js';
import { CYRILLIC, JAPANESE, LATIN1, PAGE, startFixtureSite, startForwardProxy, type FixtureSite, type ForwardProxy } from '../helpers/fixture-site.js';
import { startTrapSite } from '../helpers/trap-site.js';

const MIB = 1024 * 1024;

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error('expected the fetch to fail');
}

describe.each([{ lean: false }, { lean: true }])('pipeline/runtime/net/http (lean: $lean)', ({ lean }) => {
  /** The stack under test: an HttpFetcher whose every request is `lean`, or none. */
  const stack = (options: HttpFetcherOptions): HttpFetcher => {
    const made = new HttpFetcher(options);
    if (!lean) return made;
    const fetch = made.fetch.bind(made);
    made.fetch = (request) => fetch({ ...request, lean: true });
    return made;
  };
  let site: FixtureSite;
  let fetcher: HttpFetcher;
  const get = (path: string, extra: Partial<FetchRequest> = {}) => fetcher.fetch({ url: site.url(path), timeoutMs: 5000, ...extra });

  beforeAll(async () => {
    site = await startFixtureSite();
    fetcher = stack({ guard: new NetGuard({ allowPrivate: true }), retry: { attempts: 3, baseDelayMs: 5, maxDelayMs: 20 } });
  });
  afterAll(async () => {
    fetcher.close();
    await site.close();
  });

  describe('encodings', () => {
    it('windows-1251 declared by the Content-Type header', async () => {
      const page = await get('/cp1251');
      expect(page.text()).toMatchObject({ charset: 'windows-1251', source: 'header' });
      expect(page.text().text).toContain(CYRILLIC);
      expect(page.body.includes(Buffer.from(CYRILLIC))).toBe(false); // raw bytes kept as sent
    });

    it('shift_jis declared only by <meta charset>', async () => {
      const page = await get('/sjis');
      expect(page.contentType).toBe('text/html');
      expect(page.text()).toMatchObject({ charset: 'shift_jis', source: 'meta' });
      expect(page.text().text).toContain(JAPANESE);
    });

    it('ISO-8859-1 declared by http-equiv, no BOM', async () => {
      const page = await get('/latin1');
      expect(page.text().source).toBe('meta');
      expect(page.text().text).toContain(LATIN1);
    });

    it('a UTF-8 BOM page with no charset anywhere', async () => {
      const page = await get('/utf8-bom');
      expect(page.text()).toMatchObject({ charset: 'utf-8', source: 'bom' });
      expect(page.text().text.startsWith('<!doctype html>')).toBe(true);
      expect(page.body.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    });
  });

  describe('compression', () => {
    it.each(['/gzip', '/br', '/deflate'])('decodes %s bodies', async (path) => {
      const page = await get(path);
      expect(page.text().text).toContain(CYRILLIC);
      expect(page.headers['content-encoding']).toBeUndefined();
    });

    it('refuses a body encoded twice (gzip, gzip) as unsupported_content, not its compressed bytes as the page', async () => {
      expect(await failure(get('/gzip-twice'))).toMatchObject({ code: 'unsupported_content', message: expect.stringContaining('encoded more than once (Content-Encoding: gzip, gzip)') });
    });
  });

  describe('redirects', () => {
    it('follows 301 → 302 → 200 and reports the final URL', async () => {
      const page = await get('/redirect/chain');
      expect(page.statusCode).toBe(200);
      expect(page.finalUrl).toBe(site.url('/html'));
      expect(page.redirects).toEqual([site.url('/redirect/step2'), site.url('/html')]);
      expect(page.body.toString()).toBe(PAGE);
    });

    it('refuses a loop', async () => {
      expect((await failure(get('/redirect/loop-a'))).code).toBe('too_many_redirects');
    });

    it('refuses a self-redirect, one to itself with a fragment, and a loop through an absolute URL, asking each URL once', async () => {
      const traps = await startTrapSite();
      try {
        for (const path of ['/loop/self', '/loop/fragment', '/loop/a']) {
          traps.requests.length = 0;
          const failed = await failure(fetcher.fetch({ url: traps.url(path), timeoutMs: 5000 }));
          expect(failed.code, path).toBe('too_many_redirects');
          expect(failed.message).toMatch(/redirect loop/);
          expect(traps.requests, path).toEqual(path === '/loop/a' ? ['/loop/a', '/loop/b'] : [path]);
        }
        // A redirect to a new URL every time is no loop: it ends at the hop limit.
        traps.requests.length = 0;
        const endless = await failure(fetcher.fetch({ url: traps.url('/loop/session'), timeoutMs: 5000 }));
        expect(endless.code).toBe('too_many_redirects');
        expect(endless.message).toMatch(/more than 10 redirects/);
        expect(traps.requests).toHaveLength(11);
      } finally {
        await traps.close();
      }
    });

    it('follows 10 hops and refuses the 11th', async () => {
      expect((await get('/redirect/many?n=10')).statusCode).toBe(200);
      expect((await failure(get('/redirect/many?n=11'))).code).toBe('too_many_redirects');
    });

    it('refuses a redirect to a non-http scheme', async () => {
      expect((await failure(get('/redirect/to?url=file:///etc/passwd'))).code).toBe('url_blocked');
    });

    it('refuses a redirect to a host that can be no DNS name before the cookie jar reads it (its host patterns are quadratic over dots)', async () => {
      const target = encodeURIComponent(`http://a${'.'.repeat(12_000)}b/`);
      const failed = await failure(get(`/redirect/to?url=${target}`));
      expect(failed.code).toBe('url_blocked');
      expect(failed.message).toBe('refused to fetch a URL whose host is not a DNS name: 12002 characters, over 253');
    });
  });

  describe('statuses', () => {
    it.each([404, 500, 503])('a %i page is a fetched page with its status', async (status) => {
      const page = await get(`/status/${status}`);
      expect(page.statusCode).toBe(status);
      expect(page.body.toString()).toContain(`status ${status}`);
    });
  });

  describe('size cap', () => {
    it('fetches a 10 MB page intact under the 15 MB cap', async () => {
      const page = await get('/big?mb=10');
      expect(page.body.length).toBe(10 * MIB);
      expect(page.body.every((b) => b === 0x61)).toBe(true);
    });

    it('refuses a declared 16 MB page before reading it', async () => {
      const { code } = await failure(get('/big?mb=16'));
      expect(code).toBe('content_too_large');
      const stream = site.streams.at(-1);
      expect(stream?.finished).toBe(false);
    });

    it('aborts a stream without Content-Length once it passes the cap', async () => {
      // 64 MiB against a 512 KiB cap: far more than loopback socket buffers hold, so the server
      // can only have finished writing if the client read on past the cap.
      const { code } = await failure(get('/big-chunked?mb=64', { maxBytes: 512 * 1024 }));
      expect(code).toBe('content_too_large');
      const stream = site.streams.at(-1);
      for (let i = 0; i < 100 && !stream?.aborted; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stream?.aborted).toBe(true);
      expect(stream?.written).toBeLessThan(64 * MIB);
    });

    it('takes a lower cap per request and from the constructor', async () => {
      expect((await failure(get('/big?mb=1', { maxBytes: 1000 }))).code).toBe('content_too_large');
      const small = stack({ guard: new NetGuard({ allowPrivate: true }), maxBytes: 50 });
      expect((await failure(small.fetch({ url: site.url('/html'), timeoutMs: 5000 }))).code).toBe('content_too_large');
      small.close();
    });
  });

  describe('timeouts and retries', () => {
    it('a slow body past the timeout is fetch_timeout', async () => {
      // The body would be whole after 5 s: the code says the 1 s timeout cut it.
      const { code } = await failure(get('/slow?ms=5000', { timeoutMs: 1000 }));
      expect(code).toBe('fetch_timeout');
    });

    it("keeps nothing of a finished fetch made with a caller's signal, and the signal still stops one", async () => {
      // Node 20 kept every AbortSignal.any composite that got had put a listener on, with its
      // request and body (~45 KB per crawled page). The fetch now forwards the caller's
      // signal to its own controller and lets go of it when done.
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      const caller = new AbortController();
      const bodies: WeakRef<Buffer>[] = [];
      for (let i = 0; i < 20; i++) {
        const page = await get('/big?mb=1', { signal: caller.signal });
        expect(page.body.length).toBe(MIB);
        bodies.push(new WeakRef(page.body));
      }
      // Collected once nothing holds them; the leak held every one.
      for (let i = 0; i < 10 && bodies.some((b) => b.deref()); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        gc();
      }
      expect(bodies.filter((b) => b.deref()).length).toBeLessThanOrEqual(1); // the last may still be in scope
      const started = get('/slow?ms=5000', { signal: caller.signal });
      setTimeout(() => caller.abort(new Error('caller gone')), 100);
      expect((await failure(started)).message).toBe('caller gone');
    });

    it('slow headers past the timeout are fetch_timeout', async () => {
      expect((await failure(get('/slow-headers?ms=5000', { timeoutMs: 1000 }))).code).toBe('fetch_timeout');
    });

    it('retries a reset connection and succeeds', async () => {
      const page = await get('/flaky?key=once&fail=2');
      expect(page.statusCode).toBe(200);
      expect(site.requests.filter((r) => r.path === '/flaky?key=once&fail=2')).toHaveLength(3);
    });

    it('gives up after its attempts with upstream_error', async () => {
      expect((await failure(get('/flaky?key=always&fail=99'))).code).toBe('upstream_error');
      expect(site.requests.filter((r) => r.path === '/flaky?key=always&fail=99')).toHaveLength(3);
    });

    it('a refused connection is connection_refused', async () => {
      const closed = await startFixtureSite();
      const url = closed.url('/html');
      await closed.close();
      expect((await failure(fetcher.fetch({ url, timeoutMs: 5000 }))).code).toBe('connection_refused');
    });

    it('a name that does not resolve is dns_failed', async () => {
      const nx = stack({ guard: new NetGuard({ allowPrivate: true, resolve: async () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })) }) });
      expect((await failure(nx.fetch({ url: 'http://nowhere.test/', timeoutMs: 5000 }))).code).toBe('dns_failed');
      nx.close();
    });
  });

  describe('content types', () => {
    it('refuses binary types before reading the body', async () => {
      expect((await failure(get('/png'))).code).toBe('unsupported_content');
      expect((await failure(get('/binary-no-type'))).code).toBe('unsupported_content');
    });

    it('passes PDF only when asked to', async () => {
      expect((await failure(get('/pdf'))).code).toBe('unsupported_content');
      expect((await get('/pdf', { content: { pdf: true } })).contentType).toBe('application/pdf');
    });

    it('sniffs a body that declares no type', async () => {
      expect((await get('/no-type')).contentType).toBe('text/html');
    });

    it('fetchRaw returns any type, bytes intact', async () => {
      const raw = await fetchRaw(fetcher, site.url('/png'), { timeoutMs: 5000 });
      expect(raw).toMatchObject({ statusCode: 200, contentType: 'image/png', finalUrl: site.url('/png') });
      expect(raw.body).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]));
    });
  });

  describe('request headers', () => {
    const echo = async (extra: Partial<FetchRequest>) => JSON.parse((await get('/echo', extra)).body.toString()).headers as Record<string, string>;

    it('sends a browser header set and keeps reserved headers', async () => {
      const headers = await echo({
        headers: { 'User-Agent': 'curl/8', 'Sec-Fetch-Mode': 'cors', 'sec-ch-ua': 'x', 'Accept-Encoding': 'zstd', 'X-Custom': 'kept', Cookie: 'a=1' },
      });
      expect(headers['user-agent']).toMatch(/^Mozilla\/5\.0/);
      expect(headers['sec-fetch-mode'] ?? 'navigate').not.toBe('cors');
      expect(headers['sec-ch-ua'] ?? '').not.toBe('x');
      expect(headers['accept-encoding']).toBe('gzip, deflate, br');
      expect(headers['x-custom']).toBe('kept');
      expect(headers['cookie']).toBe('a=1');
    });

    it(lean ? 'the lean path sends header names as given (node:http itself)' : 'got-scraping sends header names in browser form', async () => {
      const res = await get('/echo', { headers: { accept: 'application/json' } });
      const raw = JSON.parse(res.body.toString()).rawHeaders as string[];
      expect(raw[raw.findIndex((name) => name.toLowerCase() === 'accept') + 1]).toBe('application/json');
      expect(raw).toContain(lean ? 'accept' : 'Accept');
      expect(raw).not.toContain(lean ? 'Accept' : 'accept');
    });

    it('mobile sends a phone user agent; desktop does not', async () => {
      for (let i = 0; i < 5; i++) {
        expect((await echo({ mobile: true }))['user-agent']).toMatch(/Mobile|Android|iPhone/);
        expect((await echo({ mobile: false }))['user-agent']).not.toMatch(/Mobile|Android|iPhone/);
      }
    });

    it('location sets Accept-Language over the caller; languages win over the country', async () => {
      expect((await echo({ location: { country: 'DE' }, headers: { 'Accept-Language': 'fr' } }))['accept-language']).toBe('de-DE,de;q=0.9');
      expect((await echo({ location: { country: 'DE', languages: ['it-IT', 'it'] } }))['accept-language']).toBe('it-IT,it;q=0.9');
      expect((await echo({ headers: { 'Accept-Language': 'fr' } }))['accept-language']).toBe('fr');
    });
  });

  describe('proxies', () => {
    let proxy: ForwardProxy;
    beforeAll(async () => {
      proxy = await startForwardProxy();
    });
    afterAll(async () => {
      await proxy.close();
    });

    it('a configured datacenter pool carries the request, and says so', async () => {
      const proxied = stack({ guard: new NetGuard({ allowPrivate: true }), proxies: { datacenter: [proxy.url] } });
      const page = await proxied.fetch({ url: site.url('/echo'), timeoutMs: 5000, proxy: 'datacenter' });
      expect(page.proxyUsed).toBe('datacenter');
      expect(proxy.seen).toContain(site.url('/echo'));
      expect(JSON.parse(page.body.toString()).headers['x-forwarded-by']).toBe('fixture-proxy');
      const auto = await proxied.fetch({ url: site.url('/html'), timeoutMs: 5000 });
      expect(auto.proxyUsed).toBe('datacenter');
      expect(proxy.seen).toContain(site.url('/html'));
      proxied.close();
    });

    it('auto without pools goes direct and says so', async () => {
      expect((await get('/html')).proxyUsed).toBe('none');
    });

    it('residential with no pool is proxy_unavailable, nothing fetched', async () => {
      const before = site.requests.length;
      expect((await failure(get('/html', { proxy: 'residential' }))).code).toBe('proxy_unavailable');
      expect(site.requests.length).toBe(before);
    });

    it('a country pool serves a located request', async () => {
      const proxied = stack({ guard: new NetGuard({ allowPrivate: true }), proxiesByCountry: { FR: [proxy.url] } });
      const page = await proxied.fetch({ url: site.url('/echo?fr'), timeoutMs: 5000, location: { country: 'fr' }, proxy: 'residential' });
      expect(page).toMatchObject({ proxyUsed: 'residential', proxyCountry: 'FR' });
      expect(proxy.seen).toContain(site.url('/echo?fr'));
      expect(JSON.parse(page.body.toString()).headers['accept-language']).toBe('fr-FR,fr;q=0.9');
      proxied.close();
    });

    it('a proxy that refuses connections is proxy_failed', async () => {
      const gone = await startForwardProxy();
      await gone.close();
      const proxied = stack({ guard: new NetGuard({ allowPrivate: true }), proxies: { datacenter: [gone.url] }, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
      expect((await failure(proxied.fetch({ url: site.url('/html'), timeoutMs: 5000, proxy: 'datacenter' }))).code).toBe('proxy_failed');
      proxied.close();
    });
  });

  describe('SSRF through the real stack', () => {
    let inside: FixtureSite;
    beforeAll(async () => {
      inside = await startFixtureSite('127.0.0.2'); // a "private" host that must never be reached
    });
    afterAll(async () => {
      await inside.close();
    });

    const guarded = (resolve?: Resolver) =>
      stack({ guard: new NetGuard({ allowPrivate: false, allowCidrs: ['127.0.0.1'], ...(resolve ? { resolve } : {}) }) });

    it('refuses the fixture itself without allowPrivate', async () => {
      const strict = stack({ guard: new NetGuard({ allowPrivate: false }) });
      expect((await failure(strict.fetch({ url: site.url('/html'), timeoutMs: 5000 }))).code).toBe('url_blocked');
      strict.close();
    });

    it('refuses a redirect from an allowed server into a refused address', async () => {
      const f = guarded();
      expect((await f.fetch({ url: site.url('/html'), timeoutMs: 5000 })).statusCode).toBe(200);
      const target = encodeURIComponent(inside.url('/html'));
      expect((await failure(f.fetch({ url: site.url(`/redirect/to?url=${target}`), timeoutMs: 5000 }))).code).toBe('url_blocked');
      const metadata = encodeURIComponent('http://169.254.169.254/latest/meta-data/');
      expect((await failure(f.fetch({ url: site.url(`/redirect/to?url=${metadata}`), timeoutMs: 5000 }))).code).toBe('url_blocked');
      expect(inside.requests).toHaveLength(0);
      f.close();
    });

    it('refuses a redirect to a name resolving to a refused address', async () => {
      const f = guarded(async (host) => (host === 'evil.test' ? [{ address: '127.0.0.2', family: 4 }] : Promise.reject(new Error('nx'))));
      const target = encodeURIComponent(`http://evil.test:${inside.port}/html`);
      expect((await failure(f.fetch({ url: site.url(`/redirect/to?url=${target}`), timeoutMs: 5000 }))).code).toBe('url_blocked');
      expect(inside.requests).toHaveLength(0);
      f.close();
    });

    it('connects only to checked addresses: a name rebinding after the check is refused', async () => {
      let calls = 0;
      const f = guarded(async () => [{ address: ++calls === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }]);
      const { code } = await failure(f.fetch({ url: `http://rebind.test:${inside.port}/html`, timeoutMs: 5000 }));
      expect(code).toBe('url_blocked');
      expect(calls).toBeGreaterThanOrEqual(2);
      expect(inside.requests).toHaveLength(0);
      f.close();
    });

    it('never shows userinfo in messages', async () => {
      const strict = stack({ guard: new NetGuard({ allowPrivate: false }) });
      const { message } = await failure(strict.fetch({ url: `http://bob:s3cret@127.0.0.1:${site.port}/`, timeoutMs: 5000 }));
      expect(message).not.toMatch(/s3cret|bob/);
      strict.close();
    });
  });
});
