/**
 * pipeline/runtime/net/http.ts and its cookie jar per fetch, against the
 * local fixture site (test/helpers/fixture-site.ts) on 127.0.0.1 with `allowPrivate: true`.
 * Two hosts for the cross-host cases: 127.0.0.1 and `localhost`, which the guard's resolver
 * sends to 127.0.0.1 too (the same server, another host name to the cookies).
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpFetcher, type FetchRequest } from '../../pipeline/runtime/net/http.js';
import { NetGuard } from '../../pipeline/runtime/net/guard.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { GATED_PAGE, startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';

async function failure(promise: Promise<unknown>): Promise<Error & { code: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { code: string };
  }
  throw new Error('expected the fetch to fail');
}

/** `/cookie/set` setting each of `cookies`, then redirecting to `to`. */
function setThen(cookies: readonly string[], to?: string): string {
  const query = new URLSearchParams(cookies.map((c) => ['c', c]));
  if (to !== undefined) query.set('to', to);
  return `/cookie/set?${query}`;
}

describe('pipeline/runtime/net/http: a cookie jar per fetch', () => {
  let site: FixtureSite;
  let fetcher: HttpFetcher;
  /** `site.url(path)` under the host name `localhost`. */
  let other: (path: string) => string;
  const get = (path: string, extra: Partial<FetchRequest> = {}) => fetcher.fetch({ url: site.url(path), timeoutMs: 5000, ...extra });
  /** The Cookie header of each request the site received for `path` since `from`. */
  const cookiesSent = (path: string, from = 0) => site.requests.slice(from).filter((r) => r.path === path).map((r) => r.headers.cookie ?? null);
  const echoed = (body: Buffer) => (JSON.parse(body.toString()) as { headers: Record<string, string> }).headers.cookie ?? null;

  beforeAll(async () => {
    site = await startFixtureSite();
    other = (path) => `http://localhost:${site.port}${path}`;
    const resolve = async (host: string) => (host === 'localhost' || host === '127.0.0.1' ? [{ address: '127.0.0.1', family: 4 as const }] : Promise.reject(new Error('nx')));
    fetcher = new HttpFetcher({ guard: new NetGuard({ allowPrivate: true, resolve }), retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 20 } });
  });
  afterAll(async () => {
    fetcher.close();
    await site.close();
  });

  it('loads a consent gate that sets a cookie and redirects to itself', async () => {
    const from = site.requests.length;
    const page = await get('/cookie/gate');
    expect(page.statusCode).toBe(200);
    expect(page.body.toString()).toBe(GATED_PAGE);
    expect(page.finalUrl).toBe(site.url('/cookie/gate'));
    expect(page.redirects).toEqual([site.url('/cookie/gate')]);
    expect(cookiesSent('/cookie/gate', from)).toEqual([null, 'consent=1']);
  });

  it('carries a Path=/ cookie along a → b → c, and a narrower path only where it applies', async () => {
    const from = site.requests.length;
    const page = await get('/cookie/chain/a');
    expect(page.statusCode).toBe(200);
    expect(page.body.toString()).toBe(GATED_PAGE);
    expect(page.redirects).toEqual([site.url('/cookie/chain/b'), site.url('/cookie/chain/c')]);
    expect(cookiesSent('/cookie/chain/b', from)).toEqual(['session=abc123']);
    expect(cookiesSent('/cookie/chain/c', from)).toEqual(['session=abc123']);
  });

  it('still refuses a true loop: a self-redirect without cookies, and a gate that never opens', async () => {
    let from = site.requests.length;
    const self = await failure(get('/redirect/self'));
    expect(self.code).toBe('too_many_redirects');
    expect(self.message).toMatch(/redirect loop/);
    expect(cookiesSent('/redirect/self', from)).toEqual([null]);
    // The cookie it sets changes what the URL is asked with once; the second time it is the same.
    from = site.requests.length;
    const stuck = await failure(get('/cookie/always'));
    expect(stuck.code).toBe('too_many_redirects');
    expect(stuck.message).toMatch(/redirect loop/);
    expect(cookiesSent('/cookie/always', from)).toEqual([null, 'n=1']);
  });

  it('keeps the hop limit when the cookies change on every hop', async () => {
    const from = site.requests.length;
    const endless = await failure(get('/cookie/counter'));
    expect(endless.code).toBe('too_many_redirects');
    expect(endless.message).toMatch(/more than 10 redirects/);
    expect(cookiesSent('/cookie/counter', from)).toHaveLength(11);
  });

  it('shares no cookies between fetches: the second one passes the gate again', async () => {
    const from = site.requests.length;
    const first = await get('/cookie/gate');
    const second = await get('/cookie/gate');
    expect(first.redirects).toHaveLength(1);
    expect(second.redirects).toHaveLength(1);
    expect(cookiesSent('/cookie/gate', from)).toEqual([null, 'consent=1', null, 'consent=1']);
    // Fetches running at once each start empty too.
    const at = site.requests.length;
    const pages = await Promise.all([get('/cookie/gate'), get('/cookie/gate'), get('/cookie/chain/a')]);
    expect(pages.map((p) => p.statusCode)).toEqual([200, 200, 200]);
    expect(cookiesSent('/cookie/gate', at).filter((c) => c === null)).toHaveLength(2);
  });

  it("sends the caller's Cookie first, then the jar's", async () => {
    const page = await get(setThen(['s=1; Path=/'], '/echo'), { headers: { cookie: 'pref=dark; lang=fr' } });
    expect(echoed(page.body)).toBe('pref=dark; lang=fr; s=1');
    expect(echoed((await get('/echo', { headers: { Cookie: 'only=caller' } })).body)).toBe('only=caller');
    expect(echoed((await get('/echo')).body)).toBeNull();
  });

  it("never sends host A's cookies, nor the caller's, to host B after a redirect", async () => {
    const from = site.requests.length;
    const back = site.url('/echo');
    const page = await get(setThen(['a=1; Path=/'], other(setThen(['b=1; Path=/'], back))), { headers: { Cookie: 'caller=1' } });
    expect(page.finalUrl).toBe(back);
    expect(page.redirects).toEqual([other(setThen(['b=1; Path=/'], back)), back]);
    const [onB] = site.requests.slice(from).filter((r) => r.headers.host === `localhost:${site.port}`);
    expect(onB?.headers.cookie).toBeUndefined();
    // Back on host A: the caller's and A's cookies, not B's.
    expect(echoed(page.body)).toBe('caller=1; a=1');
  });

  it('refuses a Domain= of another host, and a Secure cookie over http', async () => {
    const page = await get(setThen(['x=1; Domain=localhost; Path=/', 's=1; Secure; Path=/', 'ok=1; Domain=127.0.0.1; Path=/'], '/echo'));
    expect(echoed(page.body)).toBe('ok=1');
  });

  it('removes cookies that Max-Age=0 or a past Expires expire', async () => {
    const expire = setThen(['a=; Max-Age=0; Path=/', 'b=2; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT'], '/echo');
    const page = await get(setThen(['a=1; Path=/', 'b=1; Path=/', 'c=1; Path=/'], expire));
    expect(echoed(page.body)).toBe('c=1');
    const from = site.requests.length;
    await get(setThen(['a=1; Path=/', 'b=1; Path=/', 'c=1; Path=/'], expire));
    expect(cookiesSent(expire, from)).toEqual(['a=1; b=1; c=1']);
  });

  it('puts no cookie into an error or its log line', async () => {
    const lines: string[] = [];
    const log = createLogger(
      'info',
      new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const caller = { Cookie: 'caller=hunter2' };
    const loop = await failure(get(setThen(['jar=s3cr3t; Path=/'], '/cookie/counter'), { headers: caller }));
    const broken = await failure(get(setThen(['jar=s3cr3t; Path=/'], '/flaky?key=cookies&fail=99'), { headers: caller }));
    expect([loop.code, broken.code]).toEqual(['too_many_redirects', 'upstream_error']);
    for (const error of [loop, broken]) {
      log.warn({ code: error.code, err: error }, error.message); // as gateway/replies.ts logs a 5xx
      expect(error.message).not.toMatch(/hunter2|s3cr3t|n=\d/);
    }
    expect(lines.join('')).toContain('upstream_error');
    expect(lines.join('')).not.toMatch(/hunter2|s3cr3t/);
  });
});
