/**
 * pipeline/runtime/pool.ts over both buses, with the real codec and Events: outcomes (ack with
 * emissions, retry, dead), thrown errors, per-attempt timeouts, undecodable and poison events
 * (which must not block their partition), dead-letter headers, and stop().
 *
 * Every test runs its own pool (its own consumer group) on the shared `testPings` topic and
 * only acts on pings whose id starts with its own prefix; pings of other tests are acked
 * untouched. Dead letters and replies are collected for the whole suite by one consumer each,
 * and tests pick theirs by group header or correlation id. Waits poll with generous limits;
 * nothing asserts how fast anything was.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, type TestContext } from 'vitest';
import type { EventValue } from '../../schemas/events/index.js';
import { HEADERS, TOPICS } from '../../schemas/topics.js';
import { MemoryBlobs } from '../../pipeline/runtime/blobs.js';
import type { Bus, BusMessage } from '../../pipeline/runtime/bus/bus.js';
import { createCodec, type DecodedEvent } from '../../pipeline/runtime/codec/index.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import { Events, type Emission } from '../../pipeline/runtime/events.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { ActorPool, handleEvent, type ActorContext, type ActorDefinition, type Outcome, type PoolRetry } from '../../pipeline/runtime/pool.js';
import { scrapeRequested } from '../helpers/events.js';
import { onBothBuses } from '../helpers/kafka.js';
import { until } from '../helpers/wait.js';
import { openForBlock } from '../helpers/block.js';
import { hold } from '../helpers/hold.js';

type TestPing = EventValue<'TestPing'>;

const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
const FAST_RETRY: PoolRetry = { attempts: 3, baseDelayMs: 10, maxDelayMs: 40 };

interface Rig {
  bus: Bus;
  events: Events;
  /** Every message on the dead-letter topic since the suite started. */
  deadLetters: BusMessage[];
  /** Every Reply on the replies topic since the suite started. */
  replies: DecodedEvent<'Reply'>['value'][];
  /** How long a wait for deliveries may take before the test fails. */
  limitMs: number;
  close(): Promise<void>;
}

/** Events, the codec, and the two suite-wide collectors over `bus`. */
async function rig(bus: Bus, limitMs: number, close: () => Promise<void>): Promise<Rig> {
  const events = new Events(bus, await createCodec(), new MemoryBlobs(), Number.POSITIVE_INFINITY);
  await events.ensureTopics();
  const deadLetters: BusMessage[] = [];
  const replies: Rig['replies'] = [];
  const collectors = await Promise.all([
    bus.consume({ group: 'collect-dead-letters', topics: [TOPICS.deadLetters.name], concurrency: 4, handler: async (m) => void deadLetters.push(m) }),
    bus.consume({
      group: 'collect-replies',
      topics: [TOPICS.replies.name],
      concurrency: 4,
      handler: async (m) => {
        const decoded = await events.read(m);
        if (decoded.event === 'Reply') replies.push(decoded.value as Rig['replies'][number]);
      },
    }),
  ]);
  return {
    bus,
    events,
    deadLetters,
    replies,
    limitMs,
    async close() {
      await Promise.allSettled(collectors.map((c) => c.abort()));
      await close();
    },
  };
}

const ping = (id: string, seq = 0): TestPing => ({ id, seq, payload: Buffer.from(`ping ${id}`), sentAtMs: Date.now() });

const pingEmission = (id: string, key = id, seq = 0, headers: Record<string, string> = {}): Emission<'testPings'> => ({
  topic: 'testPings',
  key,
  value: ping(id, seq),
  headers,
});

const replyTo = (p: TestPing, data: unknown = { seq: p.seq }): Emission<'replies'> => ({
  topic: 'replies',
  key: p.id,
  value: { correlationId: p.id, ok: true, data: JSON.stringify(data), errorCode: null, errorMessage: null, credits: 1, source: 'pool-test' },
});

type PingHandler = (p: TestPing, ctx: ActorContext) => Promise<Outcome>;

/**
 * Runs the pool suite over the bus `setup` makes. `concurrent` runs the tests side by side
 * (each has its own group and id prefix), which hides Kafka's group-join waits.
 */
function poolSuite(name: string, setup: () => Promise<Rig>, options: { concurrent?: boolean; testTimeoutMs?: number } = {}): void {
  (options.concurrent ? describe.concurrent : describe)(name, () => {
    const t = { timeout: options.testTimeoutMs ?? 30_000 };
    let r: Rig;
    openForBlock(setup, (opened) => {
      r = opened;
    });

    /** A started pool reading testPings in a fresh group; pings not starting with `prefix` are acked untouched. */
    async function startPool(
      test: TestContext,
      prefix: string,
      handler: PingHandler,
      settings: { group?: string; timeoutMs?: number; retry?: PoolRetry; concurrency?: number } = {},
    ): Promise<{ pool: ActorPool; group: string }> {
      const group = settings.group ?? `pool-test-${prefix}`;
      const pool = new ActorPool(
        {
          name: 'pool-test',
          group,
          topics: ['testPings'],
          concurrency: settings.concurrency ?? 4,
          timeoutMs: settings.timeoutMs ?? 10_000,
          handlers: { TestPing: async (p, ctx) => (p.id.startsWith(prefix) ? handler(p, ctx) : { kind: 'ack' }) },
        },
        r.events,
        log,
        settings.retry ?? FAST_RETRY,
      );
      await pool.start();
      test.onTestFinished(() => pool.stop());
      return { pool, group };
    }

    const fresh = () => randomUUID().slice(0, 8);
    /** This test's dead letters: its group, its keys (every group also dead-letters other tests' garbage). */
    const deadIn = (group: string, prefix: string) => r.deadLetters.filter((m) => m.headers[HEADERS.group] === group && m.key.startsWith(prefix));
    const repliesFor = (prefix: string) => r.replies.filter((x) => x.correlationId.startsWith(prefix));

    // First: it joins the group twice, the slowest test on Kafka (vitest runs 5 at once).
    it('stop(): an attempt that gives up on its aborted signal is handed back, not dead-lettered', t, async (test) => {
      const prefix = fresh();
      const group = `pool-test-${prefix}`;
      let held = false;
      const first = await startPool(
        test,
        prefix,
        (_p, ctx) => {
          held = true;
          return new Promise<Outcome>((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted by stop')), { once: true }));
        },
        { group },
      );
      await r.events.emit([pingEmission(`${prefix}-handed-back`)]);
      await until('the first pool holds the ping', () => held, r.limitMs);
      await first.pool.stop();
      const second: [string, number][] = [];
      await startPool(
        test,
        prefix,
        async (p, ctx) => {
          second.push([p.id, ctx.attempt]);
          return { kind: 'ack' };
        },
        { group },
      );
      await until('the next member got the ping', () => second.length >= 1, r.limitMs);
      expect(second).toEqual([[`${prefix}-handed-back`, 1]]);
      expect(deadIn(group, prefix)).toEqual([]);
    });
    it('an event the actor has no handler for is dead-lettered at once, with event_undecodable', t, async (test) => {
      const prefix = `nohandler-${fresh()}`;
      const group = `pool-test-${prefix}`;
      const pool = new ActorPool({ name: 'pool-test', group, topics: ['testPings'], concurrency: 4, timeoutMs: 10_000, handlers: {} }, r.events, log, FAST_RETRY);
      await pool.start();
      test.onTestFinished(() => pool.stop());
      await r.events.emit([pingEmission(`${prefix}-unhandled`)]);
      await until('the dead letter', () => deadIn(group, prefix).length >= 1, r.limitMs);
      const [dead] = deadIn(group, prefix);
      expect(dead?.headers[HEADERS.errorCode]).toBe('event_undecodable');
      expect(dead?.headers[HEADERS.attempts]).toBe('1');
    });

    it('ack publishes the emissions: each emitted event arrives on its topic, decoded', t, async (test) => {
      const prefix = fresh();
      const seen: [string, number][] = [];
      await startPool(test, prefix, async (p, ctx) => {
        seen.push([p.id, ctx.attempt]);
        return { kind: 'ack', emit: [replyTo(p, { echoed: p.payload.toString('utf8'), seq: p.seq })] };
      });
      await r.events.emit([0, 1, 2, 3, 4].map((seq) => pingEmission(`${prefix}-${seq}`, `${prefix}-${seq}`, seq)));
      await until('5 replies', () => repliesFor(prefix).length >= 5, r.limitMs);
      const replies = repliesFor(prefix).sort((a, b) => a.correlationId.localeCompare(b.correlationId));
      expect(replies.map((x) => JSON.parse(x.data ?? 'null'))).toEqual(
        [0, 1, 2, 3, 4].map((seq) => ({ echoed: `ping ${prefix}-${seq}`, seq })),
      );
      expect(replies.every((x) => x.ok && x.credits === 1 && x.source === 'pool-test')).toBe(true);
      expect(seen.every(([, attempt]) => attempt === 1)).toBe(true);
      expect(seen).toHaveLength(5);
    });

    it('a handler that fails retriably twice, then succeeds, is processed once, on attempts 1, 2, 3', t, async (test) => {
      const prefix = fresh();
      const attempts: number[] = [];
      const { group } = await startPool(test, prefix, async (p, ctx) => {
        attempts.push(ctx.attempt);
        if (ctx.attempt < 3) return { kind: 'retry', code: 'upstream_error', message: `flaky ${ctx.attempt}` };
        return { kind: 'ack', emit: [replyTo(p)] };
      });
      await r.events.emit([pingEmission(`${prefix}-flaky`)]);
      await until('the reply', () => repliesFor(prefix).length >= 1, r.limitMs);
      await sleep(300); // a second processing would show up now
      expect(attempts).toEqual([1, 2, 3]);
      expect(repliesFor(prefix)).toHaveLength(1);
      expect(deadIn(group, prefix)).toEqual([]);
    });

    it('a thrown plain Error is retried (internal_error is retriable)', t, async (test) => {
      const prefix = fresh();
      const attempts: number[] = [];
      const { group } = await startPool(test, prefix, async (p, ctx) => {
        attempts.push(ctx.attempt);
        if (ctx.attempt < 3) throw new Error(`bug on attempt ${ctx.attempt}`);
        return { kind: 'ack', emit: [replyTo(p)] };
      });
      await r.events.emit([pingEmission(`${prefix}-throws`)]);
      await until('the reply', () => repliesFor(prefix).length >= 1, r.limitMs);
      await sleep(300);
      expect(attempts).toEqual([1, 2, 3]);
      expect(deadIn(group, prefix)).toEqual([]);
    });

    it('`dead` goes straight to the dead-letter topic with the original bytes, headers and key', t, async (test) => {
      const prefix = fresh();
      let calls = 0;
      const { group } = await startPool(test, prefix, async () => {
        calls++;
        return { kind: 'dead', code: 'validation_failed', message: 'this ping can never be processed' };
      });
      const original = await r.events.prepare(pingEmission(`${prefix}-dead`, `${prefix}-key`, 7, { [HEADERS.requestId]: 'req-42', 'x-custom': 'kept' }));
      const before = Date.now();
      await r.bus.publish(TOPICS.testPings.name, [original]);
      await until('the dead letter', () => deadIn(group, prefix).length >= 1, r.limitMs);
      await sleep(200);
      const [dead, ...more] = deadIn(group, prefix);
      expect(more).toEqual([]);
      expect(calls).toBe(1);
      expect(dead?.key).toBe(`${prefix}-key`);
      expect(Buffer.compare(dead?.value ?? Buffer.alloc(0), original.value)).toBe(0);
      const headers = dead?.headers ?? {};
      expect(headers).toMatchObject({
        [HEADERS.errorCode]: 'validation_failed',
        [HEADERS.errorMessage]: 'this ping can never be processed',
        [HEADERS.attempts]: '1',
        [HEADERS.sourceTopic]: TOPICS.testPings.name,
        [HEADERS.group]: group,
        [HEADERS.requestId]: 'req-42',
        'x-custom': 'kept',
      });
      const failedAt = Date.parse(headers[HEADERS.failedAt] ?? '');
      expect(failedAt).toBeGreaterThanOrEqual(before - 1000);
      expect(new Date(failedAt).toISOString()).toBe(headers[HEADERS.failedAt]);
      expect((await r.events.read(dead as BusMessage)).value).toMatchObject({ id: `${prefix}-dead`, seq: 7 });
    });

    it('a handler that keeps failing reaches the dead-letter topic after exactly `attempts` attempts', t, async (test) => {
      const prefix = fresh();
      const attempts: number[] = [];
      const { group } = await startPool(
        test,
        prefix,
        async (_p, ctx) => {
          attempts.push(ctx.attempt);
          return { kind: 'retry', code: 'upstream_error', message: `still failing (${ctx.attempt})` };
        },
        { retry: { attempts: 4, baseDelayMs: 5, maxDelayMs: 20 } },
      );
      await r.events.emit([pingEmission(`${prefix}-hopeless`)]);
      await until('the dead letter', () => deadIn(group, prefix).length >= 1, r.limitMs);
      await sleep(200);
      expect(attempts).toEqual([1, 2, 3, 4]);
      expect(deadIn(group, prefix)).toHaveLength(1);
      expect(deadIn(group, prefix)[0]?.headers).toMatchObject({
        [HEADERS.errorCode]: 'upstream_error',
        [HEADERS.errorMessage]: 'still failing (4)',
        [HEADERS.attempts]: '4',
      });
    });

    it('an AppError with a non-retriable code is dead-lettered at once', t, async (test) => {
      const prefix = fresh();
      let calls = 0;
      const { group } = await startPool(test, prefix, async () => {
        calls++;
        throw new AppError('not_found', 'no such page');
      });
      await r.events.emit([pingEmission(`${prefix}-gone`)]);
      await until('the dead letter', () => deadIn(group, prefix).length >= 1, r.limitMs);
      await sleep(200);
      expect(calls).toBe(1);
      expect(deadIn(group, prefix).map((m) => [m.headers[HEADERS.errorCode], m.headers[HEADERS.errorMessage], m.headers[HEADERS.attempts]])).toEqual([
        ['not_found', 'no such page', '1'],
      ]);
    });

    it('an event whose handler failed for good is answered as a fail is (its failed hook), then dead-lettered', t, async (test) => {
      const prefix = fresh();
      const group = `pool-test-${prefix}`;
      const pool = new ActorPool(
        {
          name: 'pool-test',
          group,
          topics: ['testPings'],
          concurrency: 2,
          timeoutMs: 10_000,
          handlers: {
            TestPing: {
              // A bug: the handler throws what no Outcome says (a stack overflow on a hostile input).
              handle: async (p) => (p.id.startsWith(prefix) ? Promise.reject(new RangeError('Maximum call stack size exceeded')) : { kind: 'ack' }),
              failed: (p, code, message) => [{ ...replyTo(p), value: { ...replyTo(p).value, ok: false, data: null, errorCode: code, errorMessage: message, credits: 0 } }],
            },
          },
        },
        r.events,
        log,
        FAST_RETRY,
      );
      await pool.start();
      test.onTestFinished(() => pool.stop());
      await r.events.emit([pingEmission(`${prefix}-overflow`)]);
      // The answer and the dead letter travel on two topics: each is waited for.
      await until('the dead letter', () => deadIn(group, prefix).length >= 1, r.limitMs);
      await until('the failure answer', () => r.replies.some((reply) => reply.correlationId === `${prefix}-overflow`), r.limitMs);
      expect(r.replies.filter((reply) => reply.correlationId === `${prefix}-overflow`)).toEqual([
        expect.objectContaining({ ok: false, errorCode: 'internal_error', errorMessage: 'Maximum call stack size exceeded' }),
      ]);
      expect(deadIn(group, prefix)[0]?.headers[HEADERS.errorCode]).toBe('internal_error');
    });

    it('an attempt past its timeout counts as upstream_timeout, and its signal is aborted', t, async (test) => {
      const prefix = fresh();
      const signals: AbortSignal[] = [];
      const { group } = await startPool(
        test,
        prefix,
        (p, ctx) => {
          signals.push(ctx.signal);
          // Never finishes on its own; acks (too late to count) once its signal aborts.
          return new Promise<Outcome>((resolve) =>
            ctx.signal.addEventListener('abort', () => resolve({ kind: 'ack', emit: [replyTo(p)] }), { once: true }),
          );
        },
        { timeoutMs: 150, retry: { attempts: 2, baseDelayMs: 5, maxDelayMs: 10 } },
      );
      await r.events.emit([pingEmission(`${prefix}-slow`)]);
      await until('the dead letter', () => deadIn(group, prefix).length >= 1, r.limitMs);
      await sleep(300);
      expect(deadIn(group, prefix).map((m) => [m.headers[HEADERS.errorCode], m.headers[HEADERS.attempts]])).toEqual([['upstream_timeout', '2']]);
      expect(deadIn(group, prefix)[0]?.headers[HEADERS.errorMessage]).toContain('150 ms');
      expect(signals).toHaveLength(2);
      expect(signals.every((s) => s.aborted && (s.reason as AppError).code === 'upstream_timeout')).toBe(true);
      expect(repliesFor(prefix)).toEqual([]); // the late acks emitted nothing
    });

    it('undecodable and poison events do not block their partition: later messages of the key are processed after them', t, async (test) => {
      const prefix = fresh();
      const key = `${prefix}-key`;
      const trail: string[] = [];
      const { group } = await startPool(test, prefix, async (p, ctx) => {
        if (p.id.endsWith('-poison')) {
          trail.push(`poison:${ctx.attempt}`);
          return { kind: 'retry', code: 'upstream_error', message: 'poison' };
        }
        trail.push(`good:${p.seq}`);
        return { kind: 'ack' };
      });
      const garbage = Buffer.from('definitely not an Avro event');
      await r.bus.publish(TOPICS.testPings.name, [
        { key, value: garbage, headers: { 'x-which': 'garbage' } },
        { key, value: Buffer.alloc(0), headers: { 'x-which': 'lost-blob', [HEADERS.blobRef]: `${prefix}-no-such-blob` } },
      ]);
      await r.events.emit([pingEmission(`${prefix}-poison`, key, 0, { 'x-which': 'poison' })]);
      await r.events.emit([1, 2, 3, 4, 5].map((seq) => pingEmission(`${prefix}-good-${seq}`, key, seq)));
      await until('the 5 good pings', () => trail.filter((t) => t.startsWith('good')).length >= 5, r.limitMs);
      await until('3 dead letters', () => deadIn(group, prefix).length >= 3, r.limitMs);
      await sleep(200);
      expect(trail).toEqual(['poison:1', 'poison:2', 'poison:3', 'good:1', 'good:2', 'good:3', 'good:4', 'good:5']);
      const dead = deadIn(group, prefix);
      expect(dead.map((m) => [m.headers['x-which'], m.headers[HEADERS.errorCode], m.headers[HEADERS.attempts]])).toEqual([
        ['garbage', 'event_undecodable', '1'],
        ['lost-blob', 'event_undecodable', '1'],
        ['poison', 'upstream_error', '3'],
      ]);
      expect(Buffer.compare(dead[0]?.value ?? Buffer.alloc(0), garbage)).toBe(0);
      expect(dead[1]?.headers[HEADERS.blobRef]).toBe(`${prefix}-no-such-blob`);
      expect(new Set(dead.map((m) => m.key))).toEqual(new Set([key]));
    });

    it('an ack whose emission cannot be encoded is dead-lettered instead of redelivered forever', t, async (test) => {
      const prefix = fresh();
      let calls = 0;
      const { group } = await startPool(test, prefix, async (p) => {
        calls++;
        const broken = { ...replyTo(p), value: { correlationId: p.id } } as unknown as Emission;
        return { kind: 'ack', emit: [broken] };
      });
      await r.events.emit([pingEmission(`${prefix}-bad-emit`)]);
      await until('the dead letter', () => deadIn(group, prefix).length >= 1, r.limitMs);
      await sleep(300);
      expect(calls).toBe(1);
      expect(deadIn(group, prefix).map((m) => m.headers[HEADERS.errorCode])).toEqual(['internal_error']);
      expect(deadIn(group, prefix)[0]?.headers[HEADERS.errorMessage]).toMatch(/^emitting failed: the Reply value does not match its schema/);
    });

    it('stop() waits for running handlers, which still ack and emit', t, async (test) => {
      const prefix = fresh();
      const { promise: gate, release } = hold();
      let held: ActorContext | null = null;
      let finished = false;
      const { pool, group } = await startPool(test, prefix, async (p, ctx) => {
        held = ctx;
        await gate; // ignores its signal: finishes its work regardless
        finished = true;
        return { kind: 'ack', emit: [replyTo(p)] };
      });
      await r.events.emit([pingEmission(`${prefix}-held`)]);
      await until('the handler holds the ping', () => held !== null, r.limitMs);
      let stopped = false;
      const stopping = pool.stop().then(() => (stopped = true));
      await sleep(150);
      expect(stopped).toBe(false);
      expect((held as unknown as ActorContext).signal.aborted).toBe(true);
      release();
      await stopping;
      expect(finished).toBe(true);
      await until('the reply', () => repliesFor(prefix).length >= 1, r.limitMs);
      expect(deadIn(group, prefix)).toEqual([]);
    });

  });
}

describe('pipeline/runtime/pool handleEvent: the plumbing around a handler, once for every actor', () => {
  const message: BusMessage = { topic: 't', partition: 0, offset: '0', key: 'k', value: Buffer.alloc(0), headers: {} };
  const ctx: ActorContext = { log, signal: new AbortController().signal, attempt: 1, message };
  const decoded = <N extends DecodedEvent['event']>(event: N, value: DecodedEvent<N>['value']): DecodedEvent => ({ event, value, writerVersion: 0 }) as DecodedEvent;
  const jobFailed = (code: string): Emission<'jobEvents'> => ({
    topic: 'jobEvents',
    key: 'job-1',
    value: { tenant: 'tenant-1', jobId: 'job-1', kind: 'crawl', type: 'pageFailed', atMs: 0, data: JSON.stringify({ code }) },
  });

  it('dead-letters an event the actor declares no handler for', async () => {
    const def: Pick<ActorDefinition, 'name' | 'handlers'> = { name: 'a', handlers: { TestPing: async () => ({ kind: 'ack' }) } };
    expect(await handleEvent(def, decoded('ScrapeRequested', scrapeRequested('https://example.com/')), ctx)).toEqual({
      kind: 'dead',
      code: 'event_undecodable',
      message: 'unexpected ScrapeRequested event',
    });
  });

  it('drops an event past its deadlineMs without running the handler, emitting only its dropped hook', async () => {
    let ran = 0;
    const late = scrapeRequested('https://example.com/', {}, { deadlineMs: 1_000 });
    const handle = async (): Promise<Outcome> => (ran++, { kind: 'ack' });
    expect(await handleEvent({ name: 'a', handlers: { ScrapeRequested: handle } }, decoded('ScrapeRequested', late), ctx, 1_001)).toEqual({ kind: 'ack' });
    const dropped = [jobFailed('fetch_timeout')];
    const hooked = { name: 'a', handlers: { ScrapeRequested: { handle, dropped: () => dropped } } };
    expect(await handleEvent(hooked, decoded('ScrapeRequested', late), ctx, 1_001)).toEqual({ kind: 'ack', emit: dropped });
    expect(ran).toBe(0);
    // At its deadline, and with `expires: false` past it, the handler runs.
    await handleEvent(hooked, decoded('ScrapeRequested', late), ctx, 1_000);
    await handleEvent({ name: 'a', handlers: { ScrapeRequested: { handle, expires: false } } }, decoded('ScrapeRequested', late), ctx, 5_000);
    expect(ran).toBe(2);
    // An event without a deadline (TestPing) always runs.
    await handleEvent({ name: 'a', handlers: { TestPing: handle } }, decoded('TestPing', ping('p')), ctx, Number.MAX_SAFE_INTEGER);
    expect(ran).toBe(3);
  });

  it('answers a `fail` outcome: the failure Reply to the reply address, with the failed hook, as an ack', async () => {
    const fail = async (): Promise<Outcome> => ({ kind: 'fail', code: 'url_blocked', message: 'no' });
    const request = scrapeRequested('https://example.com/', {}, { requestId: 'req-9', correlationId: 'corr-9' });
    const plain = await handleEvent({ name: 'fetcher', handlers: { ScrapeRequested: fail } }, decoded('ScrapeRequested', request), ctx);
    expect(plain).toEqual({
      kind: 'ack',
      emit: [
        {
          topic: 'replies',
          key: 'corr-9',
          headers: { [HEADERS.requestId]: 'req-9' },
          value: { correlationId: 'corr-9', ok: false, data: null, errorCode: 'url_blocked', errorMessage: 'no', credits: 0, source: 'fetcher' },
        },
      ],
    });
    const hooks = { handle: fail, replySource: null, failed: (_e: unknown, code: string) => [jobFailed(code)] };
    const hooked = await handleEvent({ name: 'parser', handlers: { ScrapeRequested: hooks } }, decoded('ScrapeRequested', request), ctx);
    expect(hooked.kind === 'ack' ? hooked.emit?.map((e) => [e.topic, e.topic === 'replies' ? e.value.source : (e.value as EventValue<'JobEvent'>).type]) : null).toEqual([
      ['replies', null],
      ['jobEvents', 'pageFailed'],
    ]);
    // Nobody waits: no Reply; a job page gets its hook's event alone.
    const job = scrapeRequested('https://example.com/', {}, { jobId: 'job-1', replyTo: null, correlationId: null });
    expect(await handleEvent({ name: 'fetcher', handlers: { ScrapeRequested: fail } }, decoded('ScrapeRequested', job), ctx)).toEqual({ kind: 'ack', emit: [] });
    expect(await handleEvent({ name: 'fetcher', handlers: { ScrapeRequested: hooks } }, decoded('ScrapeRequested', job), ctx)).toEqual({ kind: 'ack', emit: [jobFailed('url_blocked')] });
  });
});

await onBothBuses('pipeline/runtime/pool', 'pool-test', log, poolSuite, rig);

