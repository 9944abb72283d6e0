/**
 * The event codec for this process: Confluent wire format when a schema registry URL is
 * configured, Avro single-object encoding otherwise (codec.ts describes both). The schemas
 * compile, and with a registry every version registers, before this resolves: a broken
 * schema or a refusing registry stops the start with a coded error.
 *
 * The Confluent codec (and with it the registry client, protobufjs and its other formats) is
 * imported only when a registry is configured: an embedded process never loads it.
 */
import type { EventCodec } from './codec.js';
import { compileEventTypes, type EventTypes } from './event-types.js';
import { SingleObjectCodec } from './single-object.js';

export type { DecodedEvent, EventCodec } from './codec.js';

export interface CodecOptions {
  /** Confluent Schema Registry base URL (config `schemaRegistryUrl`); unset: single-object. */
  registryUrl?: string | undefined;
  /** The compiled event schemas; tests pass their own, the default is schemas/events/. */
  types?: EventTypes | undefined;
}

export async function createCodec(options: CodecOptions = {}): Promise<EventCodec> {
  const types = options.types ?? compileEventTypes();
  if (options.registryUrl) {
    const { ConfluentCodec } = await import('./confluent.js');
    return ConfluentCodec.create({ registryUrl: options.registryUrl, types });
  }
  return new SingleObjectCodec(types);
}
