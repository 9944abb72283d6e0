/**
 * Patterns from outside never stall the frontier: a site whose robots.txt holds a rule that
 * takes a backtracking engine exponential time, and a caller's `includePaths: ["(a+)+$"]`,
 * both over pages whose paths are thousands of characters long. Both crawls finish, the
 * service keeps answering other requests while they run, and the rules still decide which
 * pages are taken. Embedded mode, production actors, a local site on 127.0.0.1.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type Embedded } from '../helpers/embedded.js';

const API_KEY = 'e2e-hostile-patterns-key-0123';
const RUN = 'a'.repeat(4_000);
/** Links of the start page: long runs of `a` ending in `!` (allowed), `b` (robots) or nothing. */
const LINKS = [`/${RUN}!1`, `/${RUN}!2`, `/${RUN}b`, `/x/${RUN}`, `/${RUN}`, '/short'];
const HOSTILE_ROBOTS = 'User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a*a*a*a*a*b\n';

let site: http.Server;
let origin = '';
let embedded: Embedded;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${embedded.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Starts the job, then asks for the templates list until it ends: every answer is recorded. */
async function crawlWhileProbing(body: Record<string, unknown>): Promise<{ job: Record<string, any>; urls: string[]; probes: number[] }> {
  const started = await call('POST', '/v1/crawl', body);
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const id = started.body.data.id as string;
  const probes: number[] = [];
  for (let i = 0; i < 600; i++) {
    const t = performance.now();
    const probe = await call('GET', '/v1/templates');
    probes.push(performance.now() - t);
    expect(probe.status).toBe(200);
    const job = await call('GET', `/v1/crawl/${id}`);
    expect(job.status).toBe(200);
    if (['completed', 'failed', 'cancelled'].includes(job.body.data.status)) {
      const pages = await call('GET', `/v1/crawl/${id}/pages?limit=100`);
      const urls = (pages.body.data.data as Record<string, any>[]).map((d) => new URL(d.metadata.sourceURL as string).pathname);
      return { job: job.body.data, urls, probes };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the crawl did not end');
}

beforeAll(async () => {
  site = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(HOSTILE_ROBOTS);
    const links = path === '/' ? LINKS.map((l) => `<a href="${l}">link</a>`).join(' ') : '';
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head><title>${path.length}</title></head><body><p>Page of ${path.length} characters.</p>${links}</body></html>`);
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  embedded = await startEmbedded({ apiKey: API_KEY, env: { FETCH_ALLOW_PRIVATE: 'true' } });
}, 60_000);

afterAll(async () => {
  await embedded?.stop();
  site?.close();
});

describe('e2e/hostile-patterns', () => {
  it('a robots.txt rule that backtracks exponentially decides in linear time, and the crawl finishes', async () => {
    const { job, urls, probes } = await crawlWhileProbing({ url: `${origin}/`, limit: 20, respectRobots: true });
    expect(job.status).toBe('completed');
    // `/…ab` is the one path the rule disallows; `/…a` and `/…a!1` are allowed.
    expect(urls.sort()).toEqual(['/', `/${RUN}`, `/${RUN}!1`, `/${RUN}!2`, '/short', `/x/${RUN}`].sort());
    expect(probes.length).toBeGreaterThan(0);
  });

  it('a caller pattern that backtracks exponentially runs in RE2, and the crawl finishes', async () => {
    const { job, urls, probes } = await crawlWhileProbing({ url: `${origin}/`, limit: 20, includePaths: ['(a+)+$'] });
    expect(job.status).toBe('completed');
    // The start page is always taken; of the links, the paths that end in a run of `a`.
    expect(urls.sort()).toEqual(['/', `/${RUN}`, `/x/${RUN}`].sort());
    expect(probes.length).toBeGreaterThan(0);
  });

  it('a pattern RE2 cannot run is a 422 naming the field', async () => {
    const res = await call('POST', '/v1/crawl', { url: `${origin}/`, includePaths: ['^/ok$', '(?=a)a'], excludePaths: ['(x)\\1'] });
    expect(res.status).toBe(422);
    const locs = (res.body.detail as { loc: unknown[]; type: string }[]).map((d) => [d.loc.join('.'), d.type]);
    expect(locs).toEqual([
      ['body.includePaths.1', 'regex_invalid'],
      ['body.excludePaths.0', 'regex_invalid'],
    ]);
  });
});
