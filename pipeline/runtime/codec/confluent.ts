/**
 * The Confluent wire format, used when a schema registry is configured:
 *
 *   00 | schema id (4 bytes, big-endian) | Avro binary
 *
 * At start-up every version of every event is registered, oldest first, under the subject
 * `wds.events.<EventName>-value` with FULL_TRANSITIVE compatibility, which is what the rules
 * in schemas/events/README.md amount to; the registry refusing a version stops the start.
 * Registering an existing schema returns its existing id, so this is idempotent, and every
 * id an older writer used maps back to its version here.
 *
 * Encoding goes through @kafkajs/confluent-schema-registry (`encode(id, value)`). Decoding
 * reads the id and resolves the body to the event's newest version with avsc resolvers built
 * once per id (the library's `decode` would build a new reader type per message). An id this
 * process did not register is fetched from the registry once: a known version is used as
 * such; a newer version of a known event (a writer deployed before this reader) is read as
 * the newest version this process knows, with `writerVersion` 0. Single-object bytes are
 * decoded too, so a deployment can switch framing without a dead-letter wave.
 */
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import avro from 'avsc';
import type { Type } from 'avsc';
import type { EventName, EventValue } from '../../../schemas/events/index.js';
import { EVENT_NAMESPACE } from '../../../schemas/events/load.js';
import { AppError } from '../errors.js';
import type { DecodedEvent, EventCodec } from './codec.js';
import { AVRO_TYPE_OPTIONS, compileEventTypes, compileType, type EventTypes, type WriterSchema } from './event-types.js';
import { canonicalForm, rabin64 } from './fingerprint.js';
import { decodeBody, isSingleObject, SingleObjectCodec } from './single-object.js';

export const CONFLUENT_MAGIC_BYTE = 0;
export const CONFLUENT_HEADER_BYTES = 5;
/** The compatibility level set on each event's subject when it is first registered. */
export const SUBJECT_COMPATIBILITY = COMPATIBILITY.FULL_TRANSITIVE;

export function subjectOf(event: string): string {
  return `${EVENT_NAMESPACE}.${event}-value`;
}

export interface ConfluentCodecOptions {
  /** Base URL of the Confluent Schema Registry, e.g. http://schema-registry:8081. */
  registryUrl: string;
  types?: EventTypes;
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

export class ConfluentCodec implements EventCodec {
  readonly framing = 'confluent' as const;
  /** Schema id → the version it holds, for every id registered or seen. */
  private readonly byId = new Map<number, WriterSchema>();
  private readonly fetching = new Map<number, Promise<WriterSchema>>();
  private readonly currentIds = new Map<string, number>();
  private readonly singleObject: SingleObjectCodec;

  private constructor(
    private readonly registry: SchemaRegistry,
    private readonly registryUrl: string,
    readonly types: EventTypes,
  ) {
    this.singleObject = new SingleObjectCodec(types);
  }

  /** Registers every version of every event and returns the ready codec. */
  static async create(options: ConfluentCodecOptions): Promise<ConfluentCodec> {
    const registry = new SchemaRegistry({ host: options.registryUrl }, { [SchemaType.AVRO]: { ...AVRO_TYPE_OPTIONS } });
    const codec = new ConfluentCodec(registry, options.registryUrl, options.types ?? compileEventTypes());
    await Promise.all([...codec.types.events.values()].map((e) => codec.registerVersions(e.name)));
    return codec;
  }

  private async registerVersions(event: string): Promise<void> {
    const subject = subjectOf(event);
    for (const version of this.types.get(event).versions) {
      let id: number;
      try {
        const schema = JSON.stringify(version.type.schema({ exportAttrs: true }));
        ({ id } = await this.registry.register({ type: SchemaType.AVRO, schema }, { subject, compatibility: SUBJECT_COMPATIBILITY }));
      } catch (error) {
        const status = statusOf(error);
        const what = `registering ${event} v${version.version} as ${subject} at ${this.registryUrl}`;
        if (status === 409 || status === 422 || (error as Error).name === 'ConfluentSchemaRegistryCompatibilityError') {
          throw new AppError('internal_error', `${what} was refused: ${(error as Error).message}`, { cause: error });
        }
        throw new AppError('upstream_error', `${what} failed: ${(error as Error).message}`, { cause: error });
      }
      this.byId.set(id, version);
      this.currentIds.set(event, id);
    }
  }

  /** The registry id of each event's current version (for logs and tests). */
  schemaId(event: string): number | undefined {
    return this.currentIds.get(event);
  }

  async encode<N extends EventName>(event: N, value: EventValue<N>): Promise<Buffer> {
    const id = this.currentIds.get(event);
    if (id === undefined) this.types.get(event); // throws internal_error for a name that is no event
    try {
      return await this.registry.encode(id as number, value);
    } catch (error) {
      const paths = (error as { paths?: string[][] }).paths ?? [];
      const where = paths.length > 0 ? ` (invalid: ${paths.map((p) => p.join('.')).join(', ')})` : '';
      throw new AppError('internal_error', `the ${event} value does not match its schema${where}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  async decode(bytes: Buffer): Promise<DecodedEvent> {
    if (isSingleObject(bytes)) return this.singleObject.decodeSync(bytes);
    if (bytes.length < CONFLUENT_HEADER_BYTES || bytes[0] !== CONFLUENT_MAGIC_BYTE) {
      const head = bytes.subarray(0, 1).toString('hex') || 'nothing';
      throw new AppError('event_undecodable', `not a Confluent-framed event: starts with ${head}, expected magic byte 00`);
    }
    const id = bytes.readInt32BE(1);
    const writer = this.byId.get(id) ?? (await this.fetchWriter(id));
    return decodeBody(this.types, writer, bytes.subarray(CONFLUENT_HEADER_BYTES), `Confluent (schema id ${id})`);
  }

  /** The version behind an id this process did not register, fetched once (failures are not kept). */
  private fetchWriter(id: number): Promise<WriterSchema> {
    let pending = this.fetching.get(id);
    if (!pending) {
      pending = this.lookUp(id).then(
        (writer) => {
          this.byId.set(id, writer);
          this.fetching.delete(id);
          return writer;
        },
        (error: unknown) => {
          this.fetching.delete(id);
          throw error;
        },
      );
      this.fetching.set(id, pending);
    }
    return pending;
  }

  private async lookUp(id: number): Promise<WriterSchema> {
    let fetched: unknown;
    try {
      fetched = await this.registry.getSchema(id);
    } catch (error) {
      if (statusOf(error) === 404) {
        throw new AppError('event_undecodable', `schema id ${id} is not in the registry at ${this.registryUrl}`, { cause: error });
      }
      // The registry being away is no reason to dead-letter the event: retriable.
      throw new AppError('upstream_error', `the schema registry at ${this.registryUrl} did not give schema id ${id}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (!avro.Type.isType(fetched)) throw new AppError('event_undecodable', `schema id ${id} is not an Avro schema`);
    const type: Type = compileType((fetched as Type).schema({ exportAttrs: true }), `schema id ${id}`);
    const canonical = canonicalForm(type);
    const fingerprint = rabin64(Buffer.from(canonical, 'utf8'));
    const known = this.types.byFingerprint.get(fingerprint);
    if (known) return known;
    const name = type.name ?? '';
    const compiled = name.startsWith(`${EVENT_NAMESPACE}.`) ? this.types.events.get(name.slice(EVENT_NAMESPACE.length + 1)) : undefined;
    if (!compiled) throw new AppError('event_undecodable', `schema id ${id} holds ${name || 'an unnamed schema'}, which is not an event type`);
    try {
      const resolver = compiled.reader.createResolver(type);
      return { event: compiled.name, version: 0, type, canonical, fingerprint, resolver };
    } catch (error) {
      throw new AppError(
        'event_undecodable',
        `schema id ${id} (${name}) cannot be read as the current ${compiled.name}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
}
