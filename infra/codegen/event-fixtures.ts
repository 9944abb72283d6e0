/**
 * Versioned wire fixtures (style habit 8): for each event version, a sample encoded the way
 * it went on the wire, kept forever, so a test can prove that every old sample still decodes
 * with the current reader.
 *
 *   test/fixtures/events/<EventName>/v<N>.single-object.bin   the single-object bytes
 *   test/fixtures/events/<EventName>/v<N>.json                the value they hold
 *
 * In the JSON, a `bytes` value is written `{"$bytes": "<base64>"}`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENTS, type EventName } from '../../schemas/events/index.js';
import { fingerprintHex } from '../../pipeline/runtime/codec/fingerprint.js';
import { SAMPLE_EVENTS } from './event-samples.js';
import { SingleObjectCodec } from '../../pipeline/runtime/codec/single-object.js';

export const FIXTURES_DIR = 'test/fixtures/events';

export interface FixtureFile {
  readonly event: string;
  readonly version: number;
  /** The schema file the bytes were written with. */
  readonly schema: string;
  /** Its CRC-64-AVRO fingerprint, as the 8 little-endian bytes on the wire, in hex. */
  readonly fingerprint: string;
  readonly value: unknown;
}

export function fixturePaths(root: string, event: string, version: number): { bin: string; json: string } {
  const dir = join(root, FIXTURES_DIR, event);
  return { bin: join(dir, `v${version}.single-object.bin`), json: join(dir, `v${version}.json`) };
}

/** A decoded value as JSON: Buffers become `{"$bytes": base64}`. */
export function toFixtureJson(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return { $bytes: value.toString('base64') };
  if (Array.isArray(value)) return value.map(toFixtureJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toFixtureJson(v)]));
  }
  return value;
}

/** The inverse of `toFixtureJson`. */
export function fromFixtureJson(json: unknown): unknown {
  if (Array.isArray(json)) return json.map(fromFixtureJson);
  if (json !== null && typeof json === 'object') {
    const entries = Object.entries(json);
    const [only] = entries;
    if (entries.length === 1 && only?.[0] === '$bytes' && typeof only[1] === 'string') return Buffer.from(only[1], 'base64');
    return Object.fromEntries(entries.map(([k, v]) => [k, fromFixtureJson(v)]));
  }
  return json;
}

export function readFixture(root: string, event: string, version: number): { bytes: Buffer; file: FixtureFile; value: unknown } {
  const paths = fixturePaths(root, event, version);
  const file = JSON.parse(readFileSync(paths.json, 'utf8')) as FixtureFile;
  return { bytes: readFileSync(paths.bin), file, value: fromFixtureJson(file.value) };
}

/** Writes the fixture of each event's current version where there is none; returns what it did. */
export function writeMissingFixtures(root: string): string[] {
  const codec = new SingleObjectCodec();
  const report: string[] = [];
  for (const name of Object.keys(EVENTS) as EventName[]) {
    const current = EVENTS[name].current;
    const paths = fixturePaths(root, name, current.version);
    if (existsSync(paths.bin) || existsSync(paths.json)) {
      report.push(`${FIXTURES_DIR}/${name}/v${current.version}: kept (fixtures are never rewritten)`);
      continue;
    }
    const value = SAMPLE_EVENTS[name] as unknown;
    if (value === undefined) throw new Error(`infra/codegen/event-samples.ts has no sample of ${name}`);
    const bytes = codec.encodeSync(name, value);
    const file: FixtureFile = {
      event: name,
      version: current.version,
      schema: current.file,
      fingerprint: fingerprintHex(codec.types.get(name).current.fingerprint),
      value: toFixtureJson(value),
    };
    mkdirSync(join(root, FIXTURES_DIR, name), { recursive: true });
    writeFileSync(paths.bin, bytes);
    writeFileSync(paths.json, `${JSON.stringify(file, null, 2)}\n`);
    report.push(`${FIXTURES_DIR}/${name}/v${current.version}: written`);
  }
  return report;
}
