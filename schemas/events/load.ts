/**
 * Reading the event schemas from disk: `schemas/events/<EventName>/v<N>.avsc`, one folder per
 * event type, every published version kept. The files are found from the package root (the
 * nearest directory above this module that holds package.json and schemas/events/), so the
 * same code works from the source tree and from dist/, which holds no .avsc files.
 *
 * This module only reads and checks the JSON shape; compiling the schemas with avsc (and
 * checking that every old version resolves to the newest) is pipeline/runtime/codec's job.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ErrorCode } from '../errors.js';

/** Every event record lives in this Avro namespace. */
export const EVENT_NAMESPACE = 'wds.events';

/** An Avro schema in its JSON form, loosely typed: avsc checks the details. */
export type AvroSchema = string | AvroSchema[] | { readonly type: AvroSchema; readonly [attribute: string]: unknown };

export interface AvroField {
  readonly name: string;
  readonly type: AvroSchema;
  readonly default?: unknown;
  readonly doc?: string;
  readonly aliases?: readonly string[];
}

export interface EventRecordSchema {
  readonly type: 'record';
  readonly name: string;
  readonly namespace: string;
  readonly doc?: string;
  readonly fields: readonly AvroField[];
}

export interface EventSchemaVersion {
  readonly event: string;
  readonly version: number;
  readonly schema: EventRecordSchema;
  /** The file it came from, relative to the package root (`schemas/events/Reply/v1.avsc`). */
  readonly file: string;
}

export interface EventDefinition {
  readonly name: string;
  /** The newest version: what writers write and what readers resolve every version to. */
  readonly current: EventSchemaVersion;
  /** Every version, oldest first: v1, v2, … with no gaps. */
  readonly versions: readonly EventSchemaVersion[];
}

/** A broken event schema set. Thrown while loading, so a bad schema stops the process at start. */
export class EventSchemaError extends Error {
  readonly code: ErrorCode = 'internal_error';
  override readonly name = 'EventSchemaError';
}

/** True when `dir/schemas/events` holds at least one `<EventName>/v1.avsc`. */
function holdsEventSchemas(dir: string): boolean {
  const events = join(dir, 'schemas', 'events');
  if (!existsSync(events)) return false;
  return readdirSync(events, { withFileTypes: true }).some((e) => e.isDirectory() && existsSync(join(events, e.name, 'v1.avsc')));
}

/**
 * The package root: the nearest directory at or above `from` that holds package.json and the
 * .avsc files under schemas/events/ (so a build directory with a package.json of its own and
 * compiled schemas/events/*.js is passed over).
 */
export function findPackageRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && holdsEventSchemas(dir)) return dir;
    if (dirname(dir) === dir) {
      throw new EventSchemaError(`no directory above ${from} holds package.json and schemas/events/: the event schemas ship with the package`);
    }
  }
}

export function eventSchemasDir(root: string = findPackageRoot()): string {
  return join(root, 'schemas', 'events');
}

const EVENT_NAME = /^[A-Z][A-Za-z0-9]*$/;
const VERSION_FILE = /^v([1-9][0-9]*)\.avsc$/;

function readVersion(root: string, event: string, version: number, path: string): EventSchemaVersion {
  const file = relative(root, path).split('\\').join('/');
  let schema: unknown;
  try {
    schema = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new EventSchemaError(`${file} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const s = schema as Partial<EventRecordSchema> | null;
  if (typeof s !== 'object' || s === null || s.type !== 'record' || !Array.isArray(s.fields)) {
    throw new EventSchemaError(`${file} must hold an Avro record schema`);
  }
  if (s.name !== event || s.namespace !== EVENT_NAMESPACE) {
    throw new EventSchemaError(`${file} must name the record "${event}" in namespace "${EVENT_NAMESPACE}"`);
  }
  return { event, version, schema: s as EventRecordSchema, file };
}

/**
 * Reads every `<EventName>/v<N>.avsc` under `dir`. Throws `EventSchemaError` for a file that
 * is not a record named after its folder in `wds.events`, or for a gap in the versions.
 */
export function loadEventDefinitions(dir: string = eventSchemasDir()): Record<string, EventDefinition> {
  const root = dirname(dirname(dir));
  if (!existsSync(dir)) throw new EventSchemaError(`${dir} does not exist: the event schemas ship with the package`);
  const out: Record<string, EventDefinition> = {};
  const folders = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory());
  for (const folder of folders.map((f) => f.name).sort()) {
    if (!EVENT_NAME.test(folder)) throw new EventSchemaError(`schemas/events/${folder}: an event name is PascalCase`);
    const numbers = readdirSync(join(dir, folder))
      .map((f) => VERSION_FILE.exec(f)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
    if (numbers.length === 0) throw new EventSchemaError(`schemas/events/${folder} holds no v<N>.avsc`);
    numbers.forEach((n, i) => {
      if (n !== i + 1) throw new EventSchemaError(`schemas/events/${folder}: versions must run v1, v2, … without gaps (found v${n})`);
    });
    const versions = numbers.map((n) => readVersion(root, folder, n, join(dir, folder, `v${n}.avsc`)));
    out[folder] = { name: folder, current: versions[versions.length - 1] as EventSchemaVersion, versions };
  }
  return out;
}
