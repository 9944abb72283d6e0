/**
 * pipeline/runtime/events.ts and pipeline/runtime/blobs.ts: the claim check. With `inlineLimitBytes` at
 * 512 KiB (the Kafka runtime's setting), an encoded event above it travels by reference —
 * the message on the wire is empty but for its `x-wds-blob` header — and `read()` returns it
 * byte-identical; at or below it, the bytes travel inline. Runs over MemoryBus + MemoryBlobs
 * and over KafkaBus (mock cluster) + StoreBlobs (chdb in a temp dir), each when its engines
 * are there (test/helpers/engines.ts).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventValue } from '../../schemas/events/index.js';
import { HEADERS, TOPICS } from '../../schemas/topics.js';
import { MAX_PAYLOAD_BYTES, MemoryBlobs, StoreBlobs, type BlobStore } from '../../pipeline/runtime/blobs.js';
import type { Bus, BusMessage } from '../../pipeline/runtime/bus/bus.js';
import { KafkaBus } from '../../pipeline/runtime/bus/kafka.js';
import { MemoryBus } from '../../pipeline/runtime/bus/memory.js';
import { createCodec, type EventCodec } from '../../pipeline/runtime/codec/index.js';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { Events, type Emission } from '../../pipeline/runtime/events.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { ChdbStore } from '../../pipeline/runtime/store/chdb.js';
import { chdbAvailable, tempDir, type TempDir } from '../helpers/clickhouse.js';
import { hasKafka, startMockKafka, type MockKafka } from '../helpers/kafka.js';
import { until } from '../helpers/wait.js';

type TestPing = EventValue<'TestPing'>;

const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
const INLINE_LIMIT = 512 * 1024;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const ping = (id: string, payload: Buffer): Emission<'testPings'> => ({
  topic: 'testPings',
  key: id,
  value: { id, seq: 1, payload, sentAtMs: Date.now() },
  headers: { 'x-test': id },
});

/** A blob store that counts its calls. */
function counting(inner: BlobStore) {
  const calls = { put: 0, get: 0 };
  const blobs: BlobStore = {
    put: (data) => {
      calls.put++;
      return inner.put(data);
    },
    get: (id) => {
      calls.get++;
      return inner.get(id);
    },
  };
  return { blobs, calls };
}

describe('pipeline/runtime/events (no bus traffic)', () => {
  let codec: EventCodec;
  const bus = new MemoryBus({ log });
  beforeAll(async () => {
    codec = await createCodec();
  });
  afterAll(() => bus.close());

  /** Payload size whose encoded TestPing (id `size`) is exactly `bytes` long. */
  async function payloadForEncoded(bytes: number): Promise<number> {
    const overhead = async (n: number) => (await codec.encode('TestPing', { ...ping('size', Buffer.alloc(n)).value })).length - n;
    // The Avro length prefix grows with n, so settle the overhead at the size asked for.
    let n = bytes - (await overhead(bytes));
    n = bytes - (await overhead(n));
    expect((await codec.encode('TestPing', { ...ping('size', Buffer.alloc(n)).value })).length).toBe(bytes);
    return n;
  }

  it('sends an encoded event of exactly inlineLimitBytes inline, and one byte more by reference', async () => {
    const { blobs, calls } = counting(new MemoryBlobs());
    const events = new Events(bus, codec, blobs, INLINE_LIMIT);
    const atLimit = await payloadForEncoded(INLINE_LIMIT);
    const inline = await events.prepare({ ...ping('size', Buffer.alloc(atLimit)) });
    expect(inline.value.length).toBe(INLINE_LIMIT);
    expect(inline.headers?.[HEADERS.blobRef]).toBeUndefined();
    expect(calls.put).toBe(0);
    const over = await events.prepare({ ...ping('size', Buffer.alloc(atLimit + 1)) });
    expect(over.value.length).toBe(0);
    expect(over.headers?.[HEADERS.blobRef]).toEqual(expect.any(String));
    expect(over.headers?.['x-test']).toBe('size');
    expect(calls.put).toBe(1);
  });

  it(`refuses an event over MAX_PAYLOAD_BYTES (${MAX_PAYLOAD_BYTES}) with payload_too_large, storing and publishing nothing`, async () => {
    const { blobs, calls } = counting(new MemoryBlobs());
    const events = new Events(bus, codec, blobs, INLINE_LIMIT);
    const before = bus.stats()[TOPICS.testPings.name]?.published ?? 0;
    const error = await events.emit([ping('huge', Buffer.alloc(MAX_PAYLOAD_BYTES + 1))]).catch((e: unknown) => e);
    expect(hasCode(error, 'payload_too_large')).toBe(true);
    expect((error as Error).message).toContain(String(MAX_PAYLOAD_BYTES));
    expect(calls.put).toBe(0);
    expect(bus.stats()[TOPICS.testPings.name]?.published ?? 0).toBe(before);
  });

  it('drops a blob header the caller copied from another event, so a small event is read inline', async () => {
    const events = new Events(bus, codec, new MemoryBlobs(), INLINE_LIMIT);
    const stale = await events.prepare(ping('big', randomBytes(INLINE_LIMIT + 10)));
    const staleRef = stale.headers?.[HEADERS.blobRef] as string;
    const small = ping('small', Buffer.from('small'));
    const prepared = await events.prepare({ ...small, headers: { ...stale.headers, 'x-test': 'small' } });
    expect(prepared.headers?.[HEADERS.blobRef]).toBeUndefined();
    const read = await events.read({ topic: TOPICS.testPings.name, partition: 0, offset: '0', key: 'small', value: prepared.value, headers: prepared.headers ?? {} });
    expect((read.value as TestPing).id).toBe('small');
    expect(staleRef).toEqual(expect.any(String));
  });
});

interface Fixture {
  bus: Bus;
  blobs: BlobStore;
  /** Every message on testPings since the suite started (raw, as on the wire). */
  wire: BusMessage[];
  limitMs: number;
  close(): Promise<void>;
}

async function withWireCollector(bus: Bus, blobs: BlobStore, limitMs: number, close: () => Promise<void>): Promise<Fixture> {
  await bus.ensureTopics([{ name: TOPICS.testPings.name, partitions: TOPICS.testPings.partitions }]);
  const wire: BusMessage[] = [];
  const sub = await bus.consume({ group: 'events-test-wire', topics: [TOPICS.testPings.name], concurrency: 4, handler: async (m) => void wire.push(m) });
  return {
    bus,
    blobs,
    wire,
    limitMs,
    async close() {
      await sub.abort();
      await close();
    },
  };
}

function claimCheckSuite(name: string, setup: () => Promise<Fixture>, options: { testTimeoutMs?: number } = {}): void {
  describe(name, () => {
    const t = { timeout: options.testTimeoutMs ?? 30_000 };
    let f: Fixture;
    let events: Events;
    beforeAll(async () => {
      f = await setup();
      events = new Events(f.bus, await createCodec(), f.blobs, INLINE_LIMIT);
    });
    afterAll(async () => {
      await f?.close();
    });

    async function travel(payload: Buffer): Promise<{ message: BusMessage; received: TestPing }> {
      const id = `ping-${randomUUID()}`;
      await events.emit([ping(id, payload)]);
      await until(`${id} on the wire`, () => f.wire.some((m) => m.key === id), f.limitMs);
      const message = f.wire.find((m) => m.key === id) as BusMessage;
      const decoded = await events.read(message);
      expect(decoded.event).toBe('TestPing');
      return { message, received: decoded.value as TestPing };
    }

    it('a 10 MB payload travels by reference: a small message with x-wds-blob, read back byte-identical', t, async () => {
      const payload = randomBytes(10 * 1024 * 1024);
      const { message, received } = await travel(payload);
      expect(message.value.length).toBeLessThan(1024);
      expect(message.headers[HEADERS.blobRef]).toMatch(/^[0-9a-f-]{36}$/);
      expect(message.headers['x-test']).toBe(message.key);
      expect(received.payload.length).toBe(payload.length);
      expect(sha256(received.payload)).toBe(sha256(payload));
      expect(received.id).toBe(message.key);
    });

    it('a payload below the limit travels inline, without a blob header', t, async () => {
      const payload = randomBytes(100 * 1024);
      const { message, received } = await travel(payload);
      expect(message.headers[HEADERS.blobRef]).toBeUndefined();
      expect(message.value.length).toBeGreaterThan(payload.length);
      expect(message.value.length).toBeLessThanOrEqual(INLINE_LIMIT);
      expect(sha256(received.payload)).toBe(sha256(payload));
    });

    it('a message whose blob is missing is event_undecodable', t, async () => {
      const message: BusMessage = {
        topic: TOPICS.testPings.name,
        partition: 0,
        offset: '0',
        key: 'lost',
        value: Buffer.alloc(0),
        headers: { [HEADERS.blobRef]: randomUUID() },
      };
      const error = await events.read(message).catch((e: unknown) => e);
      expect(hasCode(error, 'event_undecodable')).toBe(true);
      expect((error as Error).message).toContain(message.headers[HEADERS.blobRef]);
    });
  });
}

claimCheckSuite('pipeline/runtime/events (claim check: memory bus + MemoryBlobs)', async () => {
  const bus = new MemoryBus({ log });
  return withWireCollector(bus, new MemoryBlobs(), 10_000, () => bus.close());
});

const [kafkaUp, chdbUp] = [await hasKafka(), await chdbAvailable()];

describe.skipIf(!kafkaUp || !chdbUp)('pipeline/runtime/events (claim check: kafka mock cluster + StoreBlobs on chdb)', () => {
  let cluster: MockKafka | undefined;
  let dir: TempDir | undefined;
  let store: ChdbStore | undefined;
  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
    dir?.remove();
  });

  claimCheckSuite(
    'suite',
    async () => {
      dir = tempDir('events-test');
      store = new ChdbStore({ dataDir: dir.path }, log);
      await store.migrate();
      cluster = await startMockKafka();
      const bus = await KafkaBus.connect({
        brokers: cluster.brokers,
        clientId: 'events-test',
        log,
        connectTimeoutMs: 15_000,
        sessionTimeoutMs: 6000,
        heartbeatIntervalMs: 500,
        maxWaitTimeMs: 100,
      });
      return withWireCollector(bus, new StoreBlobs(store), 45_000, () => bus.close());
    },
    { testTimeoutMs: 90_000 },
  );
});
