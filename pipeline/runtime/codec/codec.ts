/**
 * Event encoding. Every event on the bus is Avro, written with the current schema of its
 * type from schemas/events/. Two framings:
 * - with a schema registry configured (SCHEMA_REGISTRY_URL): the Confluent wire format
 *   (magic byte 0, 4-byte schema id, Avro body) via @kafkajs/confluent-schema-registry;
 * - without one: Avro single-object encoding (0xC3 0x01, the 8-byte little-endian
 *   CRC-64-AVRO fingerprint of the writer schema, Avro body), self-describing against the
 *   schema history kept in schemas/events/.
 * A reader decodes any version it knows and resolves it to the current schema, so old
 * events stay readable (schemas/events/README.md has the evolution rules).
 */
import type { EventName, EventValue } from '../../../schemas/events/index.js';

export interface DecodedEvent<N extends EventName = EventName> {
  readonly event: N;
  readonly value: EventValue<N>;
  /**
   * Version of the schema the event was written with (the N of schemas/events/<Event>/vN.avsc).
   * 0 when the writer's schema is newer than any version this process has: only in the
   * Confluent framing, where it was fetched from the registry and read as the newest known.
   */
  readonly writerVersion: number;
}

export interface EventCodec {
  readonly framing: 'single-object' | 'confluent';
  encode<N extends EventName>(event: N, value: EventValue<N>): Promise<Buffer>;
  /** Decodes an event of any known type and version; throws `event_undecodable` otherwise. */
  decode(bytes: Buffer): Promise<DecodedEvent>;
}
