/**
 * Avro single-object encoding, the framing used when no schema registry is configured:
 *
 *   C3 01 | CRC-64-AVRO fingerprint of the writer schema (8 bytes, little-endian) | Avro binary
 *
 * Self-describing against the schema history in schemas/events/: the decoder looks the
 * fingerprint up among every version of every event and resolves the body to that event's
 * newest version. An unknown fingerprint (a writer newer than this reader, or not an event)
 * and bytes that do not parse are `event_undecodable`.
 *
 * Decoded `bytes` fields are views into the input buffer, not copies.
 */
import { AppError } from '../errors.js';
import type { DecodedEvent, EventCodec } from './codec.js';
import { compileEventTypes, type EventTypes, type WriterSchema } from './event-types.js';
import { fingerprintBytes, fingerprintHex } from './fingerprint.js';
import type { EventName, EventValue } from '../../../schemas/events/index.js';

export const SINGLE_OBJECT_MARKER = Buffer.from([0xc3, 0x01]);
export const SINGLE_OBJECT_HEADER_BYTES = 10;

export function isSingleObject(bytes: Buffer): boolean {
  return bytes.length >= SINGLE_OBJECT_HEADER_BYTES && bytes[0] === 0xc3 && bytes[1] === 0x01;
}

/** Avro binary of `value` with the event's current schema; `internal_error` when it does not fit. */
export function encodeBody(types: EventTypes, event: string, value: unknown): { writer: WriterSchema; body: Buffer } {
  const writer = types.get(event).current;
  try {
    return { writer, body: writer.type.toBuffer(value) };
  } catch (error) {
    const paths: string[] = [];
    writer.type.isValid(value, { errorHook: (path) => paths.push(path.join('.') || '(root)') });
    const where = paths.length > 0 ? ` (invalid: ${paths.join(', ')})` : '';
    throw new AppError('internal_error', `the ${event} value does not match its schema${where}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** Reads an Avro body written with `writer` as the event's current version. */
export function decodeBody(types: EventTypes, writer: WriterSchema, body: Buffer, framing: string): DecodedEvent {
  const compiled = types.get(writer.event);
  let value: unknown;
  try {
    value = compiled.reader.fromBuffer(body, writer.resolver ?? undefined);
  } catch (error) {
    throw new AppError(
      'event_undecodable',
      `${framing} ${writer.event} v${writer.version} event: the Avro body does not parse: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return { event: writer.event as EventName, value: value as EventValue<EventName>, writerVersion: writer.version };
}

export class SingleObjectCodec implements EventCodec {
  readonly framing = 'single-object' as const;
  private readonly headers = new Map<string, Buffer>();

  constructor(readonly types: EventTypes = compileEventTypes()) {
    for (const [name, compiled] of types.events) {
      this.headers.set(name, Buffer.concat([SINGLE_OBJECT_MARKER, fingerprintBytes(compiled.current.fingerprint)]));
    }
  }

  encodeSync(event: string, value: unknown): Buffer {
    const { body } = encodeBody(this.types, event, value);
    const header = this.headers.get(event) as Buffer;
    const out = Buffer.allocUnsafe(SINGLE_OBJECT_HEADER_BYTES + body.length);
    header.copy(out, 0);
    body.copy(out, SINGLE_OBJECT_HEADER_BYTES);
    return out;
  }

  decodeSync(bytes: Buffer): DecodedEvent {
    if (!isSingleObject(bytes)) {
      const head = bytes.subarray(0, 2).toString('hex') || 'nothing';
      throw new AppError('event_undecodable', `not a single-object encoded event: starts with ${head}, expected c301`);
    }
    const fingerprint = bytes.readBigUInt64LE(2);
    const writer = this.types.byFingerprint.get(fingerprint);
    if (!writer) {
      throw new AppError(
        'event_undecodable',
        `unknown schema fingerprint ${fingerprintHex(fingerprint)}: no version of any event in schemas/events/ has it`,
      );
    }
    return decodeBody(this.types, writer, bytes.subarray(SINGLE_OBJECT_HEADER_BYTES), 'single-object');
  }

  async encode<N extends EventName>(event: N, value: EventValue<N>): Promise<Buffer> {
    return this.encodeSync(event, value);
  }

  async decode(bytes: Buffer): Promise<DecodedEvent> {
    return this.decodeSync(bytes);
  }
}
