/**
 * pipeline/clients/models against local fake providers (test/helpers/fake-models.ts) on
 * 127.0.0.1, through the real AI SDK path, pointed there by OPENAI_BASE_URL /
 * ANTHROPIC_BASE_URL / MODEL_BASE_URL in a loaded Config: what each provider is sent (strict
 * JSON schema, the forced tool, JSON mode after a refusal, the key in the right header), how
 * the answers are read (fences, optional nulls, top-level arrays, one repair), retries (429
 * with retry-after, 5xx, 529; not 400/401/insufficient_quota), the deadline, errors mapped to
 * our codes without the key in any message or log line, the input cut to fit, and the log line.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callerModel, generateStructured, generateText, operatorModel, type ModelCallOptions, type ModelChoice } from '../../pipeline/clients/models/index.js';
import { loadConfig, type Config } from '../../pipeline/service/config.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { reply, startFakeAnthropic, startFakeOpenAI, type FakeModel, type FakeRequest } from '../helpers/fake-models.js';

const KEY = 'sk-test-Zq8rT1uV2wX3yZ4aB5cD6eF7';

const PRODUCT_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    price: { type: 'number', minimum: 0 },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', default: 'USD' },
    url: { type: 'string', format: 'uri' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name'],
};

const PAGE = 'Acme Anvil. The finest anvil money can buy. Price: 99.50 USD.';

function config(env: Record<string, string>): Config {
  return loadConfig({ MODEL_TIMEOUT_MS: '5000', MODEL_MAX_RETRIES: '2', ...env });
}

/** A logger whose lines the test reads, and the raw text of everything it wrote. */
function capturedLog() {
  const raw: string[] = [];
  const log = createLogger('debug', new Writable({ write: (chunk: Buffer, _enc, done) => void (raw.push(chunk.toString('utf8')), done()) }) as never);
  return { log, raw, lines: () => raw.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** Fast retry waits: the real backoff's shape at 1–5 ms. */
const FAST = { baseDelayMs: 1, maxDelayMs: 5 };

function options(cfg: Config, extra: Partial<ModelCallOptions> = {}): ModelCallOptions {
  return { config: cfg, backoff: FAST, ...extra };
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const userText = (request: FakeRequest): string => {
  const messages = request.body.messages ?? [];
  const user = messages.filter((m) => m.role === 'user');
  const content = user[0]?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((c: { text?: string }) => c.text ?? '').join('') : '';
};

describe('pipeline/clients/models: OpenAI', () => {
  let fake: FakeModel;
  let cfg: Config;
  let model: ModelChoice;
  beforeEach(async () => {
    fake = await startFakeOpenAI({ apiKey: KEY, answer: { name: 'Acme Anvil', price: 99.5, currency: 'USD' } });
    cfg = config({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: KEY, OPENAI_BASE_URL: fake.url });
    model = operatorModel(cfg) as ModelChoice;
  });
  afterEach(() => fake.close());

  it('asks Chat Completions for strict JSON-schema output and returns the answer without the optional nulls', async () => {
    const { log, lines, raw } = capturedLog();
    const result = await generateStructured(model, { system: 'Read the product.', prompt: PAGE, schema: PRODUCT_SCHEMA, schemaName: 'product' }, options(cfg, { log }));

    expect(result.object).toEqual({ name: 'Acme Anvil', price: 99.5, currency: 'USD' }); // url and tags were null: dropped
    expect(result.truncated).toBe(false);
    expect(result.warnings).toEqual([]);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);

    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests as [FakeRequest];
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.body.model).toBe('gpt-4o-mini');
    expect(request.body.messages?.[0]).toEqual({ role: 'system', content: 'Read the product.' });
    expect(userText(request)).toBe(PAGE);
    const format = request.body.response_format;
    expect(format?.type).toBe('json_schema');
    expect(format?.json_schema?.name).toBe('product');
    expect(format?.json_schema?.strict).toBe(true);
    expect(format?.json_schema?.schema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string' },
        price: { type: ['number', 'null'] },
        currency: { type: ['string', 'null'] },
        url: { type: ['string', 'null'] },
        tags: { type: ['array', 'null'], items: { type: 'string' } },
      },
      required: ['name', 'price', 'currency', 'url', 'tags'],
      additionalProperties: false,
    });

    const [line] = lines();
    expect(line).toMatchObject({ msg: 'model call', provider: 'openai', model: 'gpt-4o-mini', owner: 'operator', shape: 'json-schema', attempts: 1, repaired: false });
    expect(line?.inputTokens).toBe(result.usage.inputTokens);
    expect(line?.outputTokens).toBe(result.usage.outputTokens);
    expect(typeof line?.ms).toBe('number');
    expect(raw.join('')).not.toContain(KEY);
    expect(raw.join('')).not.toContain('Acme Anvil'); // neither the page nor the answer
  });

  it('wraps a top-level array schema as {items} and answers the array', async () => {
    fake.answer = [{ name: 'A' }, { name: 'B', price: 2 }];
    const schema = { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } }, required: ['name'] } };
    const result = await generateStructured<unknown[]>(model, { system: 's', prompt: PAGE, schema }, options(cfg));
    expect(result.object).toEqual([{ name: 'A' }, { name: 'B', price: 2 }]);
    const sent = fake.requests[0]?.body.response_format?.json_schema?.schema;
    expect(sent).toMatchObject({ type: 'object', required: ['items'], properties: { items: { type: 'array' } }, additionalProperties: false });
  });

  it('reads JSON wrapped in a ```json fence', async () => {
    fake.respondWith(reply.fenced({ name: 'Fenced', price: 1 }));
    const result = await generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg));
    expect(result.object).toEqual({ name: 'Fenced', price: 1 });
    expect(fake.requests).toHaveLength(1);
  });

  it('repairs once: an answer that is not JSON is shown back with what was wrong', async () => {
    const { log, lines } = capturedLog();
    fake.respondWith(reply.text('Sorry, I cannot find a product here.'));
    const result = await generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg, { log }));
    expect(result.object).toEqual({ name: 'Acme Anvil', price: 99.5, currency: 'USD' });
    expect(fake.requests).toHaveLength(2);
    const repair = fake.requests[1]?.body.messages ?? [];
    expect(repair.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(repair[2]?.content).toBe('Sorry, I cannot find a product here.');
    expect(String(repair[3]?.content)).toContain('the answer was not JSON');
    expect(lines()[0]).toMatchObject({ repaired: true, attempts: 2 });
  });

  it('repairs an answer that breaks the original schema (a constraint strict mode dropped), then gives up with model_output_invalid', async () => {
    const bad = { name: '', price: -3, currency: 'dollars' };
    fake.respondWith(reply.object(bad), reply.object(bad));
    const error = await failure(generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg)));
    expect(error.code).toBe('model_output_invalid');
    expect(error.message).toContain('/name must NOT have fewer than 1 characters');
    expect(error.message).toContain('/price must be >= 0');
    expect(error.message).toContain('/currency must match pattern');
    expect(error.message).not.toContain('dollars');
    expect(fake.requests).toHaveLength(2);
    expect(String(fake.requests[1]?.body.messages?.[3]?.content)).toContain('/price must be >= 0');
  });

  it('retries a 429 after its retry-after (seconds), then answers', async () => {
    fake.respondWith(reply.rateLimited({ 'retry-after': '0' }));
    const { log, lines } = capturedLog();
    const result = await generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg, { log }));
    expect(result.object.name).toBe('Acme Anvil');
    expect(fake.requests).toHaveLength(2);
    expect(lines()[0]).toMatchObject({ attempts: 2 });
  });

  it('waits what retry-after-ms, retry-after seconds and a retry-after date say, over its own backoff', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    const inTwoSeconds = new Date(Date.now() + 2000).toUTCString();
    fake.respondWith(reply.rateLimited({ 'retry-after-ms': '50', 'retry-after': '9' }), reply.rateLimited({ 'retry-after': '1' }));
    await generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg, { backoff: { ...FAST, sleep } }));
    fake.respondWith(reply.rateLimited({ 'retry-after': inTwoSeconds }));
    await generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg, { backoff: { ...FAST, sleep } }));
    expect(waits.slice(0, 2)).toEqual([50, 1000]);
    expect(waits[2]).toBeGreaterThan(0);
    expect(waits[2]).toBeLessThanOrEqual(2000);
    expect(fake.requests).toHaveLength(5);
  });

  it('gives up on a 429 after MODEL_MAX_RETRIES with model_rate_limited and the provider\'s Retry-After', async () => {
    fake.respondWith(...Array.from({ length: 3 }, () => reply.rateLimited({ 'retry-after': '0.002' })));
    const error = await failure(generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg)));
    expect(error.code).toBe('model_rate_limited');
    expect(error.status).toBe(429);
    expect(error.headers['Retry-After']).toBe('1');
    expect(error.message).toContain('429 rate_limit_exceeded');
    expect(fake.requests).toHaveLength(3); // 1 + MODEL_MAX_RETRIES
  });

  it('makes exactly one request per attempt: no SDK retries on top of its own (MODEL_MAX_RETRIES=0)', async () => {
    const noRetries = config({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: KEY, OPENAI_BASE_URL: fake.url, MODEL_MAX_RETRIES: '0' });
    fake.respondWith(reply.rateLimited({ 'retry-after': '0' }), reply.error(500));
    expect((await failure(generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(noRetries)))).code).toBe('model_rate_limited');
    expect((await failure(generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(noRetries)))).code).toBe('model_failed');
    expect(fake.requests).toHaveLength(2);
  });

  it('fails at once when the provider\'s retry-after would end past the deadline', async () => {
    fake.respondWith(reply.rateLimited({ 'retry-after': '60' }));
    const error = await failure(generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg)));
    expect(error.code).toBe('model_rate_limited');
    expect(error.headers['Retry-After']).toBe('60');
    expect(fake.requests).toHaveLength(1);
  });

  it('retries 5xx and answers; a 5xx that persists is model_failed after the retries', async () => {
    fake.respondWith(reply.error(500), reply.error(503));
    expect((await generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg))).object.name).toBe('Acme Anvil');
    expect(fake.requests).toHaveLength(3);
    fake.respondWith(reply.error(500), reply.error(500), reply.error(500));
    const error = await failure(generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg)));
    expect(error.code).toBe('model_failed');
    expect(error.message).toContain('OpenAI answered 500 server_error');
    expect(fake.requests).toHaveLength(6);
  });

  it('does not retry a 400, and reports it as model_failed', async () => {
    fake.respondWith(reply.error(400, { message: "Invalid schema for response_format 'extract'" }));
    const error = await failure(generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg)));
    expect(error.code).toBe('model_failed');
    expect(error.message).toContain('Invalid schema for response_format');
    expect(fake.requests).toHaveLength(1);
  });

  it('quotes at most a short piece of what the provider said: never a whole page it echoes', async () => {
    const page = `${'Lorem ipsum dolor sit amet. '.repeat(200)}THE END`;
    fake.respondWith(reply.error(400, { message: `This model's maximum context length is 10 tokens. Your messages: ${page}` }));
    const error = await failure(generateStructured(model, { system: 's', prompt: page, schema: PRODUCT_SCHEMA }, options(cfg)));
    expect(error.code).toBe('model_failed');
    expect(error.message).toContain('maximum context length');
    expect(error.message).not.toContain('THE END');
    expect(error.message.length).toBeLessThan(400);
  });

  it("a caller's rejected key is model_key_rejected (not retried); the key the fake echoes is in no message or log line", async () => {
    const wrongKey = 'sk-caller-WRONG-9f8e7d6c5b4a3928';
    const caller = callerModel(cfg, { provider: 'openai', apiKey: wrongKey });
    const { log, raw } = capturedLog();
    const error = await failure(generateStructured(caller, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg, { log })));
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.headers.authorization).toBe(`Bearer ${wrongKey}`);
    expect(error.code).toBe('model_key_rejected');
    expect(error.status).toBe(400);
    expect(error.message).toBe('OpenAI answered 401 invalid_api_key: the key given in model.apiKey was rejected');
    expect(error.cause).toBeUndefined(); // the SDK's error (request body, echoed key) is not attached
    expect(raw.join('')).not.toContain(wrongKey);
    expect(raw.join('')).toContain('"code":"model_key_rejected"');
    expect(JSON.stringify(error)).not.toContain(wrongKey);
  });

  it("the operator's rejected key is model_failed, saying so", async () => {
    const wrong = operatorModel(config({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: 'sk-operator-wrong-000000', OPENAI_BASE_URL: fake.url })) as ModelChoice;
    const error = await failure(generateStructured(wrong, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg)));
    expect(error.code).toBe('model_failed');
    expect(error.message).toContain("the operator's key (MODEL_API_KEY) was rejected");
    expect(error.message).not.toContain('sk-operator-wrong-000000');
  });

  it('does not retry 429 insufficient_quota: the caller\'s key is out of quota', async () => {
    fake.respondWith(reply.insufficientQuota());
    const caller = callerModel(cfg, { provider: 'openai', apiKey: KEY, name: 'gpt-4o' });
    const error = await failure(generateStructured(caller, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg)));
    expect(error.code).toBe('model_key_rejected');
    expect(error.message).toContain('429 insufficient_quota');
    expect(error.message).toContain('out of quota');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.body.model).toBe('gpt-4o');
  });

  it('a hung provider is model_timeout at MODEL_TIMEOUT_MS, and the request is abandoned', async () => {
    const short = config({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: KEY, OPENAI_BASE_URL: fake.url, MODEL_TIMEOUT_MS: '1000' });
    fake.respondWith(reply.hang());
    const error = await failure(generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(short)));
    expect(error.code).toBe('model_timeout');
    expect(error.message).toContain('1000 ms');
    expect(fake.requests).toHaveLength(1);
    await expect.poll(() => fake.pending()).toBe(0); // the client hung up
  });

  it("passes the caller's abort on as its reason", async () => {
    fake.respondWith(reply.hang());
    const controller = new AbortController();
    const pending = generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg, { signal: controller.signal }));
    await expect.poll(() => fake.requests.length).toBe(1);
    const reason = new Error('job cancelled');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('cuts a long page at a paragraph near MODEL_MAX_INPUT_CHARS and says so', async () => {
    const small = config({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: KEY, OPENAI_BASE_URL: fake.url, MODEL_MAX_INPUT_CHARS: '1000' });
    const paragraph = `${'word '.repeat(59)}end.`; // 299 characters
    const page = Array.from({ length: 10 }, () => paragraph).join('\n\n');
    const result = await generateStructured(model, { system: 's', prompt: page, schema: PRODUCT_SCHEMA }, options(small));
    const sent = userText(fake.requests[0] as FakeRequest);
    expect(sent.length).toBeLessThanOrEqual(1000);
    expect(sent.length).toBeGreaterThanOrEqual(800);
    expect(sent.endsWith('end.')).toBe(true);
    expect(page.startsWith(sent)).toBe(true);
    expect(result.truncated).toBe(true);
    expect(result.warnings).toEqual([`the page was cut to ${sent.length} characters to fit the model`]);
  });

  it('answers plain text (a summary) without a response format', async () => {
    fake.answerText = '  An anvil for sale at 99.50 USD.  ';
    const result = await generateText(model, { system: 'Summarise.', prompt: PAGE }, options(cfg));
    expect(result).toMatchObject({ text: 'An anvil for sale at 99.50 USD.', truncated: false, warnings: [] });
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(fake.requests[0]?.body.response_format).toBeUndefined();
    expect(fake.requests[0]?.body.max_tokens).toBe(1024);
  });

  it('an empty text answer is model_output_invalid', async () => {
    fake.respondWith(reply.text(''));
    expect((await failure(generateText(model, { system: 'Summarise.', prompt: PAGE }, options(cfg)))).code).toBe('model_output_invalid');
  });
});

describe('pipeline/clients/models: a provider that cannot be reached', () => {
  it('is model_failed after the retries (a refused connection)', async () => {
    const fake = await startFakeOpenAI();
    const url = fake.url;
    await fake.close();
    const cfg = config({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: KEY, OPENAI_BASE_URL: url });
    const { log, lines } = capturedLog();
    const error = await failure(generateStructured(operatorModel(cfg) as ModelChoice, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg, { log })));
    expect(error.code).toBe('model_failed');
    expect(error.message).toContain('OpenAI could not be reached');
    expect(lines()[0]).toMatchObject({ msg: 'model call failed', code: 'model_failed', attempts: 3 });
  });
});

describe('pipeline/clients/models: Anthropic', () => {
  let fake: FakeModel;
  let cfg: Config;
  let model: ModelChoice;
  beforeEach(async () => {
    fake = await startFakeAnthropic({ apiKey: KEY, answer: { name: 'Acme Anvil', price: 99.5 } });
    cfg = config({ MODEL_PROVIDER: 'anthropic', MODEL_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url });
    model = operatorModel(cfg) as ModelChoice;
  });
  afterEach(() => fake.close());

  it('forces one tool whose input schema is the caller\'s, sends the key as x-api-key, and reads the tool_use input', async () => {
    const { log, lines } = capturedLog();
    const result = await generateStructured(model, { system: 'Read the product.', prompt: PAGE, schema: PRODUCT_SCHEMA, schemaName: 'product', maxOutputTokens: 500 }, options(cfg, { log }));
    expect(result.object).toEqual({ name: 'Acme Anvil', price: 99.5 });
    const [request] = fake.requests as [FakeRequest];
    expect(request.path).toBe('/v1/messages');
    expect(request.headers['x-api-key']).toBe(KEY);
    expect(request.headers.authorization).toBeUndefined();
    expect(request.headers['anthropic-version']).toBe('2023-06-01');
    expect(request.body.model).toBe('claude-3-5-haiku-latest');
    expect(request.body.max_tokens).toBe(500);
    expect(JSON.stringify(request.body.system)).toContain('Read the product.');
    expect(request.body.tool_choice).toEqual({ type: 'tool', name: 'product' });
    expect(request.body.tools).toHaveLength(1);
    expect(request.body.tools?.[0]).toMatchObject({ name: 'product', input_schema: PRODUCT_SCHEMA });
    expect(lines()[0]).toMatchObject({ provider: 'anthropic', shape: 'tool', attempts: 1 });
  });

  it('reads JSON from a text answer when the model did not call the tool', async () => {
    fake.respondWith(reply.fenced({ name: 'From text' }));
    const result = await generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg));
    expect(result.object).toEqual({ name: 'From text' });
    expect(result.usage.outputTokens).toBeGreaterThan(0); // counted although the SDK refused the answer
    expect(fake.requests).toHaveLength(1);
  });

  it('retries 529 overloaded_error; one that persists is model_failed', async () => {
    fake.respondWith(reply.overloaded());
    expect((await generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg))).object.name).toBe('Acme Anvil');
    expect(fake.requests).toHaveLength(2);
    fake.respondWith(reply.overloaded(), reply.overloaded(), reply.overloaded());
    const error = await failure(generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg)));
    expect(error.code).toBe('model_failed');
    expect(error.message).toContain('Anthropic answered 529 overloaded_error');
    expect(fake.requests).toHaveLength(5);
  });

  it('retries a 429 rate_limit_error after retry-after', async () => {
    fake.respondWith(reply.rateLimited({ 'retry-after': '0' }));
    await generateStructured(model, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg));
    expect(fake.requests).toHaveLength(2);
  });

  it("a caller's rejected key is model_key_rejected, the echoed key in no message or log line", async () => {
    const wrongKey = 'sk-ant-caller-WRONG-1234567890';
    const { log, raw } = capturedLog();
    const caller = callerModel(cfg, { provider: 'anthropic', apiKey: wrongKey, name: 'claude-sonnet-4-5' });
    const error = await failure(generateStructured(caller, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg, { log })));
    expect(error.code).toBe('model_key_rejected');
    expect(error.message).toBe('Anthropic answered 401 authentication_error: the key given in model.apiKey was rejected');
    expect(fake.requests[0]?.headers['x-api-key']).toBe(wrongKey);
    expect(raw.join('')).not.toContain(wrongKey);
    expect(fake.requests).toHaveLength(1);
  });

  it('answers plain text with no tools', async () => {
    fake.answerText = 'An anvil.';
    const result = await generateText(model, { system: 'Summarise.', prompt: PAGE }, options(cfg));
    expect(result.text).toBe('An anvil.');
    expect(fake.requests[0]?.body.tools).toBeUndefined();
  });
});

describe('pipeline/clients/models: openai-compatible servers', () => {
  let fake: FakeModel;
  afterEach(() => fake.close());

  const compatible = (url: string, extra: Record<string, string> = {}) => config({ MODEL_PROVIDER: 'openai-compatible', MODEL_BASE_URL: url, MODEL_NAME: 'llama3.1', ...extra });

  it('asks with strict json_schema at MODEL_BASE_URL, without a key when none is set', async () => {
    fake = await startFakeOpenAI({ answer: { name: 'Local' } });
    const cfg = compatible(fake.url);
    const result = await generateStructured(operatorModel(cfg) as ModelChoice, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg));
    expect(result.object).toEqual({ name: 'Local' });
    expect(fake.requests[0]?.headers.authorization).toBeUndefined();
    expect(fake.requests[0]?.body.model).toBe('llama3.1');
    expect(fake.requests[0]?.body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'extract', strict: true } });
  });

  it('falls back once to JSON mode with the schema in the instructions when the server refuses json_schema, and stays there for the repair', async () => {
    fake = await startFakeOpenAI({ rejectJsonSchema: true, answer: { name: 'Ollama', price: 3 } });
    const cfg = compatible(fake.url, { MODEL_API_KEY: 'local-key' });
    const { log, lines } = capturedLog();
    fake.respondWith(reply.error(400, { message: "response_format type 'json_schema' is not supported" }), reply.text('not json at all'));
    const result = await generateStructured(operatorModel(cfg) as ModelChoice, { system: 'Read it.', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg, { log }));
    expect(result.object).toEqual({ name: 'Ollama', price: 3 });
    expect(fake.requests.map((r) => r.body.response_format?.type)).toEqual(['json_schema', 'json_object', 'json_object']);
    const system = String(fake.requests[1]?.body.messages?.[0]?.content);
    expect(system.startsWith('Read it.')).toBe(true);
    expect(system).toContain('JSON Schema');
    expect(system).toContain('"minLength":1'); // the original schema, constraints and all
    expect(fake.requests[1]?.headers.authorization).toBe('Bearer local-key');
    expect(lines()[0]).toMatchObject({ shape: 'json-mode', repaired: true, attempts: 3 });
  });

  it('unwraps a fenced answer in JSON mode', async () => {
    fake = await startFakeOpenAI({ rejectJsonSchema: true });
    const cfg = compatible(fake.url);
    fake.respondWith(reply.error(400, { message: 'json_schema not supported' }), reply.fenced({ name: 'Fenced' }));
    const result = await generateStructured(operatorModel(cfg) as ModelChoice, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg));
    expect(result.object).toEqual({ name: 'Fenced' });
  });

  it('does not fall back for an OpenAI model, nor for a 400 about something else', async () => {
    fake = await startFakeOpenAI();
    const cfg = compatible(fake.url);
    fake.respondWith(reply.error(400, { message: 'context length exceeded' }));
    expect((await failure(generateStructured(operatorModel(cfg) as ModelChoice, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(cfg)))).code).toBe('model_failed');
    const openai = config({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: KEY, OPENAI_BASE_URL: fake.url });
    fake.respondWith(reply.error(400, { message: 'response_format json_schema is not supported' }));
    expect((await failure(generateStructured(operatorModel(openai) as ModelChoice, { system: 's', prompt: PAGE, schema: PRODUCT_SCHEMA }, options(openai)))).code).toBe('model_failed');
    expect(fake.requests).toHaveLength(2);
  });
});

describe('test/helpers/fake-models: the fakes speak the providers\' shapes', () => {
  it('OpenAI: errors as {error:{message,type,param,code}} with x-request-id; json_object answered with the answer', async () => {
    const fake = await startFakeOpenAI({ answer: { a: 1 } });
    try {
      const missing = await fetch(`${fake.url}/responses`, { method: 'POST', body: '{}' });
      expect(missing.status).toBe(404);
      expect(missing.headers.get('x-request-id')).toMatch(/^req_/);
      expect(await missing.json()).toMatchObject({ error: { type: 'invalid_request_error', param: null } });
      const ok = await fetch(`${fake.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm', messages: [], response_format: { type: 'json_object' } }) });
      const body = (await ok.json()) as { object: string; choices: { message: { content: string; refusal: null }; finish_reason: string }[]; usage: { total_tokens: number } };
      expect(body.object).toBe('chat.completion');
      expect(JSON.parse(body.choices[0]?.message.content ?? '')).toEqual({ a: 1 });
      expect(body.choices[0]).toMatchObject({ finish_reason: 'stop', message: { refusal: null } });
      expect(body.usage.total_tokens).toBeGreaterThan(0);
    } finally {
      await fake.close();
    }
  });

  it('Anthropic: requires anthropic-version, answers errors as {type:"error", error:{type,message}} with request-id', async () => {
    const fake = await startFakeAnthropic();
    try {
      const noVersion = await fetch(`${fake.url}/messages`, { method: 'POST', headers: { 'x-api-key': 'k' }, body: '{}' });
      expect(noVersion.status).toBe(400);
      expect(await noVersion.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' } });
      fake.respondWith(reply.overloaded());
      const overloaded = await fetch(`${fake.url}/messages`, { method: 'POST', headers: { 'anthropic-version': '2023-06-01' }, body: '{}' });
      expect(overloaded.status).toBe(529);
      expect(overloaded.headers.get('request-id')).toMatch(/^req_/);
      expect(await overloaded.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    } finally {
      await fake.close();
    }
  });
});
