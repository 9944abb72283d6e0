/**
 * Extraction end to end (issue 15), embedded mode with the production actors against local
 * fixture pages (test/fixtures/extract/site) and local fake model providers
 * (test/helpers/fake-models.ts) reached through OPENAI_BASE_URL / ANTHROPIC_BASE_URL:
 *
 * - without any model: the `json` format from markup (JSON-LD, microdata) and page rules, a
 *   template or a caller's schema, validated, with sources, confidence and warnings; the
 *   extractive summary; POST /v1/extract over several pages (order, per-URL errors,
 *   confidence ordering, the page's own structured data); 422s and `model_required`;
 * - change tracking: new → same → changed (order-respecting, unified diff), per key and tag;
 * - with the operator's model: the fields markup left empty filled by the model and charged;
 *   failures of the model degrading to the page's own answer with a warning;
 * - with the caller's own model on POST /v1/extract: used for that request, charged nothing,
 *   a rejected key a 400, and the key nowhere afterwards: not on any topic, in any log line
 *   or in any table.
 */
import { readFileSync, readdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActorSpec } from '../../actors/index.js';
import { ACTORS } from '../../main.js';
import type { BusMessage } from '../../pipeline/runtime/bus/bus.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import type { ServiceRuntime } from '../../pipeline/service/config.js';
import { TOPICS } from '../../schemas/topics.js';
import { embeddedWithSecondKey, meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { reply, startFakeAnthropic, startFakeOpenAI, type FakeModel } from '../helpers/fake-models.js';
import { scrape } from '../helpers/scrape.js';
import { postJson } from '../helpers/api.js';

const API_KEY = 'e2e-extract-key-0123456789';
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'extract', 'site');

interface Site {
  readonly origin: string;
  url(path: string): string;
  /** The body of `/changing`, set by a test. */
  changing: string;
  close(): Promise<void>;
}

async function startSite(): Promise<Site> {
  const pages = new Map(readdirSync(FIXTURES).map((f) => [`/${f.replace(/\.html$/, '')}`, readFileSync(join(FIXTURES, f))]));
  const site = { changing: '<html><body><h1>Prices</h1><p>Tea costs 3 euros.</p><p>Coffee costs 4 euros.</p></body></html>' } as Site;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/changing') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(site.changing);
    const page = pages.get(path);
    if (!page) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(site, {
    origin,
    url: (path: string) => `${origin}${path}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(async () => {
  await site?.close();
});

// chdb admits one data directory per process: the services of this file run one after the other.
describe('e2e/extract without a model', () => {
  let svc: Embedded;
  let otherKey = '';
  beforeAll(async () => {
    ({ svc, otherKey } = await embeddedWithSecondKey(API_KEY, { FETCH_ALLOW_PRIVATE: 'true' }));
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it('fills the product template from JSON-LD, validated, at a plain page\'s price', async () => {
    const { status, body } = await scrape(svc.base, API_KEY, { url: site.url('/product-jsonld'), formats: [{ type: 'json', template: 'product' }] });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.json).toMatchObject({ name: 'Aurora Kettle 1.7 L', brand: 'Aurora', sku: 'AK-17', price: 49.9, currency: 'EUR', rating: 4.6, reviewCount: 128 });
    expect(String(body.data.json.availability)).toMatch(/in ?stock/i);
    expect(body.data.json.description).toBe('A 2200 W kettle with a keep-warm mode & limescale filter.');
    expect(body.data.json.images).toEqual([site.url('/img/kettle.jpg')]);
    expect(body.data.metadata.jsonSources).toMatchObject({ name: 'markup', price: 'markup' });
    expect(body.data.metadata.jsonConfidence).toBeGreaterThan(0.9);
    expect(body.data.markdown).toBeUndefined();
    expect(body.data.cost).toMatchObject({ credits: 1, source: 'fresh' });
  });

  it('reads microdata-only and markup-less pages, the page rules filling what markup lacks', async () => {
    const micro = await scrape(svc.base, API_KEY, { url: site.url('/product-microdata'), formats: [{ type: 'json', template: 'product' }] });
    expect(micro.body.data.json).toMatchObject({ name: 'Trail Runner 2', brand: 'Peak', price: 129, currency: 'USD', rating: 4.2, reviewCount: 57 });
    expect(String(micro.body.data.json.availability)).toMatch(/out ?of ?stock/i);

    const plain = await scrape(svc.base, API_KEY, { url: site.url('/article-plain'), formats: ['markdown', { type: 'json', template: 'article' }] });
    expect(plain.body.data.json).toMatchObject({ title: 'City council approves new bike lanes', author: ['Maria Lopez', 'Tom Becker'] });
    expect(String(plain.body.data.json.publishedAt)).toMatch(/^2024-03-12/);
    expect(plain.body.data.metadata.jsonSources).toMatchObject({ title: 'page', author: 'page', publishedAt: 'page' });
    expect(plain.body.data.markdown).toContain('bike lanes');
    // Fields the page does not state are left out and named, never invented.
    expect(plain.body.data.json.section).toBeUndefined();
    expect(plain.body.data.warning).toContain('section');

    const german = await scrape(svc.base, API_KEY, { url: site.url('/produkt-de'), formats: [{ type: 'json', template: 'product' }] });
    expect(german.body.data.json).toMatchObject({ name: 'Kaffeemühle Klassik', price: 1299, currency: 'EUR' });
  });

  it('reads broken JSON-LD as far as it goes and never fails the page', async () => {
    const { status, body } = await scrape(svc.base, API_KEY, { url: site.url('/broken-markup'), formats: [{ type: 'json', template: 'product' }] });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.json.name).toBe('Desk Lamp');
    expect(body.data.json.price).toBe(19.99);
    const none = await scrape(svc.base, API_KEY, { url: site.url('/no-markup'), formats: [{ type: 'json', template: 'jobPosting' }] });
    expect(none.status).toBe(200);
    expect(none.body.data.warning).toMatch(/no value found/);
  });

  it('fills a caller\'s schema by name and meaning, and answers only what passes it', async () => {
    const schema = {
      type: 'object',
      properties: {
        headline: { type: 'string' },
        writers: { type: 'array', items: { type: 'string' }, description: 'author names' },
        published: { type: 'string', format: 'date-time' },
        publisher: { type: 'object', properties: { name: { type: 'string' } } },
        wordCount: { type: 'integer' },
      },
      required: ['headline'],
    };
    const { body } = await scrape(svc.base, API_KEY, { url: site.url('/article-jsonld'), formats: [{ type: 'json', schema }] });
    expect(body.data.json).toMatchObject({ headline: 'Why soil matters', writers: ['Ada Green'], publisher: { name: 'Field Notes' } });
    expect(body.data.json.published).toMatch(/^2023-11-0[12]T/);
    expect(body.data.json.wordCount).toBeUndefined();
    expect(body.data.warning).toContain('wordCount');
  });

  it('answers 422 for an unknown template or an invalid schema, and 400 for a prompt alone, before fetching', async () => {
    const unknown = await scrape(svc.base, API_KEY, { url: site.url('/product-jsonld'), formats: [{ type: 'json', template: 'spaceship' }] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ loc: ['body', 'formats', 0, 'template'], type: 'template_unknown' });
    const invalid = await scrape(svc.base, API_KEY, { url: site.url('/product-jsonld'), formats: [{ type: 'json', schema: { type: 'strin' } }] });
    expect(invalid.status).toBe(422);
    expect(invalid.body.detail[0].loc.slice(0, 4)).toEqual(['body', 'formats', 0, 'schema']);
    const crawl = await postJson(svc.base, API_KEY, '/v1/crawl', { url: site.url('/'), scrapeOptions: { formats: [{ type: 'json', template: 'nope' }] } });
    expect(crawl.status).toBe(422);
    expect(crawl.body.detail[0].loc).toEqual(['body', 'scrapeOptions', 'formats', 0, 'template']);
    const extract = await postJson(svc.base, API_KEY, '/v1/extract', { urls: [site.url('/product-jsonld')], prompt: 'the price' });
    expect(extract.status).toBe(400);
    expect(extract.body.error.code).toBe('model_required');
  });

  it('summarises extractively in the page\'s language, and says so', async () => {
    const { body } = await scrape(svc.base, API_KEY, { url: site.url('/article-plain'), formats: ['summary'] });
    expect(body.data.summary.length).toBeGreaterThan(40);
    expect(body.data.summary.length).toBeLessThanOrEqual(600);
    expect(body.data.metadata.summarySource).toBe('extractive');
    expect(body.data.markdown).toBeUndefined();
    const german = await scrape(svc.base, API_KEY, { url: site.url('/produkt-de'), formats: ['summary'] });
    expect(german.body.data.summary).toMatch(/Kaffeemühle|Kegelmahlwerk|Buchenholz/);
  });

  it('POST /v1/extract: one result per URL in input order, failures per URL, confidence ordering results', async () => {
    const urls = [site.url('/product-jsonld'), site.url('/missing'), site.url('/produkt-de'), 'http://127.0.0.1:1/refused', site.url('/no-markup')];
    const { status, body } = await postJson(svc.base, API_KEY, '/v1/extract', { urls, template: 'product' });
    expect(status, JSON.stringify(body)).toBe(200);
    const results = body.data.results as [Record<string, any>, Record<string, any>, Record<string, any>, Record<string, any>, Record<string, any>];
    expect(results.map((r) => r.url)).toEqual(urls);
    expect(results[0]).toMatchObject({ data: { name: 'Aurora Kettle 1.7 L', price: 49.9 }, error: null });
    expect(results[2]).toMatchObject({ data: { name: 'Kaffeemühle Klassik' }, error: null });
    expect(results[3]).toMatchObject({ data: null, confidence: 0, error: { code: 'connection_refused' } });
    // A page with no facts but its <title>: the name from the title, the rest named as missing.
    expect(results[4]).toMatchObject({ data: { name: 'Untitled' }, error: null });
    expect(results[4].warning).toMatch(/no value found/);
    // Markup-filled beats page-rule-filled beats a title alone.
    expect(results[0].confidence).toBeGreaterThan(results[2].confidence);
    expect(results[2].confidence).toBeGreaterThan(results[4].confidence);
    // A 404 is an error of its URL.
    expect(results[1]).toMatchObject({ data: null, error: { code: 'upstream_error', message: 'the page answered HTTP 404' } });
    // Each page answered is charged as a scrape; a URL with an error costs nothing.
    expect(body.data.cost.credits).toBe(3);
    // None of the asked fields on the page: an error of its URL, costing nothing.
    const isbn = await postJson(svc.base, API_KEY, '/v1/extract', { urls: [site.url('/no-markup')], schema: { type: 'object', properties: { isbn: { type: 'string' } } } });
    expect(isbn.body.data.results[0]).toMatchObject({ data: null, confidence: 0, error: { code: 'no_data_found' } });
    expect(isbn.body.data.cost.credits).toBe(0);
  });

  it('POST /v1/extract with nothing to shape it answers the page\'s own structured data', async () => {
    const { body } = await postJson(svc.base, API_KEY, '/v1/extract', { urls: [site.url('/recipe'), site.url('/jobposting')] });
    const [recipe, job] = body.data.results as [Record<string, any>, Record<string, any>];
    expect(recipe.data.items[0]).toMatchObject({ '@type': 'Recipe', name: 'Lentil soup' });
    expect(job.data.items.some((i: Record<string, unknown>) => i['@type'] === 'JobPosting')).toBe(true);
  });

  it('fills the jobPosting and recipe templates with their rules (salary range, remote, durations)', async () => {
    const { body } = await postJson(svc.base, API_KEY, '/v1/extract', { urls: [site.url('/jobposting')], template: 'jobPosting' });
    expect(body.data.results[0].data).toMatchObject({ title: 'Senior Backend Engineer', company: 'Nordlicht GmbH', salaryMin: 70000, salaryMax: 90000, salaryCurrency: 'EUR' });
    expect(String(body.data.results[0].data.location)).toMatch(/remote/i);
    const recipe = await postJson(svc.base, API_KEY, '/v1/extract', { urls: [site.url('/recipe')], template: 'recipe' });
    expect(recipe.body.data.results[0].data).toMatchObject({ name: 'Lentil soup', prepTimeMinutes: 15, cookTimeMinutes: 40, ingredients: ['200 g red lentils', '1 onion', '1 l vegetable stock'] });
  });

  it('tracks changes per key and tag: new, same, changed (order respected), with a unified diff', async () => {
    const track = (key: string, tag?: string) =>
      scrape(svc.base, key, { url: site.url('/changing'), formats: ['markdown', { type: 'changeTracking', modes: ['git-diff'], ...(tag ? { tag } : {}) }] });
    const first = await track(API_KEY);
    expect(first.body.data.changeTracking).toMatchObject({ changeStatus: 'new', previousScrapeAt: null, visibility: 'visible' });
    const second = await track(API_KEY);
    expect(second.body.data.changeTracking.changeStatus).toBe('same');
    expect(second.body.data.changeTracking.previousScrapeAt).toEqual(expect.any(String));
    // The same two paragraphs in the other order: a change.
    site.changing = '<html><body><h1>Prices</h1><p>Coffee costs 4 euros.</p><p>Tea costs 3 euros.</p></body></html>';
    const third = await track(API_KEY);
    expect(third.body.data.changeTracking.changeStatus).toBe('changed');
    expect(third.body.data.changeTracking.diff.text).toMatch(/^--- /m);
    expect(third.body.data.changeTracking.diff.text).toMatch(/^-Tea costs 3 euros\.$/m);
    expect(third.body.data.changeTracking.diff.json.files[0].chunks.length).toBeGreaterThan(0);
    // Another key, and another tag, have histories of their own.
    expect((await track(otherKey)).body.data.changeTracking.changeStatus).toBe('new');
    expect((await track(API_KEY, 'weekly')).body.data.changeTracking.changeStatus).toBe('new');
    expect((await track(API_KEY)).body.data.changeTracking.changeStatus).toBe('same');
  });

  it('extracts in batch jobs too: each stored page carries its json', async () => {
    const started = await postJson(svc.base, API_KEY, '/v1/batch/scrape', { urls: [site.url('/product-jsonld'), site.url('/product-microdata')], scrapeOptions: { formats: [{ type: 'json', template: 'product' }] } });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    let job: Record<string, any> = {};
    for (let i = 0; i < 100 && job.status !== 'completed'; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
      const res = await fetch(`${svc.base}/v1/batch/${started.body.data.id}`, { headers: { authorization: `Bearer ${API_KEY}` } });
      job = ((await res.json()) as Record<string, any>).data;
    }
    expect(job.status).toBe('completed');
    expect(job.data.map((d: Record<string, any>) => d.json?.name).sort()).toEqual(['Aurora Kettle 1.7 L', 'Trail Runner 2']);
  });
});

/** Lines a logger wrote, kept for the test to search. */
function logSink(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/** An actor that only hands the test the runtime (its bus and store) of the service it runs in. */
function runtimeTap(got: (runtime: ServiceRuntime) => void): ActorSpec {
  return {
    role: 'classifier',
    create: (runtime) => {
      got(runtime);
      return { name: 'tap', group: 'tap', topics: ['testPings'], concurrency: 1, timeoutMs: 1000, handlers: { TestPing: async () => ({ kind: 'ack' }) } };
    },
  };
}

describe('e2e/extract with the operator\'s model and callers\' own models', () => {
  const CALLER_KEY = 'sk-ant-caller-own-key-7f3a9c2e51';
  const OPERATOR_KEY = 'sk-operator-key-0a1b2c3d4e5f';
  let svc: Embedded;
  let openai: FakeModel;
  let anthropic: FakeModel;
  let runtime: ServiceRuntime | null = null;
  const logs = logSink();
  const seen: BusMessage[] = [];

  beforeAll(async () => {
    openai = await startFakeOpenAI({ apiKey: OPERATOR_KEY, answer: { modifiedAt: '2024-03-13T10:00:00Z', section: 'Local news', tags: ['cycling', 'council'], image: 'https://example.org/lanes.jpg', summary: 'The council approved bike lanes.' }, answerText: 'The city council approved twelve kilometres of protected bike lanes.' });
    anthropic = await startFakeAnthropic({ apiKey: CALLER_KEY, answer: { brand: 'Aurora', sku: 'AK-17', price: 49.9 } });
    svc = await startEmbedded({
      apiKey: API_KEY,
      log: createLogger('trace', logs.stream),
      actors: [...ACTORS, runtimeTap((r) => (runtime = r))],
      env: {
        FETCH_ALLOW_PRIVATE: 'true',
        MODEL_PROVIDER: 'openai',
        MODEL_API_KEY: OPERATOR_KEY,
        OPENAI_BASE_URL: openai.url,
        ANTHROPIC_BASE_URL: anthropic.url,
        MODEL_MAX_RETRIES: '2',
        MODEL_TIMEOUT_MS: '5000',
      },
    });
    // Every message on every topic, from the start.
    const tap = runtime as ServiceRuntime | null;
    if (!tap) throw new Error('the runtime tap did not run');
    await tap.bus.consume({
      group: 'key-audit',
      topics: Object.values(TOPICS).map((t) => t.name),
      concurrency: 4,
      fromBeginning: true,
      handler: async (message) => void seen.push(message),
    });
  });
  afterAll(async () => {
    await svc?.stop();
    await openai?.close();
    await anthropic?.close();
  });

  it('fills what markup left empty with the operator\'s model, and charges its price', async () => {
    const { status, body } = await scrape(svc.base, API_KEY, { url: site.url('/article-plain'), formats: [{ type: 'json', template: 'article' }] });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.json).toMatchObject({ title: 'City council approves new bike lanes', section: 'Local news', tags: ['cycling', 'council'] });
    expect(body.data.metadata.jsonSources).toMatchObject({ title: 'page', section: 'model' });
    expect(body.data.metadata.model).toBe('openai:gpt-4o-mini');
    expect(body.data.cost.credits).toBe(5);
    // The model was asked only for the missing fields, with strict structured output.
    const asked = openai.requests.at(-1)?.body.response_format?.json_schema;
    expect(asked?.strict).toBe(true);
    expect(Object.keys((asked?.schema.properties ?? {}) as object)).not.toContain('title');
    // A page its markup answers in full never reaches the model, and costs a page.
    const before = openai.requests.length;
    const full = await scrape(svc.base, API_KEY, { url: site.url('/recipe'), formats: [{ type: 'json', schema: { type: 'object', properties: { name: { type: 'string' } } } }] });
    expect(full.body.data.json).toEqual({ name: 'Lentil soup' });
    expect(full.body.data.cost.credits).toBe(1);
    expect(openai.requests.length).toBe(before);
  });

  it('writes an abstractive summary with the model, and keeps the extractive one when it fails', async () => {
    const { body } = await scrape(svc.base, API_KEY, { url: site.url('/article-plain'), formats: ['summary'] });
    expect(body.data.summary).toBe('The city council approved twelve kilometres of protected bike lanes.');
    expect(body.data.metadata.summarySource).toBe('model');
    openai.respondWith(reply.error(500), reply.error(500), reply.error(500));
    const failed = await scrape(svc.base, API_KEY, { url: site.url('/article-plain'), formats: ['summary'] });
    expect(failed.status).toBe(200);
    expect(failed.body.data.metadata.summarySource).toBe('extractive');
    expect(failed.body.data.warning).toMatch(/model_failed/);
    expect(failed.body.data.cost.credits).toBe(1);
  });

  it('retries a 429 honouring retry-after, and degrades to the page\'s own answer on output that breaks the schema', async () => {
    openai.respondWith(reply.rateLimited({ 'retry-after': '0' }));
    const retried = await scrape(svc.base, API_KEY, { url: site.url('/article-plain'), formats: [{ type: 'json', template: 'article' }] });
    expect(retried.body.data.json.section).toBe('Local news');
    openai.respondWith(reply.text('not json at all'), reply.object({ section: 42, tags: 'x' }));
    const broken = await scrape(svc.base, API_KEY, { url: site.url('/article-plain'), formats: [{ type: 'json', template: 'article' }] });
    expect(broken.status).toBe(200);
    expect(broken.body.data.json.title).toBe('City council approves new bike lanes');
    expect(broken.body.data.json.section).toBeUndefined();
    expect(broken.body.data.warning).toMatch(/model_output_invalid/);
  });

  it('answers a prompt alone through the model, and fails it with the model\'s code when the model fails', async () => {
    openai.respondWith(reply.object({ lanes_km: 12, starts: 'summer' }));
    const { body } = await postJson(svc.base, API_KEY, '/v1/extract', { urls: [site.url('/article-plain')], prompt: 'How many km of lanes, and when does building start?' });
    expect(body.data.results[0]).toMatchObject({ data: { lanes_km: 12, starts: 'summer' }, error: null });
    expect(body.data.cost.credits).toBe(5);
    openai.respondWith(reply.hang());
    const timedOut = await postJson(svc.base, API_KEY, '/v1/extract', { urls: [site.url('/article-plain')], prompt: 'anything' });
    expect(timedOut.body.data.results[0]).toMatchObject({ data: null, error: { code: 'model_timeout' } });
    expect(timedOut.body.data.cost.credits).toBe(0);
  });

  it('uses the caller\'s own model for that request only, at no credit cost', async () => {
    const before = openai.requests.length;
    const { status, body } = await postJson(svc.base, API_KEY, '/v1/extract', {
      urls: [site.url('/product-microdata')],
      schema: { type: 'object', properties: { name: { type: 'string' }, sku: { type: 'string' } }, required: ['name'] },
      model: { provider: 'anthropic', apiKey: CALLER_KEY, name: 'claude-3-5-haiku-latest' },
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data.results[0].data).toEqual({ name: 'Trail Runner 2', sku: 'AK-17' });
    expect(body.data.results[0].sources).toEqual({ name: 'markup', sku: 'model' });
    expect(body.data.cost.credits).toBe(1);
    expect(openai.requests.length).toBe(before);
    const sent = anthropic.requests.at(-1);
    expect(sent?.headers['x-api-key']).toBe(CALLER_KEY);
    expect(sent?.body.tool_choice).toMatchObject({ type: 'tool' });
  });

  it('answers a key the provider rejects with 400 model_key_rejected, charging nothing', async () => {
    const wrong = 'sk-ant-wrong-key-5e6f7a8b9c';
    const { status, body } = await postJson(svc.base, API_KEY, '/v1/extract', {
      urls: [site.url('/product-microdata')],
      template: 'product',
      model: { provider: 'anthropic', apiKey: wrong },
    });
    expect(status).toBe(400);
    expect(body.error.code).toBe('model_key_rejected');
    expect(JSON.stringify(body)).not.toContain(wrong);
    expect(logs.text()).not.toContain(wrong);
  });

  it('leaves callers\' keys nowhere: no topic, no log line, no table holds them', async () => {
    const tap = runtime as ServiceRuntime | null;
    if (!tap) throw new Error('no runtime');
    const secrets = [CALLER_KEY, 'sk-ant-wrong-key-5e6f7a8b9c', OPERATOR_KEY];
    await new Promise((r) => setTimeout(r, 300));
    expect(seen.length).toBeGreaterThan(10);
    expect(seen.some((m) => m.topic === TOPICS.extractRequested.name)).toBe(true);
    for (const message of seen) {
      const raw = `${message.value.toString('latin1')} ${JSON.stringify(message.headers)} ${message.key}`;
      const decoded = JSON.stringify((await tap.codec.decode(message.value)).value, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('latin1') : v));
      for (const secret of secrets) {
        expect(raw.includes(secret), `${message.topic} carries a key in clear`).toBe(false);
        expect(decoded.includes(secret), `${message.topic} carries a key in clear`).toBe(false);
      }
    }
    const tables = await tap.store.query<{ name: string }>('SELECT name FROM system.tables WHERE database = currentDatabase()');
    expect(tables.length).toBeGreaterThan(5);
    for (const { name } of tables) {
      const rows = JSON.stringify(await tap.store.query(`SELECT * FROM ${name}`));
      for (const secret of secrets) expect(rows.includes(secret), `table ${name} holds a key`).toBe(false);
    }
    expect(logs.text().length).toBeGreaterThan(1000);
    for (const secret of secrets) expect(logs.text().includes(secret), 'a log line holds a key').toBe(false);
  });
});
