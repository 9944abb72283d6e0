/**
 * The extractor's handler (actors/extractor) on its own: an ExtractRequested in, against a
 * local fake OpenAI (the operator's model) and a recording writer: a job's page is filed and
 * reported with the model's price, a caller's sealed model is opened and used, a failure the
 * caller caused fails the page (and reports it to the frontier), and an event that is not a
 * task is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractRequestedHandling, handleExtractRequested, type ExtractRequested } from '../../actors/extractor/index.js';
import { sealSecret } from '../../pipeline/runtime/seal.js';
import { encodeTask, type ExtractTask } from '../../pipeline/structured/task.js';
import { jobPageRequestId, newJobId } from '../../pipeline/jobs/pages.js';
import { loadConfig } from '../../pipeline/service/config.js';
import type { AnyEmission } from '../../pipeline/runtime/events.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import type { Store } from '../../pipeline/runtime/store/index.js';
import { PRICES } from '../../schemas/api/prices.js';
import { TOPICS } from '../../schemas/topics.js';
import { reply, startFakeAnthropic, startFakeOpenAI, type FakeModel } from '../helpers/fake-models.js';
import { runHandler } from '../helpers/events.js';

const SECRET = 'a-server-secret-of-at-least-32-characters!';
const log = createLogger('silent');
const noStore = { query: async () => [] } as unknown as Store;

let openai: FakeModel;
let anthropic: FakeModel;
beforeAll(async () => {
  openai = await startFakeOpenAI({ answer: { price: 12.5, currency: 'EUR' } });
  anthropic = await startFakeAnthropic({ apiKey: 'sk-ant-own-key-123456', answer: { price: 9 } });
});
afterAll(async () => {
  await openai?.close();
  await anthropic?.close();
});

function deps(writes: { table: string; rows: Record<string, unknown>[] }[]) {
  const config = loadConfig({ MODEL_PROVIDER: 'openai', MODEL_API_KEY: 'sk-operator-000000', OPENAI_BASE_URL: openai.url, ANTHROPIC_BASE_URL: anthropic.url, MODEL_MAX_RETRIES: '0', MODEL_TIMEOUT_MS: '3000' });
  const writer = { write: async (table: string, rows: readonly Record<string, unknown>[]) => void writes.push({ table, rows: [...rows] }) };
  return { config, serverSecret: SECRET, store: noStore, writer, log };
}

const TASK: ExtractTask = {
  json: { target: { kind: 'template', name: 'product' }, prompt: null, filled: { data: { name: 'Kettle' }, sources: { name: 'markup' }, missing: ['price', 'currency'], warnings: ['no value found for "price", "currency"'] } },
  summary: null,
  finish: { changeTracking: null, scrapedAtMs: 1_795_000_000_000, dropMarkdown: true },
};

function event(extra: Partial<ExtractRequested> = {}): ExtractRequested {
  const now = Date.now();
  return {
    requestId: 'req-1',
    tenant: 'tenant-1',
    jobId: null,
    url: 'https://shop.example/kettle',
    finalUrl: 'https://shop.example/kettle',
    statusCode: 200,
    contentType: 'text/html',
    replyTo: TOPICS.replies.name,
    correlationId: 'corr-1',
    deadlineMs: now + 60_000,
    createdAtMs: now,
    credits: 1,
    source: 'fresh',
    document: JSON.stringify({ markdown: '# Kettle\n\nNow 12,50 €.', json: { name: 'Kettle' }, metadata: { title: 'Kettle', statusCode: 200 } }),
    task: encodeTask(TASK),
    text: '# Kettle\n\nNow 12,50 €.',
    title: 'Kettle',
    contentHash: 'abc',
    links: ['https://shop.example/'],
    sealedModel: '',
    ...extra,
  };
}

const valueOf = (emit: readonly AnyEmission[] | undefined, topic: string) => emit?.find((e) => e.topic === topic)?.value as Record<string, any> | undefined;

describe('actors/extractor', () => {
  it('fills a job page\'s missing fields with the operator\'s model, files it and reports it with the model\'s price', async () => {
    const writes: { table: string; rows: Record<string, unknown>[] }[] = [];
    const jobId = newJobId('batch');
    const outcome = await handleExtractRequested(event({ jobId, requestId: jobPageRequestId(jobId, 3), replyTo: null, correlationId: null }), deps(writes), new AbortController().signal);
    expect(outcome.kind).toBe('ack');
    const row = writes.find((w) => w.table === 'job_pages')?.rows[0];
    const document = JSON.parse(String(row?.document)) as Record<string, any>;
    expect(document.json).toEqual({ name: 'Kettle', price: 12.5, currency: 'EUR' });
    expect(document.metadata.jsonSources).toEqual({ name: 'markup', price: 'model', currency: 'model' });
    expect(document.markdown).toBeUndefined();
    expect(document.warning).toBeUndefined();
    const page = valueOf(outcome.kind === 'ack' ? outcome.emit : [], 'jobEvents');
    expect(JSON.parse(page?.data).credits).toBe(1 + PRICES.operatorModelPage.credits);
    // The tokens the model reported (OpenAI's `usage`), the key's, at the request's time.
    const sent = openai.requests.at(-1);
    const input = Math.max(1, Math.ceil(JSON.stringify(sent?.body.messages ?? []).length / 4));
    const output = Math.max(1, Math.ceil(JSON.stringify({ price: 12.5, currency: 'EUR' }).length / 4));
    expect(writes.filter((w) => w.table === 'model_usage').flatMap((w) => w.rows)).toEqual([
      { tenant: 'tenant-1', at: expect.any(Date), request_id: jobPageRequestId(jobId, 3), job_id: jobId, owner: 'operator', model: expect.stringMatching(/^openai:/), input_tokens: input, output_tokens: output },
    ]);
  });

  it('opens a caller\'s sealed model, uses it, and charges nothing for it', async () => {
    const sealed = sealSecret(SECRET, JSON.stringify({ provider: 'anthropic', apiKey: 'sk-ant-own-key-123456' }));
    const writes: { table: string; rows: Record<string, unknown>[] }[] = [];
    const outcome = await handleExtractRequested(event({ sealedModel: sealed }), deps(writes), new AbortController().signal);
    const answer = valueOf(outcome.kind === 'ack' ? outcome.emit : [], 'replies');
    expect(answer?.credits).toBe(1);
    // Its tokens are counted for the key all the same, as the caller's model's.
    const [used] = writes.filter((w) => w.table === 'model_usage').flatMap((w) => w.rows);
    expect(used).toMatchObject({ tenant: 'tenant-1', owner: 'caller', model: expect.stringMatching(/^anthropic:/) });
    expect(Number(used?.input_tokens)).toBeGreaterThan(0);
    expect(Number(used?.output_tokens)).toBeGreaterThan(0);
    expect(JSON.parse(answer?.data).json).toMatchObject({ name: 'Kettle', price: 9 });
    expect(anthropic.requests.at(-1)?.headers['x-api-key']).toBe('sk-ant-own-key-123456');
  });

  it('fails the page model_key_rejected when the caller\'s key is refused, and reports a job page failed', async () => {
    const sealed = sealSecret(SECRET, JSON.stringify({ provider: 'anthropic', apiKey: 'sk-ant-revoked-000000' }));
    const jobId = newJobId('crawl');
    const settled = await runHandler('ExtractRequested', extractRequestedHandling(deps([])), event({ sealedModel: sealed, jobId, requestId: jobPageRequestId(jobId, 1) }));
    expect(JSON.stringify(settled)).toContain('model_key_rejected');
    expect(JSON.stringify(settled)).toContain('pageFailed');
    expect(JSON.stringify(settled)).not.toContain('sk-ant-revoked-000000');
  });

  it('keeps the markup\'s answer and names the failure when the operator\'s model fails', async () => {
    openai.respondWith(reply.error(503));
    const writes: { table: string; rows: Record<string, unknown>[] }[] = [];
    const outcome = await handleExtractRequested(event(), deps(writes), new AbortController().signal);
    // A call that failed answered nothing: no tokens are counted.
    expect(writes.filter((w) => w.table === 'model_usage')).toEqual([]);
    const answer = valueOf(outcome.kind === 'ack' ? outcome.emit : [], 'replies');
    const document = JSON.parse(answer?.data) as Record<string, any>;
    expect(document.json).toEqual({ name: 'Kettle' });
    expect(document.warning).toMatch(/model_failed/);
    expect(answer?.credits).toBe(1);
  });

  it('refuses an event whose task is not a task', async () => {
    const outcome = await handleExtractRequested(event({ task: 'nope' }), deps([]), new AbortController().signal);
    expect(outcome).toMatchObject({ kind: 'fail', code: 'event_undecodable' });
  });
});
