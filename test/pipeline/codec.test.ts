/**
 * The event codec in both framings: round trips of every event, schema evolution with a
 * test-only TestPing v2, undecodable input, a 10 MB bytes field and a throughput print.
 * The Confluent framing runs against test/helpers/schema-registry.ts, a local stand-in for a
 * real Confluent Schema Registry (the production target).
 */
import { createServer } from 'node:net';
import avro from 'avsc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS, type EventDefinition, type EventName, type EventRecordSchema } from '../../schemas/events/index.js';
import type { EventCodec } from '../../pipeline/runtime/codec/codec.js';
import { ConfluentCodec, subjectOf } from '../../pipeline/runtime/codec/confluent.js';
import { compileEventTypes } from '../../pipeline/runtime/codec/event-types.js';
import { fingerprintBytes } from '../../pipeline/runtime/codec/fingerprint.js';
import { createCodec } from '../../pipeline/runtime/codec/index.js';
import { SAMPLE_EVENTS } from '../../infra/codegen/event-samples.js';
import { SingleObjectCodec } from '../../pipeline/runtime/codec/single-object.js';
import { startSchemaRegistry, type LocalSchemaRegistry } from '../helpers/schema-registry.js';

const STAND_IN = 'confluent (local stand-in registry, not a real Confluent Schema Registry)';

/** The shipped events, with TestPing's history replaced by `versions`. */
function withTestPing(...versions: EventRecordSchema[]): Record<string, EventDefinition> {
  const defs = versions.map((schema, i) => ({ event: 'TestPing', version: i + 1, schema, file: `test:TestPing/v${i + 1}` }));
  const testPing: EventDefinition = { name: 'TestPing', versions: defs, current: defs[defs.length - 1] as (typeof defs)[number] };
  return { ...EVENTS, TestPing: testPing };
}

const V1 = EVENTS.TestPing.current.schema;
/** Test-only v2: v1 plus a field with a default (the one allowed kind of addition). */
const V2: EventRecordSchema = { ...V1, fields: [...V1.fields, { name: 'hops', type: 'int', default: 0 }] };
const PING = { id: 'p', seq: 7, payload: Buffer.from('hello'), sentAtMs: 1_700_000_000_000 };

async function codeOf(fn: () => unknown): Promise<string | undefined> {
  try {
    await fn();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  throw new Error('expected a rejection');
}

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('pipeline/runtime/codec', () => {
  let registry: LocalSchemaRegistry;
  const codecs: Record<string, EventCodec> = {};

  beforeAll(async () => {
    registry = await startSchemaRegistry();
    codecs['single-object'] = await createCodec({});
    codecs[STAND_IN] = await createCodec({ registryUrl: registry.url });
  });
  afterAll(() => registry.close());

  describe.each(['single-object', STAND_IN])('%s', (framing) => {
    const codec = () => codecs[framing] as EventCodec;

    it.each(Object.keys(SAMPLE_EVENTS) as EventName[])('round-trips %s', async (event) => {
      const bytes = await codec().encode(event, SAMPLE_EVENTS[event]);
      const decoded = await codec().decode(bytes);
      expect(decoded.event).toBe(event);
      expect(decoded.writerVersion).toBe(EVENTS[event].current.version);
      expect({ ...decoded.value }).toEqual(SAMPLE_EVENTS[event]);
    });

    it('round-trips a 10 MB bytes field', async () => {
      const payload = Buffer.alloc(10 * 1024 * 1024);
      for (let i = 0; i < payload.length; i += 4096) payload[i] = i % 251;
      const bytes = await codec().encode('TestPing', { ...PING, payload });
      expect(bytes.length).toBeGreaterThan(payload.length);
      const decoded = await codec().decode(bytes);
      expect((decoded.value as { payload: Buffer }).payload.equals(payload)).toBe(true);
    });

    it('refuses a value that does not match its schema with internal_error', async () => {
      expect(await codeOf(() => codec().encode('TestPing', { ...PING, seq: 'seven' } as never))).toBe('internal_error');
      expect(await codeOf(() => codec().encode('TestPing', { ...PING, seq: 2 ** 60 }))).toBe('internal_error');
      expect(await codeOf(() => codec().encode('NoSuchEvent' as EventName, PING as never))).toBe('internal_error');
    });

    it('says event_undecodable for empty, foreign, truncated and corrupt bytes', async () => {
      const good = await codec().encode('TestPing', PING);
      const header = good[0] === 0xc3 ? 10 : 5;
      const unknownFingerprint = Buffer.concat([Buffer.from([0xc3, 0x01]), Buffer.alloc(8, 0xab), good.subarray(10)]);
      const samples = [
        Buffer.alloc(0),
        Buffer.from('{"id":"p"}'),
        unknownFingerprint,
        good.subarray(0, header),
        good.subarray(0, good.length - 3),
        Buffer.concat([good, Buffer.from([0x00])]),
        Buffer.concat([good.subarray(0, header), Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])]),
      ];
      for (const bytes of samples) {
        expect(await codeOf(() => codec().decode(bytes)), bytes.toString('hex').slice(0, 40)).toBe('event_undecodable');
      }
    });

    it('encodes and decodes 10,000 TestPing events (throughput printed, not asserted)', async () => {
      const n = 10_000;
      const payload = Buffer.alloc(256, 7);
      const started = process.hrtime.bigint();
      for (let i = 0; i < n; i++) {
        const decoded = await codec().decode(await codec().encode('TestPing', { id: 'bench', seq: i, payload, sentAtMs: 1 }));
        if ((decoded.value as { seq: number }).seq !== i) throw new Error(`event ${i} came back wrong`);
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      console.log(JSON.stringify({ framing, events: n, payloadBytes: 256, seconds: +seconds.toFixed(3), perSecond: Math.round(n / seconds) }));
    });
  });

  describe('single-object framing', () => {
    it('writes C3 01, the writer schema’s fingerprint little-endian, then the Avro body', async () => {
      const codec = new SingleObjectCodec();
      const bytes = codec.encodeSync('TestPing', PING);
      const current = codec.types.get('TestPing').current;
      expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xc3, 0x01]));
      expect(bytes.subarray(2, 10)).toEqual(fingerprintBytes(current.fingerprint));
      expect(bytes.subarray(10)).toEqual(current.type.toBuffer(PING));
    });
  });

  describe(STAND_IN, () => {
    it('registers every version under wds.events.<EventName>-value and encodes 00 + id', async () => {
      for (const name of Object.keys(EVENTS)) {
        expect(registry.subjects.get(subjectOf(name))?.length, name).toBe(EVENTS[name as EventName].versions.length);
      }
      const codec = codecs[STAND_IN] as ConfluentCodec;
      const bytes = await codec.encode('Reply', SAMPLE_EVENTS.Reply);
      expect(bytes[0]).toBe(0);
      expect(bytes.readInt32BE(1)).toBe(codec.schemaId('Reply'));
      expect(registry.requests).toContain('PUT /config/wds.events.Reply-value');
    });

    it('registers idempotently: a second process gets the same ids and adds no versions', async () => {
      const before = new Map(registry.subjects);
      const second = (await createCodec({ registryUrl: registry.url })) as ConfluentCodec;
      const first = codecs[STAND_IN] as ConfluentCodec;
      for (const name of Object.keys(EVENTS)) expect(second.schemaId(name)).toBe(first.schemaId(name));
      expect(new Map(registry.subjects)).toEqual(before);
    });

    it('also decodes single-object bytes, so switching framing strands nothing', async () => {
      const bytes = await (codecs['single-object'] as EventCodec).encode('JobEvent', SAMPLE_EVENTS.JobEvent);
      expect((await (codecs[STAND_IN] as EventCodec).decode(bytes)).event).toBe('JobEvent');
    });

    it('says event_undecodable for an id the registry does not have, or one that is no event', async () => {
      const codec = codecs[STAND_IN] as EventCodec;
      const body = Buffer.from([0x02, 0x41]);
      const unknownId = Buffer.concat([Buffer.from([0, 0, 0, 0x7f, 0xff]), body]);
      expect(await codeOf(() => codec.decode(unknownId))).toBe('event_undecodable');
      const foreign = registry.register('other-value', JSON.stringify({ type: 'record', name: 'x.Other', fields: [{ name: 'a', type: 'string' }] }));
      const header = Buffer.alloc(5);
      header.writeInt32BE(foreign, 1);
      expect(await codeOf(() => codec.decode(Buffer.concat([header, body])))).toBe('event_undecodable');
    });

    it('fails the start with upstream_error when the registry does not answer', async () => {
      expect(await codeOf(() => createCodec({ registryUrl: 'http://127.0.0.1:1' }))).toBe('upstream_error');
    });

    it('fails the start with internal_error when the registry refuses a version as incompatible', async () => {
      const own = await startSchemaRegistry({ defaultCompatibility: 'FULL_TRANSITIVE' });
      try {
        // Someone registered an unrelated TestPing under our subject first.
        own.register(subjectOf('TestPing'), JSON.stringify({ type: 'record', name: 'wds.events.TestPing', fields: [{ name: 'x', type: 'int' }] }));
        expect(await codeOf(() => createCodec({ registryUrl: own.url }))).toBe('internal_error');
      } finally {
        await own.close();
      }
    });

    it('says upstream_error (retriable), not event_undecodable, when the registry is away for an unknown id', async () => {
      const own = await startSchemaRegistry();
      const codec = await createCodec({ registryUrl: own.url });
      const id = own.register('late-value', JSON.stringify({ ...V2, name: 'TestPing', namespace: 'wds.events' }));
      await own.close();
      const bytes = Buffer.concat([Buffer.from([0, 0, 0, 0, id]), Buffer.from([0x02, 0x41])]);
      const error = await codec.decode(bytes).catch((e: unknown) => e as { code: string; retriable: boolean });
      expect(error).toMatchObject({ code: 'upstream_error', retriable: true });
    });
  });

  describe('schema evolution (test-only TestPing v2 adds a field with a default)', () => {
    const v1Only = () => compileEventTypes(withTestPing(V1));
    const v1v2 = () => compileEventTypes(withTestPing(V1, V2));

    it('single-object: v1 bytes decode with the v2 reader, the new field taking its default', () => {
      const bytes = new SingleObjectCodec(v1Only()).encodeSync('TestPing', PING);
      const decoded = new SingleObjectCodec(v1v2()).decodeSync(bytes);
      expect(decoded.writerVersion).toBe(1);
      expect({ ...decoded.value }).toEqual({ ...PING, hops: 0 });
    });

    it('single-object: v2 bytes decode with v2, and a v1-only reader refuses them (readers deploy first)', async () => {
      const bytes = new SingleObjectCodec(v1v2()).encodeSync('TestPing', { ...PING, hops: 3 });
      expect(new SingleObjectCodec(v1v2()).decodeSync(bytes)).toMatchObject({ writerVersion: 2, value: { hops: 3 } });
      expect(await codeOf(() => new SingleObjectCodec(v1Only()).decode(bytes))).toBe('event_undecodable');
    });

    it('the v1 schema reads v2 bytes, dropping the new field (the resolution a v1 reader does)', () => {
      const [r1, w2] = [avro.Type.forSchema(V1 as avro.schema.AvroSchema), avro.Type.forSchema(V2 as avro.schema.AvroSchema)];
      expect({ ...r1.fromBuffer(w2.toBuffer({ ...PING, hops: 3 }), r1.createResolver(w2)) }).toEqual(PING);
    });

    it(`${STAND_IN}: v1 → v2 reader, and v2 → a v1-only reader that fetches the new schema by id`, async () => {
      const own = await startSchemaRegistry({ defaultCompatibility: 'FULL_TRANSITIVE' });
      try {
        const oldProcess = await createCodec({ registryUrl: own.url, types: v1Only() });
        const newProcess = await createCodec({ registryUrl: own.url, types: v1v2() });
        expect(own.subjects.get(subjectOf('TestPing'))?.length).toBe(2);

        const fromOld = await newProcess.decode(await oldProcess.encode('TestPing', PING));
        expect(fromOld.writerVersion).toBe(1);
        expect({ ...fromOld.value }).toEqual({ ...PING, hops: 0 });

        const fromNew = await oldProcess.decode(await newProcess.encode('TestPing', { ...PING, hops: 3 } as never));
        expect(fromNew.writerVersion).toBe(0); // newer than any version the old process knows
        expect({ ...fromNew.value }).toEqual(PING);
      } finally {
        await own.close();
      }
    });

    it('refuses, at start-up, a v2 that v1 bytes cannot be read as (a field added without a default)', () => {
      const broken: EventRecordSchema = { ...V1, fields: [...V1.fields, { name: 'hops', type: 'int' }] };
      expect(() => compileEventTypes(withTestPing(V1, broken))).toThrow(expect.objectContaining({ code: 'internal_error' }));
      expect(() => compileEventTypes(withTestPing(V1, broken))).toThrow(/v1 cannot be read as test:TestPing\/v2/);
    });

    it('refuses, at start-up, a v2 that v1 readers cannot read (a field without a default removed)', () => {
      const broken: EventRecordSchema = { ...V1, fields: V1.fields.filter((f) => f.name !== 'sentAtMs') };
      expect(() => compileEventTypes(withTestPing(V1, broken))).toThrow(expect.objectContaining({ code: 'internal_error' }));
      expect(() => compileEventTypes(withTestPing(V1, broken))).toThrow(/not yet upgraded could not read it/);
    });

    it('refuses, at start-up, a v2 with the same fingerprint as v1 (only a default or doc changed)', () => {
      const same: EventRecordSchema = { ...V1, doc: 'reworded' };
      expect(() => compileEventTypes(withTestPing(V1, same))).toThrow(/same fingerprint/);
    });
  });
});
