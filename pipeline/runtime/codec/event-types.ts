/**
 * The event schemas compiled with avsc, once, at start-up: for every event its reader (the
 * newest version) and every version as a writer, each with its fingerprint and the resolver
 * that reads its bytes as the newest version. Start-up fails with a coded `internal_error`
 * when a schema does not compile, when an old version and the newest cannot each read the
 * other (the evolution rules in schemas/events/README.md keep them fully compatible), or when
 * two versions share a fingerprint.
 */
import avro from 'avsc';
import type { Resolver, Type } from 'avsc';
import { EVENTS } from '../../../schemas/events/index.js';
import { EVENT_NAMESPACE, type EventDefinition, type EventSchemaVersion } from '../../../schemas/events/load.js';
import { AppError } from '../errors.js';
import { canonicalForm, fingerprintHex, rabin64 } from './fingerprint.js';

export interface WriterSchema {
  readonly event: string;
  readonly version: number;
  readonly type: Type;
  /** Parsing Canonical Form. */
  readonly canonical: string;
  /** CRC-64-AVRO of the canonical form. */
  readonly fingerprint: bigint;
  /** Reads this version's bytes as the newest version; null for the newest itself. */
  readonly resolver: Resolver | null;
}

export interface CompiledEvent {
  readonly name: string;
  /** The newest version's type: every event is written with it and read as it. */
  readonly reader: Type;
  readonly current: WriterSchema;
  readonly versions: readonly WriterSchema[];
}

export interface EventTypes {
  readonly events: ReadonlyMap<string, CompiledEvent>;
  /** Every version of every event by fingerprint. */
  readonly byFingerprint: ReadonlyMap<bigint, WriterSchema>;
  /** The compiled event; `internal_error` for a name that is not an event. */
  get(event: string): CompiledEvent;
}

/**
 * avsc options for every event type (unions of null and one type read as `T | null`). Pass a
 * copy: avsc adds its registry of named types to the options object it is given.
 */
export const AVRO_TYPE_OPTIONS = Object.freeze({ wrapUnions: 'auto' } as const);

export function compileType(schema: unknown, where: string): Type {
  try {
    return avro.Type.forSchema(schema as avro.schema.AvroSchema, { ...AVRO_TYPE_OPTIONS });
  } catch (error) {
    throw new AppError('internal_error', `${where} does not compile: ${(error as Error).message}`, { cause: error });
  }
}

function writerSchema(v: EventSchemaVersion, type: Type, resolver: Resolver | null): WriterSchema {
  const canonical = canonicalForm(type);
  const fingerprint = rabin64(Buffer.from(canonical, 'utf8'));
  return { event: v.event, version: v.version, type, canonical, fingerprint, resolver };
}

function resolve(reader: Type, writer: Type, problem: string): Resolver {
  try {
    return reader.createResolver(writer);
  } catch (error) {
    throw new AppError('internal_error', `${problem}: ${(error as Error).message} (schemas/events/README.md has the evolution rules)`, {
      cause: error,
    });
  }
}

function compileEvent(def: EventDefinition): CompiledEvent {
  const reader = compileType(def.current.schema, def.current.file);
  if (reader.name !== `${EVENT_NAMESPACE}.${def.name}`) {
    throw new AppError('internal_error', `${def.current.file} must define the record ${EVENT_NAMESPACE}.${def.name}`);
  }
  const versions = def.versions.map((v): WriterSchema => {
    if (v === def.current) return writerSchema(v, reader, null);
    const type = compileType(v.schema, v.file);
    const resolver = resolve(reader, type, `${v.file} cannot be read as ${def.current.file}`);
    // Full compatibility: a process still on v<k> must be able to read what the newest writes.
    resolve(type, reader, `${def.current.file} cannot be read as ${v.file}, so processes not yet upgraded could not read it`);
    return writerSchema(v, type, resolver);
  });
  return { name: def.name, reader, current: versions[versions.length - 1] as WriterSchema, versions };
}

/** Compiles a set of event definitions (by default the ones in schemas/events/). */
export function compileEventTypes(definitions: Readonly<Record<string, EventDefinition>> = EVENTS): EventTypes {
  const events = new Map<string, CompiledEvent>();
  const byFingerprint = new Map<bigint, WriterSchema>();
  for (const def of Object.values(definitions)) {
    const compiled = compileEvent(def);
    events.set(def.name, compiled);
    for (const v of compiled.versions) {
      const clash = byFingerprint.get(v.fingerprint);
      if (clash) {
        throw new AppError(
          'internal_error',
          `${v.event} v${v.version} has the same fingerprint (${fingerprintHex(v.fingerprint)}) as ${clash.event} v${clash.version}: ` +
            'a new version must change what is on the wire, not only docs or defaults',
        );
      }
      byFingerprint.set(v.fingerprint, v);
    }
  }
  return {
    events,
    byFingerprint,
    get(event: string): CompiledEvent {
      const compiled = events.get(event);
      if (!compiled) throw new AppError('internal_error', `"${event}" is not an event type (schemas/events/ has ${[...events.keys()].join(', ')})`);
      return compiled;
    },
  };
}
