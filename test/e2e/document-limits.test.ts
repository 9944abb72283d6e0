/**
 * Hostile documents through the whole service (embedded mode, production actors, the gateway
 * on a real socket), as issue 27 sent them: POST /v1/parse of a PDF of 100,000 pages under one
 * /Pages node (sent as text/html), of a DOCX zip bomb and of a PDF Flate bomb, and a scrape of
 * a Flate-bomb PDF page from a local site. Each is answered — the first pages with a `warning`,
 * or 422 `file_too_complex`, each by the limit meant for it — while GET /v1/templates, asked
 * again and again throughout, keeps being answered before the document is; the next ordinary
 * upload is read; and the heap of the process that runs it all comes back near where it
 * started. DOCUMENT_TIMEOUT_MS is 10 s here (the 100,000-page PDF answers at three quarters of
 * it, by its read budget, before that hard limit) to keep the suite short.
 *
 * And pages nested too deep to read (50,000 `<div>`s: minutes for htmlparser2, a stack overflow
 * for every walk of the tree): a scrape answers 502 `page_too_complex` at once, uncharged; an
 * upload 422 `file_too_complex`; a crawl lists the page among its errors and completes; a page
 * 1,000 deep, near the 1,024 limit, is read.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { until } from '../helpers/wait.js';
import { expectResponsive, probing as probingAt } from '../helpers/probe.js';
import { docxBomb, flateBombPdf, manyPagePdf, minimalPdf } from '../fixtures/documents/generate.js';

const API_KEY = 'e2e-document-limits-key-01234';
const MIB = 1024 * 1024;
const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

let svc: Embedded;
let site: http.Server;
let origin = '';
const BOMB_PDF = flateBombPdf(1024 * MIB);
const nested = (levels: number) => `<html><head><title>Nested ${levels}</title></head><body>${'<div>'.repeat(levels)}deep text${'</div>'.repeat(levels)}</body></html>`;
const DEEP = nested(50_000);
const DEEP_PAGES: Record<string, string> = {
  '/deep': DEEP,
  '/near-limit': nested(1_000),
  '/': '<html><body><h1>Home</h1><a href="/deep">deep</a> <a href="/near-limit">near</a></body></html>',
};

beforeAll(async () => {
  site = http.createServer((req, res) => {
    if (req.url === '/bomb.pdf') return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(BOMB_PDF);
    const page = DEEP_PAGES[req.url ?? ''];
    if (page) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    res.writeHead(404).end();
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  // The probes ask back to back while a bomb is refused: far past the default 600 a minute
  // after its burst of 100. Rate limiting is tested in its own suites.
  svc = await startEmbedded({ apiKey: API_KEY, env: { FETCH_ALLOW_PRIVATE: 'true', DOCUMENT_TIMEOUT_MS: '10000', RATE_LIMIT_PER_MINUTE: '12000', RATE_LIMIT_BURST: '1000' } });
});
afterAll(async () => {
  await svc?.stop();
  site?.close();
});

async function parse(file: { name: string; type: string; bytes: Buffer }): Promise<{ status: number; body: Record<string, any> }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name);
  const res = await fetch(`${svc.base}/v1/parse`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` }, body: form });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function call(method: string, path: string, body?: Record<string, unknown>, key = API_KEY): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${svc.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const scrape = (body: Record<string, unknown>, key = API_KEY) => call('POST', '/v1/scrape', body, key);

/** Probes `work` every 50 ms, or back to back for work that answers within a few of those (a bomb's refusal). */
const probing = <T>(work: () => Promise<T>, intervalMs = 50) => probingAt(svc.base, API_KEY, work, intervalMs);
/** What a bomb's refusal says: stopped by the inflation ratio, the limit meant for it. */
const BOMB_REFUSED = /inflates to more than 200 times its compressed \d+ bytes: a compression bomb is not read\.$/;

describe('e2e/document limits (embedded, production actors)', () => {
  it('answers a 100,000-page PDF sent as text/html with its first pages and a warning, while GET /v1/templates keeps answering', async () => {
    const pdf = manyPagePdf(100_000);
    const heapBefore = process.memoryUsage().heapUsed;
    const probed = await probing(() => parse({ name: 'huge.html', type: 'text/html', bytes: pdf }));
    const { result } = probed;
    expect(result.status, JSON.stringify(result.body).slice(0, 300)).toBe(200);
    const doc = result.body.data;
    expect(doc.metadata).toMatchObject({ numPages: 100_000, contentType: 'application/pdf' });
    // Its first pages, stopped by the reader's own limits (the read budget, 7.5 s of 10, or the
    // page limit): a document stopped at the hard limit DOCUMENT_TIMEOUT_MS is a 422 instead.
    expect(doc.warning).toMatch(
      /sent as text\/html but its bytes are a PDF.*; Only the first \d+ of the PDF's 100000 pages were read: (reading stopped after 7\.5 s, three quarters of this instance's time limit for a document|this instance reads at most \d+ pages of a document)\.$/,
    );
    // Probes kept being answered while it was read.
    expectResponsive(probed);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(128 * MIB);
    console.log(JSON.stringify({ case: 'POST /v1/parse 100,000-page PDF', warning: doc.warning, probes: probed.probes, probesWhileRead: probed.during, heapGrowthMb: Math.round((process.memoryUsage().heapUsed - heapBefore) / MIB) }));
  });

  it('answers a DOCX zip bomb and a PDF Flate bomb 422 file_too_complex, and reads the next upload', async () => {
    const bombs = [
      { name: 'bomb.docx', type: DOCX_TYPE, bytes: docxBomb(1024 * MIB) },
      { name: 'bomb.pdf', type: 'application/pdf', bytes: BOMB_PDF },
    ];
    for (const bomb of bombs) {
      const probed = await probing(() => parse(bomb), 0);
      expect(probed.result.status, bomb.name).toBe(422);
      expect(probed.result.body.error).toMatchObject({ code: 'file_too_complex', retriable: false, message: expect.stringMatching(BOMB_REFUSED) });
      expectResponsive(probed);
    }
    const next = await parse({ name: 'ok.pdf', type: 'application/pdf', bytes: minimalPdf([['Read after the bombs']]) });
    expect(next.status).toBe(200);
    expect(next.body.data.markdown).toBe('Read after the bombs');
  });

  it('answers a scrape of a Flate-bomb PDF page 422 file_too_complex', async () => {
    const probed = await probing(() => scrape({ url: `${origin}/bomb.pdf`, parsers: ['pdf'] }), 0);
    expect(probed.result.status, JSON.stringify(probed.result.body).slice(0, 300)).toBe(422);
    expect(probed.result.body.error).toMatchObject({ code: 'file_too_complex', message: expect.stringMatching(BOMB_REFUSED) });
    expectResponsive(probed);
  });
});

describe('e2e/document limits: pages nested too deep to read', () => {
  it('answers a scrape of a page 50,000 elements deep 502 page_too_complex at once, uncharged, and reads one 1,000 deep', async () => {
    const metered = await meteredKey(svc.dataDir, 100);
    const { status, body } = await scrape({ url: `${origin}/deep`, formats: ['markdown', 'html', 'links'], maxAge: 0 }, metered.key);
    expect(status, JSON.stringify(body)).toBe(502);
    expect(body.error).toMatchObject({ code: 'page_too_complex', retriable: false });
    expect(await metered.balance()).toBe(100);
    const near = await scrape({ url: `${origin}/near-limit`, formats: ['markdown'], maxAge: 0 }, metered.key);
    expect(near.status, JSON.stringify(near.body).slice(0, 300)).toBe(200);
    expect(near.body.data.markdown).toBe('deep text');
  });

  it('answers an upload of HTML 50,000 elements deep 422 file_too_complex', async () => {
    const { status, body } = await parse({ name: 'deep.html', type: 'text/html', bytes: Buffer.from(DEEP) });
    expect(status, JSON.stringify(body)).toBe(422);
    expect(body.error.code).toBe('file_too_complex');
  });

  it('lists a page too deep among a crawl\'s errors, and completes with the others', async () => {
    const started = await call('POST', '/v1/crawl', { url: `${origin}/`, ignoreSitemap: true, limit: 10 });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const id = started.body.data.id as string;
    const status = await until(
      'the crawl to end',
      async () => {
        const answer = (await call('GET', `/v1/crawl/${id}`)).body.data;
        return ['completed', 'failed', 'cancelled'].includes(answer.status) ? answer : null;
      },
      60_000,
    );
    expect(status).toMatchObject({ status: 'completed', completed: 2 });
    const errors = await call('GET', `/v1/crawl/${id}/errors`);
    expect(errors.body.data.errors).toEqual([expect.objectContaining({ url: `${origin}/deep`, code: 'page_too_complex' })]);
  });
});
