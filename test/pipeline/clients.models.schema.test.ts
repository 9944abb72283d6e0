/**
 * pipeline/clients/models, the parts that need no server: the strict form of a schema and the
 * nulls dropped after, the check on the original schema (RE2 patterns, formats), JSON read out
 * of model text, the page cut to fit, retry-after parsing, and the model settings.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { callerModel, checkModelConfig, operatorModel } from '../../pipeline/clients/models/config.js';
import { APICallError } from 'ai';
import { isApiCallError, readFailure, retryAfterMs } from '../../pipeline/clients/models/errors.js';
import { fitInput } from '../../pipeline/clients/models/fit.js';
import { parseModelJson } from '../../pipeline/clients/models/output.js';
import { dropOptionalNulls, prepareSchema } from '../../pipeline/clients/models/schema.js';
import { compileCheck } from '../../pipeline/clients/models/validate.js';
import { ConfigError, loadConfig } from '../../pipeline/service/config.js';
import { AppError } from '../../pipeline/runtime/errors.js';

describe('pipeline/clients/models/schema: the strict form', () => {
  it('requires every property, makes the optional ones nullable, closes every object and drops what strict mode refuses', () => {
    const prepared = prepareSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      title: 'Product',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200, description: 'The product name' },
        status: { enum: ['in stock', 'sold out'] },
        offer: {
          type: 'object',
          properties: { price: { type: 'number', minimum: 0 }, at: { type: 'string', format: 'date-time' } },
          required: ['price'],
          patternProperties: { '^x-': { type: 'string' } },
        },
        kind: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
        sku: { type: 'string', pattern: '^[A-Z]+$', default: 'X' },
      },
      required: ['name', 'offer'],
    });
    expect(prepared.strict).toBe(true);
    expect(prepared.wrapped).toBe(false);
    expect(prepared.strictForm).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The product name' },
        status: { type: ['string', 'null'], enum: ['in stock', 'sold out', null] },
        offer: {
          type: 'object',
          properties: { price: { type: 'number' }, at: { type: ['string', 'null'] } },
          required: ['price', 'at'],
          additionalProperties: false,
        },
        kind: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
        sku: { type: ['string', 'null'] },
      },
      required: ['name', 'status', 'offer', 'kind', 'sku'],
      additionalProperties: false,
    });
    expect(prepared.original.$schema).toBeUndefined();
    expect(prepared.original.properties).toHaveProperty('sku.pattern', '^[A-Z]+$'); // the check keeps everything
  });

  it('keeps $defs and $ref (an optional $ref becomes anyOf with null) and merges allOf', () => {
    const prepared = prepareSchema({
      type: 'object',
      $defs: { money: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] } },
      properties: {
        price: { $ref: '#/$defs/money' },
        both: { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'string' } } }] },
      },
    });
    expect(prepared.strict).toBe(true);
    expect(prepared.strictForm.$defs).toEqual({ money: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'], additionalProperties: false } });
    expect(prepared.strictForm.properties).toEqual({
      price: { anyOf: [{ $ref: '#/$defs/money' }, { type: 'null' }] },
      both: { type: ['object', 'null'], properties: { a: { type: 'string' }, b: { type: ['string', 'null'] } }, required: ['a', 'b'], additionalProperties: false },
    });
  });

  it('wraps a top-level array as {items}', () => {
    const items = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
    const prepared = prepareSchema({ type: 'array', items });
    expect(prepared.wrapped).toBe(true);
    expect(prepared.target).toEqual({ type: 'object', properties: { items: { type: 'array', items } }, required: ['items'], additionalProperties: false });
    expect(prepared.strictForm).toMatchObject({ required: ['items'], properties: { items: { type: 'array', items: { additionalProperties: false } } } });
  });

  it('reads a schema without a type: properties make an object, a bare map of properties is one with every key required', () => {
    expect(prepareSchema({ properties: { a: { type: 'string' } } }).original).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
    const map = prepareSchema({ title: { type: 'string' }, year: { type: 'integer' } });
    expect(map.original).toEqual({ type: 'object', properties: { title: { type: 'string' }, year: { type: 'integer' } }, required: ['title', 'year'] });
    expect(map.strictForm.required).toEqual(['title', 'year']);
  });

  it('sends the schema with strict off when strict mode cannot express it (an open map, a value of any type, a tuple)', () => {
    for (const property of [{ type: 'object', additionalProperties: { type: 'string' } }, {}, { type: 'array', items: [{ type: 'string' }] }]) {
      const prepared = prepareSchema({ type: 'object', properties: { x: property, y: { type: 'string' } } });
      expect(prepared.strict, JSON.stringify(property)).toBe(false);
      expect(prepared.strictForm).toBe(prepared.target);
    }
  });

  it('refuses a top level that is neither an object nor an array', () => {
    expect(() => prepareSchema({ type: 'string' })).toThrow(AppError);
  });
});

describe('pipeline/clients/models/schema: dropOptionalNulls', () => {
  it('removes the nulls of optional properties at every depth, keeps required ones and unknown keys', () => {
    const schema = {
      type: 'object',
      $defs: { offer: { type: 'object', properties: { price: { type: 'number' }, note: { type: 'string' } }, required: ['price'] } },
      properties: {
        name: { type: ['string', 'null'] },
        nick: { type: 'string' },
        offers: { type: 'array', items: { $ref: '#/$defs/offer' } },
      },
      required: ['name'],
    };
    const value = { name: null, nick: null, extra: null, offers: [{ price: null, note: null }, { price: 3, note: 'x' }] };
    dropOptionalNulls(value, schema);
    expect(value).toEqual({ name: null, extra: null, offers: [{ price: null }, { price: 3, note: 'x' }] });
  });
});

describe('pipeline/clients/models/validate', () => {
  it('checks the original schema: formats, bounds and patterns strict mode dropped', () => {
    const check = compileCheck({ type: 'object', properties: { url: { type: 'string', format: 'uri' }, n: { type: 'integer', maximum: 5 }, code: { type: 'string', pattern: '^[A-Z]{3}$' } }, required: ['url'] });
    expect(check({ url: 'https://example.com/', n: 5, code: 'USD' })).toEqual([]);
    expect(check({ url: 'not a uri', n: 6, code: 'usd' })).toEqual(['/url must match format "uri"', '/n must be <= 5', '/code must match pattern "^[A-Z]{3}$"']);
    expect(check({})).toEqual(["(the top level) must have required property 'url'"]);
  });

  it("runs a caller's pattern in RE2: a catastrophic one is linear, one RE2 cannot run is a bad_request", () => {
    const check = compileCheck({ type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } });
    // V8's backtracking engine would not finish this check; RE2 answers it in linear time.
    expect(check({ s: `${'a'.repeat(5000)}!` })).toEqual(['/s must match pattern "^(a+)+$"']);
    const error = (() => {
      try {
        compileCheck({ type: 'object', properties: { s: { type: 'string', pattern: '(?=a)a' } } });
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('bad_request');
  });
});

describe('pipeline/clients/models/output: parseModelJson', () => {
  it('reads plain JSON, a fenced block (with or without a language), and JSON amid prose', () => {
    expect(parseModelJson(' {"a":1} ')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseModelJson('```json\n{"a":2}\n```')).toEqual({ ok: true, value: { a: 2 } });
    expect(parseModelJson('Here you go:\n```\n[1,2]\n```\nAnything else?')).toEqual({ ok: true, value: [1, 2] });
    expect(parseModelJson('The answer is {"a": {"b": 3}} as asked.')).toEqual({ ok: true, value: { a: { b: 3 } } });
  });

  it('says why when there is nothing to read', () => {
    expect(parseModelJson('   ')).toEqual({ ok: false, problem: 'the answer was empty' });
    expect(parseModelJson('I could not find it.')).toEqual({ ok: false, problem: 'the answer was not JSON' });
    expect(parseModelJson('{"a": 1')).toEqual({ ok: false, problem: 'the answer was not JSON' });
  });
});

describe('pipeline/clients/models/fit: fitInput', () => {
  it('leaves a short text alone', () => {
    expect(fitInput('short', 10)).toEqual({ text: 'short', truncated: false, warning: null });
  });

  it('cuts at a paragraph break, else a sentence end, else a space, else the limit', () => {
    const paragraphs = `${'a'.repeat(85)}\n\n${'b'.repeat(50)}`;
    expect(fitInput(paragraphs, 100).text).toBe('a'.repeat(85));
    const sentences = `${'Words here. '.repeat(8)}${'z'.repeat(50)}`; // sentence ends up to 96
    const cut = fitInput(sentences, 100);
    expect(cut.text.endsWith('here.')).toBe(true);
    expect(cut.warning).toBe(`the page was cut to ${cut.text.length} characters to fit the model`);
    const spaces = `${'x'.repeat(95)} ${'y'.repeat(50)}`;
    expect(fitInput(spaces, 100).text).toBe('x'.repeat(95));
    expect(fitInput('q'.repeat(150), 100).text).toBe('q'.repeat(100));
  });

  it('never splits a surrogate pair', () => {
    const text = `${'q'.repeat(99)}😀${'q'.repeat(10)}`;
    const cut = fitInput(text, 100);
    expect(cut.text).toBe('q'.repeat(99));
    expect(cut.truncated).toBe(true);
  });
});

describe('pipeline/clients/models/errors: retryAfterMs', () => {
  it('prefers retry-after-ms, reads seconds and HTTP dates, and ignores what it cannot read', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    expect(retryAfterMs({ 'retry-after': '2' }, now)).toBe(2000);
    expect(retryAfterMs({ 'retry-after': '0.5' }, now)).toBe(500);
    expect(retryAfterMs({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }, now)).toBe(30000);
    expect(retryAfterMs({ 'retry-after': 'Tue, 31 Dec 2024 23:00:00 GMT' }, now)).toBe(0);
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeNull();
    expect(retryAfterMs({}, now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
  });
});

describe('pipeline/clients/models/errors: the SDK\'s errors, recognised without importing the SDK', () => {
  it('reads an APICallError of the installed `ai` as the SDK\'s own isInstance does, and nothing else', () => {
    const error = new APICallError({
      message: 'Too Many Requests',
      url: 'https://api.openai.com/v1/responses',
      requestBodyValues: {},
      statusCode: 429,
      responseHeaders: { 'retry-after': '3' },
      responseBody: '{"error":{"message":"slow down","type":"rate_limit_exceeded"}}',
    });
    const model = operatorModel(loadConfig({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: 'sk-test-0123456789' }))!;
    expect(isApiCallError(error)).toBe(APICallError.isInstance(error));
    expect(isApiCallError(error)).toBe(true);
    expect(readFailure(error, model)).toMatchObject({ kind: 'rate-limited', status: 429, type: 'rate_limit_exceeded', retryAfterMs: 3000, retriable: true });
    for (const other of [new Error('Too Many Requests'), { statusCode: 429 }, null, 'error', new AppError('model_failed', 'x')]) {
      expect(isApiCallError(other)).toBe(false);
      expect(APICallError.isInstance(other)).toBe(false);
      expect(readFailure(other, model)).toBeNull();
    }
  });
});

describe('pipeline/clients/models/config', () => {
  const env = (e: Record<string, string>) => loadConfig(e);

  it('no MODEL_PROVIDER: no operator model and nothing to report', () => {
    expect(checkModelConfig(env({}))).toBeNull();
    expect(operatorModel(env({}))).toBeNull();
  });

  it('names what a configured provider lacks', () => {
    expect(checkModelConfig(env({ MODEL_PROVIDER: 'openai' }))).toMatch(/^MODEL_API_KEY: MODEL_PROVIDER=openai needs/);
    expect(checkModelConfig(env({ MODEL_PROVIDER: 'anthropic' }))).toMatch(/^MODEL_API_KEY: /);
    expect(checkModelConfig(env({ MODEL_PROVIDER: 'openai-compatible', MODEL_NAME: 'llama3.1' }))).toMatch(/^MODEL_BASE_URL: /);
    expect(checkModelConfig(env({ MODEL_PROVIDER: 'openai-compatible', MODEL_BASE_URL: 'http://127.0.0.1:11434/v1' }))).toMatch(/^MODEL_NAME: /);
    expect(checkModelConfig(env({ OPENAI_BASE_URL: 'ftp://user:secret@host/v1' }))).toBe('OPENAI_BASE_URL: must be an http:// or https:// URL, got "ftp://***@host/v1"');
    expect(() => operatorModel(env({ MODEL_PROVIDER: 'openai' }))).toThrow(ConfigError);
  });

  it("builds the operator's model: default names, MODEL_BASE_URL over the provider's URL, trailing slash trimmed", () => {
    const openai = operatorModel(env({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: 'sk-op' }));
    expect(openai).toMatchObject({ provider: 'openai', name: 'gpt-4o-mini', baseUrl: 'https://api.openai.com/v1', owner: 'operator', apiKey: 'sk-op' });
    const anthropic = operatorModel(env({ MODEL_PROVIDER: 'anthropic', MODEL_API_KEY: 'ak', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/v1/' }));
    expect(anthropic).toMatchObject({ name: 'claude-3-5-haiku-latest', baseUrl: 'http://127.0.0.1:9/v1' });
    const local = operatorModel(env({ MODEL_PROVIDER: 'openai-compatible', MODEL_BASE_URL: 'http://10.0.0.5:11434/v1', MODEL_NAME: 'llama3.1' }));
    expect(local).toMatchObject({ provider: 'openai-compatible', name: 'llama3.1', baseUrl: 'http://10.0.0.5:11434/v1', apiKey: null });
    const overridden = operatorModel(env({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: 'k', MODEL_NAME: 'gpt-4o', MODEL_BASE_URL: 'http://127.0.0.1:1/v1' }));
    expect(overridden).toMatchObject({ name: 'gpt-4o', baseUrl: 'http://127.0.0.1:1/v1' });
  });

  it("builds a caller's model at OPENAI_BASE_URL / ANTHROPIC_BASE_URL, never MODEL_BASE_URL", () => {
    const cfg = env({ MODEL_BASE_URL: 'http://10.0.0.5/v1', ANTHROPIC_BASE_URL: 'http://127.0.0.1:7/v1' });
    expect(callerModel(cfg, { provider: 'openai', apiKey: 'sk-c' })).toMatchObject({ provider: 'openai', name: 'gpt-4o-mini', baseUrl: 'https://api.openai.com/v1', owner: 'caller' });
    expect(callerModel(cfg, { provider: 'anthropic', apiKey: 'ak-c', name: 'claude-sonnet-4-5' })).toMatchObject({ name: 'claude-sonnet-4-5', baseUrl: 'http://127.0.0.1:7/v1' });
    expect(callerModel(cfg, { provider: 'anthropic', apiKey: 'ak-c', name: null }).name).toBe('claude-3-5-haiku-latest');
  });

  it('keeps the key out of anything that prints or serialises a model choice', () => {
    const key = 'sk-caller-do-not-print-4242';
    const choice = callerModel(env({}), { provider: 'openai', apiKey: key });
    expect(choice.apiKey).toBe(key);
    expect(JSON.stringify(choice)).not.toContain(key);
    expect(inspect(choice, { depth: 5 })).not.toContain(key);
    expect({ ...choice }).not.toHaveProperty('apiKey');
    expect(Object.isFrozen(choice)).toBe(true);
  });
});
