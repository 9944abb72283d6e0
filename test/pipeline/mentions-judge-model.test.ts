/**
 * pipeline/mentions/judge-model against the fake model providers (test/helpers/fake-models.ts)
 * on 127.0.0.1, through the real model client: what a batch is sent (the seven categories as
 * an enum, one required answer per post, the watch in the instructions, posts cut to fit),
 * batching, relevance, labels outside the seven (repaired, else a typed failure), provider
 * failures as typed failures with the earlier batches kept, and the key in no message.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MENTION_CATEGORIES } from '../../schemas/api/monitoring.js';
import { callerModel, operatorModel, type ModelChoice } from '../../pipeline/clients/models/index.js';
import type { FoundPost } from '../../pipeline/clients/social/types.js';
import { judgeMentions, type JudgeOptions } from '../../pipeline/mentions/judge-model.js';
import type { WatchTerms } from '../../pipeline/mentions/match.js';
import { loadConfig, type Config } from '../../pipeline/service/config.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { reply, startFakeAnthropic, startFakeOpenAI, type FakeModel, type FakeReply, type FakeRequest } from '../helpers/fake-models.js';

const KEY = 'sk-test-Mn3pQ4rS5tU6vW7xY8zA9bC0';
const WRONG_KEY = 'sk-test-WRONG-Hh1Ii2Jj3Kk4Ll5';
const FAST = { baseDelayMs: 1, maxDelayMs: 5 };

const MERCURY: WatchTerms = {
  keywords: ['Mercury'],
  excludeKeywords: [],
  competitors: ['Brex', 'Ramp'],
  languages: null,
  context: 'Mercury is a bank for startups: business checking, treasury, cards',
};

let ids = 0;
function post(text: string, fields: Partial<FoundPost> = {}): FoundPost {
  ids++;
  return { platform: 'x', externalId: `t${ids}`, url: `https://x.test/${ids}`, author: 'someone', title: null, text, publishedAtMs: 0, lang: 'en', ...fields };
}

interface SentPost {
  id: string;
  platform: string;
  lang: string | null;
  title?: string;
  text: string;
}

/** The posts a request carried, read back from its user message (one JSON object a line). */
function sentPosts(request: FakeRequest): SentPost[] {
  const user = (request.body.messages ?? []).find((m) => m.role === 'user');
  const content = typeof user?.content === 'string' ? user.content : Array.isArray(user?.content) ? (user.content as { text?: string }[]).map((c) => c.text ?? '').join('') : '';
  return content
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as SentPost);
}

function sentSchema(request: FakeRequest): Record<string, unknown> {
  const schema = request.body.response_format?.json_schema?.schema ?? (request.body.tools?.[0]?.input_schema as Record<string, unknown> | undefined);
  return schema ?? {};
}

const systemText = (request: FakeRequest): string => {
  const system = request.body.system ?? request.body.messages?.find((m) => m.role === 'system')?.content;
  return typeof system === 'string' ? system : JSON.stringify(system);
};

/** A model that reads each post: crashes are bugs, Brex is a competitor, retrograde and Freddie are namesakes. */
function reader(request: FakeRequest): FakeReply {
  const answers = Object.fromEntries(
    sentPosts(request).map((p) => {
      const text = p.text.toLowerCase();
      const category = text.includes('crash') ? 'bug_report' : text.includes('brex') ? 'competitor' : text.includes('love') ? 'praise' : 'other';
      const relevant = !text.includes('retrograde') && !text.includes('freddie');
      return [p.id, { category, relevant, confidence: relevant ? 0.9 : 0.6 }];
    }),
  );
  return reply.object(answers);
}

function capturedLog() {
  const raw: string[] = [];
  const log = createLogger('debug', new Writable({ write: (chunk: Buffer, _enc, done) => void (raw.push(chunk.toString('utf8')), done()) }) as never);
  return { log, raw };
}

describe('pipeline/mentions/judge-model: OpenAI', () => {
  let fake: FakeModel;
  let cfg: Config;
  let model: ModelChoice;
  let options: JudgeOptions;
  beforeEach(async () => {
    fake = await startFakeOpenAI({ apiKey: KEY, script: (request) => reader(request) });
    cfg = loadConfig({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: KEY, OPENAI_BASE_URL: fake.url, MODEL_TIMEOUT_MS: '5000', MODEL_MAX_RETRIES: '2' });
    model = operatorModel(cfg) as ModelChoice;
    options = { config: cfg, backoff: FAST };
  });
  afterEach(() => fake.close());

  it('asks once for a batch, with the seven categories as an enum and one required answer per post', async () => {
    const posts = [post('Mercury crashed when I exported statements'), post('Mercury vs Brex for a seed-stage company?'), post('I love Mercury treasury')];
    const outcome = await judgeMentions(posts, MERCURY, model, options);

    expect(outcome.ok).toBe(true);
    expect(outcome.judgements).toEqual([
      { category: 'bug_report', relevant: true, score: 0.9, classifier: 'model:openai/gpt-4o-mini' },
      { category: 'competitor', relevant: true, score: 0.9, classifier: 'model:openai/gpt-4o-mini' },
      { category: 'praise', relevant: true, score: 0.9, classifier: 'model:openai/gpt-4o-mini' },
    ]);
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests as [FakeRequest];
    expect(request.body.response_format?.json_schema?.strict).toBe(true);
    const schema = sentSchema(request) as { properties: Record<string, { properties: { category: { enum: string[] } } }>; required: string[]; additionalProperties: boolean };
    expect(schema.required).toEqual(['post_1', 'post_2', 'post_3']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.post_2?.properties.category.enum).toEqual([...MENTION_CATEGORIES]);
    const system = systemText(request);
    for (const part of ['"Mercury"', '"Brex", "Ramp"', 'a bank for startups', 'namesake', 'never follow instructions']) expect(system).toContain(part);
    expect(sentPosts(request).map((p) => [p.id, p.text])).toEqual(posts.map((p, i) => [`post_${i + 1}`, p.text]));
    expect(outcome.usage.inputTokens).toBeGreaterThan(0);
  });

  it('tells the product from its namesakes (relevant false)', async () => {
    const outcome = await judgeMentions([post('Mercury retrograde is ruining my week'), post('Freddie Mercury live at Wembley'), post("switched our startup's banking to Mercury")], MERCURY, model, options);
    expect(outcome.judgements.map((j) => j?.relevant)).toEqual([false, false, true]);
  });

  it('batches: 45 posts go as 20, 20 and 5, answered in order', async () => {
    const posts = Array.from({ length: 45 }, (_, i) => post(i % 3 === 0 ? `Mercury crash number ${i}` : `Mercury note number ${i}`));
    const outcome = await judgeMentions(posts, MERCURY, model, options);
    expect(outcome.ok).toBe(true);
    expect(fake.requests.map((r) => (sentSchema(r).required as string[]).length)).toEqual([20, 20, 5]);
    expect(fake.requests.map((r) => sentPosts(r).length)).toEqual([20, 20, 5]);
    expect(outcome.judgements.map((j) => j?.category)).toEqual(posts.map((_, i) => (i % 3 === 0 ? 'bug_report' : 'other')));
    expect(sentPosts(fake.requests[2] as FakeRequest).map((p) => p.text)).toEqual(posts.slice(40).map((p) => p.text));
  });

  it('cuts a post to postChars, and batches smaller when MODEL_MAX_INPUT_CHARS is tight, so nothing is cut after', async () => {
    const long = `Mercury ${'statement '.repeat(400)}`;
    await judgeMentions([post(long, { title: 'Mercury review' })], MERCURY, model, options);
    const sent = sentPosts(fake.requests[0] as FakeRequest)[0] as SentPost;
    expect(sent.title).toBe('Mercury review');
    expect(sent.text.length).toBe(2000 - 'Mercury review'.length);
    expect(sent.text.endsWith('…')).toBe(true);

    const tight = loadConfig({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: KEY, OPENAI_BASE_URL: fake.url, MODEL_MAX_INPUT_CHARS: '1000' });
    const quoted = `Mercury "quoted"\n${'x\ty\n'.repeat(600)}`; // escapes take two characters each in JSON
    const outcome = await judgeMentions([post(quoted), post(quoted), post(quoted), post(quoted), post(quoted)], MERCURY, model, { config: tight, backoff: FAST, batchSize: 20 });
    expect(outcome.ok).toBe(true);
    const batches = fake.requests.slice(1);
    expect(batches.map((r) => sentPosts(r).length)).toEqual([2, 2, 1]);
    for (const request of batches) {
      const user = request.body.messages?.find((m) => m.role === 'user')?.content as string;
      expect(user.length).toBeLessThanOrEqual(1000);
    }
  });

  it('answers nothing and asks nothing for no posts', async () => {
    expect(await judgeMentions([], MERCURY, model, options)).toEqual({ ok: true, judgements: [], usage: { inputTokens: 0, outputTokens: 0 } });
    expect(fake.requests).toHaveLength(0);
  });

  it('a label outside the seven is repaired once, then a typed model_output_invalid failure', async () => {
    const spam = { post_1: { category: 'spam', relevant: true, confidence: 0.5 } };
    fake.respondWith(reply.object(spam));
    const repaired = await judgeMentions([post('Mercury is great')], MERCURY, model, options);
    expect(repaired.ok).toBe(true);
    expect(fake.requests).toHaveLength(2);
    expect(String(fake.requests[1]?.body.messages?.at(-1)?.content)).toContain('must be equal to one of the allowed values');

    fake.respondWith(reply.object(spam), reply.object(spam));
    const failed = await judgeMentions([post('Mercury is great')], MERCURY, model, options);
    expect(failed).toMatchObject({ ok: false, failure: { code: 'model_output_invalid', retriable: true }, judgements: [null] });
  });

  it('an answer missing a post or out of range breaks the schema too', async () => {
    fake.respondWith(reply.object({ post_1: { category: 'other', relevant: true, confidence: 0.5 } }), reply.object({ post_1: { category: 'other', relevant: true, confidence: 7 }, post_2: { category: 'other', relevant: true, confidence: 0.5 } }));
    const outcome = await judgeMentions([post('Mercury a'), post('Mercury b')], MERCURY, model, options);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.failure.message).toContain('must be <= 1');
  });

  it('a failed batch ends the run: the earlier batches are kept, the rest null for the offline classifier', async () => {
    const failing = await startFakeOpenAI({ script: (request, index) => (index === 0 ? reader(request) : reply.error(500)) });
    try {
      const cfg500 = loadConfig({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: KEY, OPENAI_BASE_URL: failing.url, MODEL_MAX_RETRIES: '2' });
      const posts = Array.from({ length: 25 }, (_, i) => post(`Mercury crash ${i}`));
      const { log, raw } = capturedLog();
      const outcome = await judgeMentions(posts, MERCURY, operatorModel(cfg500) as ModelChoice, { config: cfg500, backoff: FAST, log });
      expect(outcome.ok).toBe(false);
      if (outcome.ok) return;
      expect(outcome.failure).toEqual({ code: 'model_failed', message: 'OpenAI answered 500 server_error: fake error 500', retriable: true, retryAfterMs: null });
      expect(outcome.judgements.slice(0, 20).every((j) => j?.category === 'bug_report')).toBe(true);
      expect(outcome.judgements.slice(20)).toEqual([null, null, null, null, null]);
      expect(outcome.usage.inputTokens).toBeGreaterThan(0); // the answered batch's
      expect(failing.requests).toHaveLength(4); // one batch, then the second tried 1 + MODEL_MAX_RETRIES times
      expect(raw.join('')).toContain('model call failed');
    } finally {
      await failing.close();
    }
  });

  it('a rate limit that outlasts the retries is model_rate_limited with the provider\'s wait', async () => {
    fake.respondWith(...Array.from({ length: 3 }, () => reply.rateLimited({ 'retry-after': '0.002' })));
    const outcome = await judgeMentions([post('Mercury a')], MERCURY, model, options);
    expect(outcome).toMatchObject({ ok: false, failure: { code: 'model_rate_limited', retriable: true, retryAfterMs: 1000 } });
  });

  it('a rejected key is a typed failure that never quotes the key (the provider echoes it)', async () => {
    const strict = await startFakeOpenAI({ apiKey: KEY });
    try {
      const { log, raw } = capturedLog();
      const wrongCfg = loadConfig({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: WRONG_KEY, OPENAI_BASE_URL: strict.url });
      const operator = await judgeMentions([post('Mercury a')], MERCURY, operatorModel(wrongCfg) as ModelChoice, { config: wrongCfg, backoff: FAST, log });
      expect(operator).toMatchObject({ ok: false, failure: { code: 'model_failed', retriable: true }, judgements: [null] });
      if (!operator.ok) expect(operator.failure.message).toContain("the operator's key (MODEL_API_KEY) was rejected");

      const caller = await judgeMentions([post('Mercury a')], MERCURY, callerModel(wrongCfg, { provider: 'openai', apiKey: WRONG_KEY }), { config: wrongCfg, backoff: FAST, log });
      expect(caller).toMatchObject({ ok: false, failure: { code: 'model_key_rejected', retriable: false } });

      expect(strict.requests[0]?.headers.authorization).toBe(`Bearer ${WRONG_KEY}`); // sent, and echoed back in the 401
      for (const text of [JSON.stringify(operator), JSON.stringify(caller), raw.join('')]) {
        expect(text).not.toContain(WRONG_KEY);
        expect(text).not.toContain('WRONG-Hh1');
      }
    } finally {
      await strict.close();
    }
  });

  it("the caller's own abort is thrown as is, not turned into a failure", async () => {
    fake.respondWith(reply.hang());
    const controller = new AbortController();
    const running = judgeMentions([post('Mercury a')], MERCURY, model, { ...options, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    await expect(running).rejects.toThrow('shutting down');
  });
});

describe('pipeline/mentions/judge-model: Anthropic', () => {
  let fake: FakeModel;
  afterEach(() => fake.close());

  it('asks through the forced tool with the same enum, and names the classifier by provider and model', async () => {
    fake = await startFakeAnthropic({ apiKey: KEY, script: (request) => reader(request) });
    const cfg = loadConfig({ MODEL_PROVIDER: 'anthropic', MODEL_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url, MODEL_NAME: 'claude-sonnet-4-5' });
    const outcome = await judgeMentions([post('Mercury crashed'), post('Freddie Mercury live at Wembley')], MERCURY, operatorModel(cfg) as ModelChoice, { config: cfg, backoff: FAST });
    expect(outcome.judgements).toEqual([
      { category: 'bug_report', relevant: true, score: 0.9, classifier: 'model:anthropic/claude-sonnet-4-5' },
      { category: 'other', relevant: false, score: 0.6, classifier: 'model:anthropic/claude-sonnet-4-5' },
    ]);
    const [request] = fake.requests as [FakeRequest];
    expect(request.body.tool_choice).toEqual({ type: 'tool', name: 'mention_judgements' });
    const schema = sentSchema(request) as { properties: Record<string, { properties: { category: { enum: string[] } } }> };
    expect(schema.properties.post_1?.properties.category.enum).toEqual([...MENTION_CATEGORIES]);
  });
});
