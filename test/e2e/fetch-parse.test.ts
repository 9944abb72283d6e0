/**
 * GET /v1/fetch (gateway → FetchRequested → fetcher → Reply) and POST /v1/parse (gateway →
 * ParseRequested → parser → Reply) through the production actors in embedded mode, against a
 * local fixture site and local forwarding proxies: exact bytes and content types, the size
 * caps, the SSRF guard, proxy pools from PROXY_*_URLS (with credentials that never reach the
 * log), error codes, and what is charged.
 */
import { Writable } from 'node:stream';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '../../pipeline/runtime/log.js';
import { meteredKey as metered, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { minimalDocx, minimalPdf } from '../fixtures/documents/generate.js';
import { BINARY_IMAGE, CYRILLIC, startFixtureSite, startForwardProxy, type FixtureSite, type ForwardProxy } from '../helpers/fixture-site.js';
import { scrape } from '../helpers/scrape.js';

const API_KEY = 'e2e-fetch-parse-key-0123456789';

type Running = Embedded;

const start = (env: Record<string, string>, log?: Logger): Promise<Running> => startEmbedded({ apiKey: API_KEY, env, ...(log ? { log } : {}) });
const stop = (running: Running | undefined): Promise<void> => running?.stop() ?? Promise.resolve();
/** A key with a finite balance, made in the ledger the running service reads. */
const meteredKey = async (dataDir: string, credits: number): Promise<string> => (await metered(dataDir, credits)).key;

async function getFetch(base: string, query: Record<string, string>, key = API_KEY) {
  const res = await fetch(`${base}/v1/fetch?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${key}` } });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, json: () => JSON.parse(bytes.toString('utf8')) as Record<string, any> };
}

async function parse(base: string, file: { name: string; type: string; bytes: Buffer }, key = API_KEY) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  const res = await fetch(`${base}/v1/parse`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** A proxy URL with credentials, for a proxy listening at `url`. */
function withCredentials(url: string, user: string, password: string): string {
  const u = new URL(url);
  u.username = user;
  u.password = password;
  return u.href.replace(/\/$/, '');
}

const PDF = minimalPdf([['Quarterly report', 'Revenue grew by 12% this quarter.'], ['Second page: outlook.']], 'Quarterly Report 2026');
const DOCX = minimalDocx([{ heading: 'Meeting notes' }, { paragraph: 'First point and its detail.' }]);
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const HTML_DOC = Buffer.from(
  '<!doctype html><html><head><title>Uploaded page</title></head><body><main><h1>Release notes</h1><p>Version 2 adds <a href="https://example.com/changes">offline mode</a>.</p></main></body></html>',
);
const UPLOAD_LIMIT_BYTES = 64 * 1024;
const FETCH_MAX_BYTES = 256 * 1024;

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
});

// chdb admits one data directory per process: the services run one after the other.
describe('e2e/fetch and e2e/parse (embedded, production actors)', () => {
  let open: Running;
  beforeAll(async () => {
    open = await start({ FETCH_ALLOW_PRIVATE: 'true', FETCH_MAX_BYTES: String(FETCH_MAX_BYTES), UPLOAD_LIMIT_BYTES: String(UPLOAD_LIMIT_BYTES) });
  });
  afterAll(() => stop(open));

  describe('GET /v1/fetch', () => {
    it('answers the exact bytes with the upstream content type, charged 1 credit in headers', async () => {
      const res = await getFetch(open.base, { url: site.url('/image.png') });
      expect(res.status, res.bytes.subarray(0, 300).toString()).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.bytes.equals(BINARY_IMAGE)).toBe(true);
      expect(res.headers.get('x-upstream-status')).toBe('200');
      expect(res.headers.get('x-final-url')).toBe(site.url('/image.png'));
      expect(res.headers.get('x-credits-charged')).toBe('1');
      expect(res.headers.get('x-credits-remaining')).toBe('unlimited');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe('sandbox');
    });

    it('passes a page in a legacy charset through undecoded, and follows redirects', async () => {
      const cp1251 = await getFetch(open.base, { url: site.url('/cp1251') });
      expect(cp1251.status).toBe(200);
      expect(cp1251.headers.get('content-type')).toBe('text/html; charset=windows-1251');
      expect(iconv.decode(cp1251.bytes, 'windows-1251')).toContain(CYRILLIC);
      expect(cp1251.bytes.includes(Buffer.from(CYRILLIC, 'utf8'))).toBe(false);
      const redirected = await getFetch(open.base, { url: site.url('/redirect/chain') });
      expect(redirected.status).toBe(200);
      expect(redirected.headers.get('x-final-url')).toBe(site.url('/html'));
      expect(redirected.bytes.toString()).toContain('Hello fixture');
    });

    it('answers bytes with no declared type as application/octet-stream', async () => {
      const res = await getFetch(open.base, { url: site.url('/binary-no-type') });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect([...res.bytes]).toEqual([0, 1, 2, 3, 0, 5]);
    });

    it('answers an upstream 404 or 500 with 200, its bytes and x-upstream-status (charged)', async () => {
      for (const code of [404, 500]) {
        const res = await getFetch(open.base, { url: site.url(`/status/${code}`) });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-upstream-status')).toBe(String(code));
        expect(res.bytes.toString()).toContain(`status ${code}`);
        expect(res.headers.get('x-credits-charged')).toBe('1');
      }
    });

    it('refuses a body over FETCH_MAX_BYTES with 502 content_too_large, uncharged', async () => {
      const key = await meteredKey(open.dataDir, 5);
      for (const path of ['/big?mb=1', '/big-chunked?mb=1']) {
        const res = await getFetch(open.base, { url: site.url(path) }, key);
        expect(res.status, path).toBe(502);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.json()).toMatchObject({ success: false, error: { code: 'content_too_large', retriable: false } });
      }
      const ok = await getFetch(open.base, { url: site.url('/html') }, key);
      expect(ok.status).toBe(200);
      expect([ok.headers.get('x-credits-charged'), ok.headers.get('x-credits-remaining')]).toEqual(['1', '4']);
    });

    it('refuses a proxy route with no pool configured with 400 proxy_unavailable, fetch and scrape alike', async () => {
      const before = site.requests.length;
      const fetched = await getFetch(open.base, { url: site.url('/html'), proxy: 'datacenter' });
      expect(fetched.status).toBe(400);
      expect(fetched.json().error.code).toBe('proxy_unavailable');
      const scraped = await scrape(open.base, API_KEY, { url: site.url('/html'), proxy: 'residential' });
      expect(scraped.status).toBe(400);
      expect(scraped.body.error.code).toBe('proxy_unavailable');
      expect(site.requests.length).toBe(before);
    });

    it('answers network failures with their codes', async () => {
      const loop = await getFetch(open.base, { url: site.url('/redirect/loop-a') });
      expect(loop.status).toBe(502);
      expect(loop.json().error.code).toBe('too_many_redirects');
      const dns = await getFetch(open.base, { url: 'http://no-such-host.invalid/' });
      expect(dns.status).toBe(502);
      expect(dns.json().error.code).toBe('dns_failed');
    });

    it('validates the query: url 8 to 2048 characters, a known proxy, a two-letter country', async () => {
      const queries: Record<string, string>[] = [
        { url: 'http://' },
        { url: `http://a.example/${'x'.repeat(2048)}` },
        { url: site.url('/html'), proxy: 'none' },
        { url: site.url('/html'), country: 'deu' },
      ];
      for (const query of queries) {
        const res = await getFetch(open.base, query);
        expect(res.status, JSON.stringify(query).slice(0, 80)).toBe(422);
      }
    });
  });

  describe('POST /v1/parse', () => {
    it('reads a PDF into markdown with its metadata, charged 1 credit', async () => {
      const key = await meteredKey(open.dataDir, 3);
      const { status, body } = await parse(open.base, { name: 'report.pdf', type: 'application/pdf', bytes: PDF }, key);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.data.markdown).toContain('Revenue grew by 12% this quarter.');
      expect(body.data.markdown).toContain('Second page: outlook.');
      expect(body.data.metadata).toMatchObject({ title: 'Quarterly Report 2026', numPages: 2, sourceURL: 'upload://report.pdf', statusCode: 200 });
      expect(body.data.cost).toEqual({ credits: 1, remaining: 2 });
    });

    it('reads a DOCX, and an HTML page (main content), told by type or by extension', async () => {
      const docx = await parse(open.base, { name: 'notes.docx', type: DOCX_TYPE, bytes: DOCX });
      expect(docx.status, JSON.stringify(docx.body)).toBe(200);
      expect(docx.body.data.markdown).toMatch(/Meeting notes/);
      expect(docx.body.data.markdown).toContain('First point and its detail.');
      const html = await parse(open.base, { name: 'page.html', type: '', bytes: HTML_DOC });
      expect(html.status, JSON.stringify(html.body)).toBe(200);
      expect(html.body.data.markdown).toContain('Release notes');
      expect(html.body.data.markdown).toContain('[offline mode](https://example.com/changes)');
      expect(html.body.data.metadata).toMatchObject({ title: 'Uploaded page', contentType: 'text/html', sourceURL: 'upload://page.html' });
    });

    it('answers a file of another type with 415 unsupported_file_type, uncharged', async () => {
      const key = await meteredKey(open.dataDir, 2);
      const { status, body } = await parse(open.base, { name: 'photo.png', type: 'image/png', bytes: BINARY_IMAGE.subarray(0, 4096) }, key);
      expect(status).toBe(415);
      expect(body).toMatchObject({ success: false, error: { code: 'unsupported_file_type', retriable: false } });
      const ok = await parse(open.base, { name: 'a.txt', type: 'text/plain', bytes: Buffer.from('plain words') }, key);
      expect(ok.body.data.cost).toEqual({ credits: 1, remaining: 1 });
    });

    it('answers a damaged PDF with 400 file_unreadable', async () => {
      const broken = Buffer.concat([Buffer.from('%PDF-1.7\n'), BINARY_IMAGE.subarray(8, 2048)]);
      const { status, body } = await parse(open.base, { name: 'broken.pdf', type: 'application/pdf', bytes: broken });
      expect(status, JSON.stringify(body)).toBe(400);
      expect(body.error.code).toBe('file_unreadable');
    });

    it('answers a file over UPLOAD_LIMIT_BYTES with 413 payload_too_large, uncharged', async () => {
      const key = await meteredKey(open.dataDir, 1);
      const big = Buffer.alloc(UPLOAD_LIMIT_BYTES + 1, 'a');
      const { status, body } = await parse(open.base, { name: 'big.txt', type: 'text/plain', bytes: big }, key);
      expect(status).toBe(413);
      expect(body.error.code).toBe('payload_too_large');
      const ok = await parse(open.base, { name: 'small.md', type: 'text/markdown', bytes: Buffer.from('# Small\n\nfits') }, key);
      expect(ok.status).toBe(200);
      expect(ok.body.data.cost).toEqual({ credits: 1, remaining: 0 });
    });
  });
});

describe('e2e/fetch and scrape through configured proxy pools', () => {
  let proxied: Running;
  let datacenter: ForwardProxy;
  let germany: ForwardProxy;
  const lines: string[] = [];

  beforeAll(async () => {
    datacenter = await startForwardProxy();
    germany = await startForwardProxy();
    const gone = await startForwardProxy();
    await gone.close();
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    proxied = await start(
      {
        FETCH_ALLOW_PRIVATE: 'true',
        PROXY_DATACENTER_URLS: withCredentials(datacenter.url, 'dc-user', 'dc-s3cret-pw'),
        PROXY_COUNTRY_URLS: `de=${withCredentials(germany.url, 'de-user', 'de-s3cret-pw')},fr=${withCredentials(gone.url, 'fr-user', 'fr-s3cret-pw')}`,
      },
      createLogger('debug', sink),
    );
  });
  afterAll(async () => {
    await stop(proxied);
    await datacenter?.close();
    await germany?.close();
  });

  it('scrapes with proxy "datacenter" through the configured pool, with its credentials', async () => {
    const { status, body } = await scrape(proxied.base, API_KEY, { url: site.url('/html'), proxy: 'datacenter' });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.markdown).toContain('Hello fixture');
    expect(datacenter.seen).toContain(site.url('/html'));
    const echo = await scrape(proxied.base, API_KEY, { url: site.url('/echo?dc'), proxy: 'datacenter', formats: ['rawHtml'] });
    const headers = JSON.parse(echo.body.data.rawHtml as string).headers as Record<string, string>;
    expect(headers['x-forwarded-by']).toBe('fixture-proxy');
    expect(headers['proxy-authorization']).toBe(`Basic ${Buffer.from('dc-user:dc-s3cret-pw').toString('base64')}`);
  });

  it('fetches bytes through the datacenter pool, by name and by default (auto)', async () => {
    const named = await getFetch(proxied.base, { url: site.url('/image.png?named'), proxy: 'datacenter' });
    expect(named.status).toBe(200);
    expect(named.bytes.equals(BINARY_IMAGE)).toBe(true);
    expect(datacenter.seen).toContain(site.url('/image.png?named'));
    const auto = await getFetch(proxied.base, { url: site.url('/html?auto') });
    expect(auto.status).toBe(200);
    expect(datacenter.seen).toContain(site.url('/html?auto'));
  });

  it('routes a fetch with a country through that country\'s pool', async () => {
    const res = await getFetch(proxied.base, { url: site.url('/html?de'), country: 'de' });
    expect(res.status).toBe(200);
    expect(germany.seen).toContain(site.url('/html?de'));
    expect(datacenter.seen).not.toContain(site.url('/html?de'));
  });

  it('answers 400 proxy_unavailable for a route with no pool, and 502 proxy_failed for a dead proxy', async () => {
    const mobile = await getFetch(proxied.base, { url: site.url('/html?mobile'), proxy: 'mobile' });
    expect(mobile.status).toBe(400);
    expect(mobile.json().error.code).toBe('proxy_unavailable');
    const dead = await getFetch(proxied.base, { url: site.url('/html?fr'), country: 'fr', proxy: 'residential' });
    expect(dead.status).toBe(502);
    expect(dead.json().error).toMatchObject({ code: 'proxy_failed', retriable: true });
    expect(dead.bytes.toString()).not.toContain('s3cret');
  });

  it('never writes a proxy password or user to the log', () => {
    const log = lines.join('');
    expect(log).toContain('fetcher configured');
    expect(log).toContain('proxy_failed');
    for (const secret of ['s3cret', 'dc-user', 'de-user', 'fr-user']) expect(log).not.toContain(secret);
  });
});

describe('e2e/fetch with private addresses not allowed (the default)', () => {
  let closed: Running;
  beforeAll(async () => {
    closed = await start({});
  });
  afterAll(() => stop(closed));

  it('refuses loopback URLs with 403 url_blocked, never reaches them and charges nothing', async () => {
    const key = await meteredKey(closed.dataDir, 1);
    const before = site.requests.length;
    for (const url of [site.url('/image.png'), `http://2130706433:${site.port}/html`, `http://[::1]:${site.port}/html`]) {
      const res = await getFetch(closed.base, { url }, key);
      expect(res.status, url).toBe(403);
      expect(res.json().error.code).toBe('url_blocked');
    }
    expect(site.requests.length).toBe(before);
    const parsed = await parse(closed.base, { name: 'n.txt', type: 'text/plain', bytes: Buffer.from('still has its credit') }, key);
    expect(parsed.body.data.cost).toEqual({ credits: 1, remaining: 0 });
  });
});
