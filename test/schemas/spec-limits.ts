/**
 * The spec's "Limits" table, written out by hand so that checking it does not depend on the
 * schema walker: for each limit, where the value goes and how to make a value of size n.
 */
import type { InjectOptions } from 'fastify';
import type { JsonPath } from '../helpers/schema-walk.js';

export type Loc = (string | number)[];
export type Kind = 'integer' | 'chars' | 'items';

export const KINDS: Record<Kind, { make: (n: number) => unknown; below: string; above: string }> = {
  integer: { make: (n) => n, below: 'greater_than_equal', above: 'less_than_equal' },
  chars: { make: (n) => 'x'.repeat(n), below: 'string_too_short', above: 'string_too_long' },
  items: { make: (n) => Array.from({ length: n }, (_, i) => `item${i}`), below: 'too_short', above: 'too_long' },
};

export interface Sent {
  method: InjectOptions['method'];
  url: string;
  body?: unknown;
}

export interface SpecLimit {
  what: string;
  kind: Kind;
  min?: number;
  max?: number;
  loc: Loc;
  send(value: unknown): Sent;
  make?: (n: number) => unknown;
}

const HOME = 'https://example.com/';
const urlOf = (length: number) => (length >= HOME.length ? HOME.padEnd(length, 'a') : `http://${'a'.repeat(Math.max(length - 7, 0))}`);
const urls = (n: number) => Array.from({ length: n }, (_, i) => `${HOME}${i}`);

function setAt(target: unknown, path: JsonPath, value: unknown): void {
  const last = path[path.length - 1] as string | number;
  const parent = path.slice(0, -1).reduce((node: unknown, seg) => (node as Record<string | number, unknown>)[seg], target);
  (parent as Record<string | number, unknown>)[last] = value;
}

/** A value at `path` inside a copy of `base`, sent as the JSON body. */
function inBody(method: Sent['method'], url: string, base: object, path: JsonPath) {
  return {
    loc: ['body', ...path],
    send(value: unknown): Sent {
      const body = structuredClone(base);
      setAt(body, path, value);
      return { method, url, body };
    },
  };
}

function inQuery(url: string, name: string) {
  return { loc: ['query', name], send: (value: unknown): Sent => ({ method: 'GET', url: `${url}?${name}=${encodeURIComponent(String(value))}` }) };
}

const captcha = { url: HOME, actions: [{ type: 'captchaCheckbox', successSelector: '#passed' }] };
const extract = { urls: [HOME], prompt: 'the price', model: { provider: 'openai', apiKey: 'sk-12345678' } };

export const SPEC_LIMITS: SpecLimit[] = [
  { what: 'crawl limit', kind: 'integer', min: 1, max: 100000, ...inBody('POST', '/v1/crawl', { url: HOME }, ['limit']) },
  { what: 'crawl maxDepth', kind: 'integer', min: 0, max: 20, ...inBody('POST', '/v1/crawl', { url: HOME }, ['maxDepth']) },
  { what: 'crawl maxConcurrency', kind: 'integer', min: 1, max: 50, ...inBody('POST', '/v1/crawl', { url: HOME }, ['maxConcurrency']) },
  { what: 'crawl delay', kind: 'integer', min: 0, max: 60000, ...inBody('POST', '/v1/crawl', { url: HOME }, ['delay']) },
  { what: 'scrape waitFor', kind: 'integer', min: 0, max: 120000, ...inBody('POST', '/v1/scrape', { url: HOME }, ['waitFor']) },
  { what: 'scrape timeout', kind: 'integer', min: 1000, max: 300000, ...inBody('POST', '/v1/scrape', { url: HOME }, ['timeout']) },
  { what: 'scrape maxAge', kind: 'integer', min: 0, ...inBody('POST', '/v1/scrape', { url: HOME }, ['maxAge']) },
  { what: 'crawl scrapeOptions.maxAge', kind: 'integer', min: 0, ...inBody('POST', '/v1/crawl', { url: HOME, scrapeOptions: {} }, ['scrapeOptions', 'maxAge']) },
  { what: 'scrape location.country', kind: 'chars', min: 2, max: 2, ...inBody('POST', '/v1/scrape', { url: HOME, location: { country: 'us' } }, ['location', 'country']) },
  { what: 'scrape captchaCheckbox timeoutMs', kind: 'integer', min: 500, max: 15000, ...inBody('POST', '/v1/scrape', captcha, ['actions', 0, 'timeoutMs']) },
  { what: 'batch urls', kind: 'items', min: 1, max: 10000, make: urls, ...inBody('POST', '/v1/batch/scrape', { urls: [HOME] }, ['urls']) },
  { what: 'batch maxConcurrency', kind: 'integer', min: 1, max: 50, ...inBody('POST', '/v1/batch/scrape', { urls: [HOME] }, ['maxConcurrency']) },
  { what: 'map limit', kind: 'integer', min: 1, max: 30000, ...inBody('POST', '/v1/map', { url: HOME }, ['limit']) },
  { what: 'extract urls', kind: 'items', min: 1, max: 100, make: urls, ...inBody('POST', '/v1/extract', extract, ['urls']) },
  { what: 'extract model.apiKey', kind: 'chars', min: 8, max: 300, ...inBody('POST', '/v1/extract', extract, ['model', 'apiKey']) },
  { what: 'extract model.name', kind: 'chars', min: 1, max: 100, ...inBody('POST', '/v1/extract', extract, ['model', 'name']) },
  { what: 'products limit', kind: 'integer', min: 1, max: 10000, ...inBody('POST', '/v1/products', { url: 'shop.example.com' }, ['limit']) },
  { what: 'posts limit', kind: 'integer', min: 1, max: 10000, ...inBody('POST', '/v1/posts', { url: 'blog.example.com' }, ['limit']) },
  { what: 'monitor name', kind: 'chars', min: 1, max: 120, ...inBody('POST', '/v1/monitor', { name: 'm', url: HOME }, ['name']) },
  { what: 'monitor urls', kind: 'items', max: 50, make: urls, ...inBody('POST', '/v1/monitor', { name: 'm', url: HOME }, ['urls']) },
  { what: 'monitor intervalMinutes', kind: 'integer', min: 5, max: 10080, ...inBody('POST', '/v1/monitor', { name: 'm', url: HOME }, ['intervalMinutes']) },
  { what: 'monitor goal', kind: 'chars', max: 1000, ...inBody('POST', '/v1/monitor', { name: 'm', url: HOME }, ['goal']) },
  { what: 'monitor checks limit', kind: 'integer', min: 1, max: 100, ...inQuery('/v1/monitor/m1/checks', 'limit') },
  { what: 'crawl pages limit', kind: 'integer', min: 1, max: 200, ...inQuery('/v1/crawl/j1/pages', 'limit') },
  { what: 'batch pages limit', kind: 'integer', min: 1, max: 200, ...inQuery('/v1/batch/j1/pages', 'limit') },
  { what: 'mentions limit', kind: 'integer', min: 1, max: 100, ...inQuery('/v1/mentions', 'limit') },
  { what: 'fetch url', kind: 'chars', min: 8, max: 2048, make: urlOf, ...inQuery('/v1/fetch', 'url') },
  { what: 'domain backlinkLimit', kind: 'integer', min: 1, max: 1000, ...inBody('POST', '/v1/domain', { domain: 'example.com' }, ['backlinkLimit']) },
  { what: 'domain screen domains', kind: 'items', min: 1, max: 500, ...inBody('POST', '/v1/domain/screen', { domains: ['example.com'] }, ['domains']) },
  { what: 'domain report snapshots', kind: 'integer', min: 0, max: 24, ...inBody('POST', '/v1/domain/report', { domain: 'example.com' }, ['snapshots']) },
  { what: 'domain report verifyLinks', kind: 'integer', min: 0, max: 100, ...inBody('POST', '/v1/domain/report', { domain: 'example.com' }, ['verifyLinks']) },
  { what: 'snapshot request snapshots', kind: 'integer', min: 1, max: 24, ...inBody('POST', '/v1/domain/history/snapshots', { domain: 'example.com' }, ['snapshots']) },
  {
    what: 'snapshot request years',
    kind: 'items',
    max: 24,
    make: (n) => Array.from({ length: n }, (_, i) => 2000 + i),
    ...inBody('POST', '/v1/domain/history/snapshots', { domain: 'example.com' }, ['years']),
  },
  { what: 'snapshot request years[i]', kind: 'integer', min: 1990, max: 2100, ...inBody('POST', '/v1/domain/history/snapshots', { domain: 'example.com', years: [2020, 2021] }, ['years', 1]) },
];
