/**
 * The event contracts around the codec: the generated types are not stale (habit 6), every
 * stored wire sample of every event version still decodes with the current reader (habit 8),
 * and the schema files load, or fail to, as documented.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { types } from 'avsc';
import { afterAll, describe, expect, it } from 'vitest';
import { CURRENT_VERSIONS, EVENT_NAMES, EVENTS, type EventDefinition } from '../../schemas/events/index.js';
import { eventSchemasDir, findPackageRoot, loadEventDefinitions } from '../../schemas/events/load.js';
import { compileEventTypes } from '../../pipeline/runtime/codec/event-types.js';
import { fingerprintHex } from '../../pipeline/runtime/codec/fingerprint.js';
import { FIXTURES_DIR, fixturePaths, readFixture } from '../../infra/codegen/event-fixtures.js';
import { eventTypesPath, GENERATED_TYPES_PATH, renderEventTypes } from '../../infra/codegen/generate-types.js';
import { SingleObjectCodec } from '../../pipeline/runtime/codec/single-object.js';
import { REPO_ROOT } from '../helpers/process.js';

const versions = Object.values(EVENTS).flatMap((e) => e.versions.map((v) => [`${e.name} v${v.version}`, e.name, v.version] as const));

/** A value written with an old version, as the current reader sees it: fields it lacks take their defaults. */
function asCurrentReaderSees(event: string, written: Record<string, unknown>): Record<string, unknown> {
  const reader = compileEventTypes().get(event).reader as types.RecordType;
  return Object.fromEntries(
    reader.fields.map((f) => {
      const source = [f.name, ...f.aliases].find((n) => Object.hasOwn(written, n));
      return [f.name, source === undefined ? f.defaultValue() : written[source]];
    }),
  );
}

describe('pipeline/runtime/codec contracts', () => {
  const temps: string[] = [];
  const temp = () => {
    const dir = mkdtempSync(join(tmpdir(), 'wds-events-'));
    temps.push(dir);
    return dir;
  };
  afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

  describe('generated types (habit 6)', () => {
    it(`${GENERATED_TYPES_PATH} and each event's types are what \`npm run gen:events\` writes now`, () => {
      const rendered = renderEventTypes(loadEventDefinitions());
      expect(Object.keys(rendered)).toHaveLength(Object.keys(loadEventDefinitions()).length + 1);
      for (const [path, text] of Object.entries(rendered)) {
        const committed = readFileSync(join(REPO_ROOT, path), 'utf8');
        expect(committed, `${path} is stale: run \`npm run gen:events\``).toBe(text);
        expect(committed.startsWith('// GENERATED FILE, DO NOT EDIT.')).toBe(true);
        expect(committed).toContain('`npm run gen:events`');
      }
    });

    it('`gen:events --check` agrees, through the command itself', () => {
      const out = execFileSync(process.execPath, ['--import', 'tsx', 'infra/codegen/gen-events.ts', '--check'], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      });
      expect(out).toContain('is up to date');
    });

    it('maps each Avro type as documented and refuses unions it cannot describe', () => {
      const schema = {
        type: 'record' as const,
        name: 'Sample',
        namespace: 'wds.events',
        fields: [
          { name: 'a', type: 'long' },
          { name: 'b', type: 'bytes' },
          { name: 'c', type: ['null', { type: 'map', values: 'int' }] },
          { name: 'd', type: { type: 'array', items: { type: 'enum', name: 'E', symbols: ['X', 'Y'] } } },
          { name: 'e', type: { type: 'record', name: 'Inner', fields: [{ name: 'f', type: 'boolean', doc: 'inner doc' }] } },
        ],
      };
      const version = { event: 'Sample', version: 3, schema, file: 'schemas/events/Sample/v3.avsc' };
      const files = renderEventTypes({ Sample: { name: 'Sample', current: version, versions: [version] } });
      const rendered = files[eventTypesPath('Sample')];
      expect(rendered).toContain('  a: number;\n  b: Buffer;\n  c: Record<string, number> | null;\n  d: Array<"X" | "Y">;\n');
      expect(rendered).toContain('  e: {\n    /** inner doc */\n    f: boolean;\n  };\n');
      expect(files[GENERATED_TYPES_PATH]).toContain('Sample: 3,');
      expect(files[GENERATED_TYPES_PATH]).toContain("import type { Sample } from './Sample/types.generated.js';");
      const union = { ...schema, fields: [{ name: 'u', type: ['string', 'int'] }] };
      const bad = { ...version, schema: union };
      expect(() => renderEventTypes({ Sample: { name: 'Sample', current: bad, versions: [bad] } })).toThrow(/Sample\.u: the union/);
    });
  });

  describe('wire fixtures (habit 8)', () => {
    it.each(versions)('%s has a stored single-object sample and its value', (_, event, version) => {
      const paths = fixturePaths(REPO_ROOT, event, version);
      expect(existsSync(paths.bin) && existsSync(paths.json), `missing: run \`npm run gen:events -- --fixtures\``).toBe(true);
    });

    it('keeps no sample of an event or version that does not exist', () => {
      const known = new Set(versions.map(([, e, v]) => `${e}/v${v}`));
      const dir = join(REPO_ROOT, FIXTURES_DIR);
      const stored = readdirSync(dir).flatMap((e) =>
        readdirSync(join(dir, e)).map((f) => `${e}/${f.replace(/\.(single-object\.bin|json)$/, '')}`),
      );
      expect(stored.filter((s) => !known.has(s))).toEqual([]);
    });

    const codec = new SingleObjectCodec();
    it.each(versions)('%s: the stored bytes still decode with the current reader to the stored value', async (_, event, version) => {
      const { bytes, file, value } = readFixture(REPO_ROOT, event, version);
      const writer = codec.types.get(event).versions[version - 1];
      expect(file.fingerprint, `${file.schema} was edited after it was published; add a new version instead`).toBe(
        fingerprintHex(writer?.fingerprint ?? 0n),
      );
      const decoded = await codec.decode(bytes);
      expect(decoded.event).toBe(event);
      expect(decoded.writerVersion).toBe(version);
      expect({ ...decoded.value }).toEqual(asCurrentReaderSees(event, value as Record<string, unknown>));
    });
  });

  describe('schema files', () => {
    it('hold one folder per event, matching the generated names and current versions', () => {
      expect(Object.keys(EVENTS).sort()).toEqual([...EVENT_NAMES].sort());
      for (const name of EVENT_NAMES) {
        const def: EventDefinition = EVENTS[name];
        expect(def.current.version).toBe(CURRENT_VERSIONS[name]);
        expect(def.versions.map((v) => v.file)).toEqual(def.versions.map((v) => `schemas/events/${name}/v${v.version}.avsc`));
      }
    });

    it('are found from a build directory too, by walking up to package.json', () => {
      const root = temp();
      writeFileSync(join(root, 'package.json'), '{}');
      mkdirSync(join(root, 'schemas', 'events', 'Ping'), { recursive: true });
      writeFileSync(join(root, 'schemas', 'events', 'Ping', 'v1.avsc'), '{}');
      mkdirSync(join(root, 'dist', 'schemas', 'events'), { recursive: true });
      writeFileSync(join(root, 'dist', 'schemas', 'events', 'index.js'), '');
      writeFileSync(join(root, 'dist', 'package.json'), '{"type":"module"}');
      expect(findPackageRoot(join(root, 'dist', 'schemas', 'events'))).toBe(root);
      expect(() => findPackageRoot(join(temp(), 'x'))).toThrow(/holds package.json and schemas\/events/);
      expect(findPackageRoot(join(REPO_ROOT, 'schemas', 'events'))).toBe(REPO_ROOT);
      expect(eventSchemasDir(findPackageRoot())).toBe(join(REPO_ROOT, 'schemas', 'events'));
    });

    it('refuse a gap in the versions, a record named after another event, and a non-record', () => {
      const write = (dir: string, file: string, schema: unknown) => {
        mkdirSync(join(dir, file, '..'), { recursive: true });
        writeFileSync(join(dir, file), JSON.stringify(schema));
      };
      const record = (name: string) => ({ type: 'record', name, namespace: 'wds.events', fields: [] });
      const cases: [string, unknown, RegExp][] = [
        ['Ping/v2.avsc', record('Ping'), /without gaps/],
        ['Ping/v1.avsc', record('Pong'), /must name the record "Ping"/],
        ['Ping/v1.avsc', { ...record('Ping'), namespace: 'other' }, /in namespace "wds.events"/],
        ['Ping/v1.avsc', 'string', /must hold an Avro record schema/],
      ];
      for (const [file, schema, message] of cases) {
        const dir = join(temp(), 'schemas', 'events');
        write(dir, file, schema);
        expect(() => loadEventDefinitions(dir)).toThrow(message);
      }
    });

    it('load the shipped schemas as fully compatible histories', () => {
      expect(() => compileEventTypes(loadEventDefinitions(join(findPackageRoot(), 'schemas', 'events')))).not.toThrow();
    });
  });
});
