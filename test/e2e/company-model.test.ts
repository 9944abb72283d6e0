/**
 * POST /v1/company on a service with a model (issue 30 item 1, "then a model when configured"),
 * embedded mode with the production actors: the intel pool reads a local bakery's site through
 * the fetch path, the rules and markup find its name and leave its industry and description
 * empty, and the operator's model (a local OpenAI-compatible fake, MODEL_PROVIDER=openai)
 * fills them from the pages' text.
 *
 * - the model is asked only for the fields still empty, with the pages as numbered data;
 * - believed only as far as a page backs it: an address or headcount the pages do not write
 *   is dropped; `inferred` lists what the model filled, `sources` names its page;
 * - charged the pages read plus the operator's model price once, only when the model filled
 *   something; a model that fails leaves the fields empty, says so, and costs nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson } from '../helpers/api.js';
import { embeddedWithSecondKey, type Embedded } from '../helpers/embedded.js';
import { reply, startFakeOpenAI, type FakeModel } from '../helpers/fake-models.js';
import { html, page, startFakeSite, type FakeSite } from '../helpers/fake-sites/server.js';
import { PRICES } from '../../schemas/api/prices.js';

const API_KEY = 'e2e-company-model-key-0123456789';
const OPERATOR_KEY = 'sk-operator-company-0123456789';

const ABOUT = `Maison Dupont has baked sourdough bread for the restaurants and grocers of Lyon since 1923.
Every loaf is shaped by hand in our workshop at 12 Rue d'Austerlitz, 69004 Lyon, France.`;

function bakery(): (path: string) => ReturnType<typeof html> | null {
  return (path) => {
    if (path === '/') return html(page('Maison Dupont', '<header><a href="/about">About us</a></header><main><h1>Maison Dupont</h1><p>Bread, every morning.</p></main>'));
    if (path === '/about') return html(page('About us | Maison Dupont', `<main><h1>About us</h1><p>${ABOUT.replace('\n', '</p><p>')}</p></main>`));
    return null;
  };
}

let svc: Embedded;
let otherKey = '';
let model: FakeModel;
const sites: FakeSite[] = [];
const post = (path: string, body: unknown, key = API_KEY) => postJson(svc.base, key, path, body);

beforeAll(async () => {
  model = await startFakeOpenAI({
    apiKey: OPERATOR_KEY,
    answer: {
      description: { value: 'A Lyon bakery making hand-shaped sourdough bread for restaurants and grocers.', page: 1 },
      industry: { value: 'Bakery', page: 1 },
      foundingYear: { value: 1923, page: 1 },
      // Neither is written on any page: both are dropped.
      headcount: { value: { min: 250, max: 250 }, page: 1 },
      address: { value: '1 Made-up Street, Paris', page: 1 },
    },
  });
  for (let i = 0; i < 2; i++) sites.push(await startFakeSite(bakery()));
  ({ svc, otherKey } = await embeddedWithSecondKey(API_KEY, {
    FETCH_ALLOW_PRIVATE: 'true',
    MODEL_PROVIDER: 'openai',
    MODEL_API_KEY: OPERATOR_KEY,
    OPENAI_BASE_URL: model.url,
    MODEL_MAX_RETRIES: '0',
    MODEL_TIMEOUT_MS: '5000',
  }));
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await model?.close();
  await Promise.all(sites.map((s) => s.close()));
});

describe('e2e/company-model: POST /v1/company with the operator\'s model', () => {
  it('fills the details the pages state in words no rule knows, believes only what a page backs, and charges the model once', async () => {
    const before = model.requests.length;
    const { status, body } = await post('/v1/company', { url: sites[0]?.origin });
    expect(status, JSON.stringify(body)).toBe(200);
    const data = body.data;
    expect(data.name).toBe('Maison Dupont');
    expect(data.industry).toBe('Bakery');
    expect(data.description).toBe('A Lyon bakery making hand-shaped sourdough bread for restaurants and grocers.');
    expect(data.foundingYear).toBe(1923);
    expect(data.headcount).toBeNull();
    expect(data.address?.text ?? null).not.toBe('1 Made-up Street, Paris');
    expect(data.inferred).toEqual(expect.arrayContaining(['description', 'industry']));
    expect(data.inferred).not.toContain('headcount');
    expect(data.inferred).not.toContain('address');
    expect(data.sources.industry).toBe(`${sites[0]?.origin}/about`);
    expect(data.warning).toBeNull();

    // One call, asking only for the fields still empty, the pages sent as numbered data with the operator's key.
    expect(model.requests.length - before).toBe(1);
    const request = model.requests[model.requests.length - 1];
    expect(request?.headers.authorization).toBe(`Bearer ${OPERATOR_KEY}`);
    const schema = request?.body.response_format?.json_schema?.schema as { required: string[] };
    expect(schema.required).toEqual(expect.arrayContaining(['description', 'industry', 'headcount']));
    expect(schema.required).not.toContain('name');
    const prompt = JSON.stringify(request?.body.messages);
    expect(prompt).toContain('[1] about page');
    expect(prompt).toContain('since 1923');

    expect(data.cost.credits).toBe(data.pagesRead * PRICES.sitePage.credits + PRICES.operatorModelPage.credits);
  });

  it('answers without the model\'s fields when the model fails, says so, and charges the pages only', async () => {
    model.respondWith(reply.error(400, { message: 'bad request' }));
    const { status, body } = await post('/v1/company', { url: sites[1]?.origin }, otherKey);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.data).toMatchObject({ name: 'Maison Dupont', industry: null, description: null, inferred: [] });
    expect(body.data.warning).toMatch(/the model did not answer \(model_/);
    expect(body.data.cost.credits).toBe(body.data.pagesRead * PRICES.sitePage.credits);
  });
});
