/**
 * POST /v1/scrape through the production actors (fetcher → parser) in embedded mode, against
 * a local fixture site: the document, its cost, upstream statuses, a consent gate (its cookie
 * kept across its redirect), what this build does not serve yet, and the SSRF guard when
 * private addresses are not allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARSER_FORMATS } from '../../actors/parser/document/index.js';
import { SERVED_FORMATS } from '../../gateway/handlers/scrape.js';
import { serviceForBlock, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { scrape } from '../helpers/scrape.js';

const API_KEY = 'e2e-scrape-key-0123456789';

const start = (env: Record<string, string>): Promise<Embedded> => startEmbedded({ apiKey: API_KEY, env });

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await site?.close();
});

// chdb admits one data directory per process: the two services run one after the other.
describe('e2e/scrape (embedded, production actors)', () => {
  let open: Embedded;

  beforeAll(async () => {
    open = await start({ FETCH_ALLOW_PRIVATE: 'true' });
  });
  afterAll(async () => {
    await open?.stop();
  });

  it('serves exactly the formats the parser produces', () => {
    expect([...SERVED_FORMATS].sort()).toEqual([...PARSER_FORMATS].sort());
  });

  it('returns the page as markdown with its metadata, charged one fresh credit', async () => {
    const { status, body } = await scrape(open.base, API_KEY, { url: site.url('/html') });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.markdown).toContain('Hello fixture');
    expect(body.data.metadata).toMatchObject({ title: 'Fixture', statusCode: 200, sourceURL: site.url('/html') });
    expect(body.data.cost).toEqual({ credits: 1, remaining: null, source: 'fresh' });
    expect(body.data.html).toBeUndefined();
  });

  it('returns the formats asked for, decoded from the declared charset, after redirects', async () => {
    const { status, body } = await scrape(open.base, API_KEY, { url: site.url('/redirect/chain'), formats: ['markdown', 'html', 'links'] });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.metadata.url).toBe(site.url('/html'));
    expect(typeof body.data.html).toBe('string');
    expect(Array.isArray(body.data.links)).toBe(true);
    const cyrillic = await scrape(open.base, API_KEY, { url: site.url('/cp1251') });
    expect(cyrillic.body.data.markdown).toContain('Привет, мир!');
  });

  it('loads a consent gate: the cookie it sets is sent when it redirects to itself', async () => {
    const before = site.requests.length;
    const { status, body } = await scrape(open.base, API_KEY, { url: site.url('/cookie/gate') });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.markdown).toContain('Past the consent gate');
    expect(body.data.metadata).toMatchObject({ statusCode: 200, url: site.url('/cookie/gate') });
    expect(site.requests.slice(before).map((r) => r.headers.cookie ?? null)).toEqual([null, 'consent=1']);
  });

  it('reads an upstream 404 page as a successful scrape with its status', async () => {
    const { status, body } = await scrape(open.base, API_KEY, { url: site.url('/status/404') });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.metadata.statusCode).toBe(404);
  });

  it('answers 400 model_required for a json prompt alone when no model is configured, before fetching', async () => {
    const before = site.requests.length;
    const { status, body } = await scrape(open.base, API_KEY, { url: site.url('/html'), formats: [{ type: 'json', prompt: 'the price' }] });
    expect(status).toBe(400);
    expect(body.error.code).toBe('model_required');
    expect(site.requests.length).toBe(before);
  });

  it('answers an upstream failure (a redirect loop) with its code', async () => {
    const { status, body } = await scrape(open.base, API_KEY, { url: site.url('/redirect/loop-a') });
    expect(status).toBe(502);
    expect(body.error.code).toBe('too_many_redirects');
  });
});

describe('e2e/scrape with private addresses not allowed (the default)', () => {
  const closed = serviceForBlock(() => start({}));

  it('refuses a loopback URL with 403 url_blocked and never reaches it', async () => {
    const before = site.requests.length;
    for (const url of [site.url('/html'), `http://2130706433:${site.port}/html`, `http://[::ffff:127.0.0.1]:${site.port}/html`]) {
      const { status, body } = await scrape(closed().base, API_KEY, { url });
      expect(status, url).toBe(403);
      expect(body.error.code).toBe('url_blocked');
    }
    expect(site.requests.length).toBe(before);
  });
});
