/**
 * Events on the bus: the typed layer over raw messages. `emit` encodes a value with its
 * topic's event schema (schemas/topics.ts) and publishes it, sending payloads above
 * `inlineLimitBytes` by reference through the blob store; `read` turns a received message
 * back into a decoded event, fetching a referenced payload first.
 */
import { HEADERS, TOPICS, type TopicKey } from '../../schemas/topics.js';
import type { EventName, EventValue } from '../../schemas/events/index.js';
import { AppError } from './errors.js';
import type { BlobStore } from './blobs.js';
import { MAX_PAYLOAD_BYTES } from './blobs.js';
import type { Bus, BusMessage, Headers, OutgoingMessage } from './bus/bus.js';
import type { DecodedEvent, EventCodec } from './codec/codec.js';

export type TopicEvent<K extends TopicKey> = (typeof TOPICS)[K]['event'] extends EventName ? (typeof TOPICS)[K]['event'] : never;

export interface Emission<K extends TopicKey = TopicKey> {
  topic: K;
  key: string;
  value: EventValue<TopicEvent<K>>;
  headers?: Headers;
}

/**
 * An emission to any topic, as a union over the topics (`{topic: 'replies', value: Reply} |
 * …`), so an object literal is checked against its own topic's event. (`Emission` without a
 * type argument has `value: never`: no one event fits every topic.)
 */
export type AnyEmission = { [K in TopicKey]: Emission<K> }[TopicKey];

export class Events {
  constructor(
    readonly bus: Bus,
    readonly codec: EventCodec,
    private readonly blobs: BlobStore,
    /** Encoded events larger than this travel by reference (Infinity: never). */
    private readonly inlineLimitBytes: number,
  ) {}

  async ensureTopics(keys: readonly TopicKey[] = Object.keys(TOPICS) as TopicKey[]): Promise<void> {
    await this.bus.ensureTopics(keys.map((k) => ({ name: TOPICS[k].name, partitions: TOPICS[k].partitions })));
  }

  /** Encodes and, when large, stores the payload; returns the message to publish. */
  async prepare<K extends TopicKey>(emission: Emission<K>): Promise<OutgoingMessage> {
    const event = TOPICS[emission.topic].event as TopicEvent<K>;
    const bytes = await this.codec.encode(event, emission.value);
    if (bytes.length > MAX_PAYLOAD_BYTES) {
      throw new AppError('payload_too_large', `a ${event} event of ${bytes.length} bytes exceeds ${MAX_PAYLOAD_BYTES}`);
    }
    // A blob header copied from the event being handled would make readers fetch that old
    // payload instead of this one: the header is this method's to set, never the caller's.
    const headers = { ...emission.headers };
    if (headers[HEADERS.blobRef] !== undefined) delete headers[HEADERS.blobRef];
    if (bytes.length <= this.inlineLimitBytes) return { key: emission.key, value: bytes, headers };
    headers[HEADERS.blobRef] = await this.blobs.put(bytes);
    return { key: emission.key, value: Buffer.alloc(0), headers };
  }

  async emit(emissions: readonly Emission[]): Promise<void> {
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const emission of emissions) {
      const name = TOPICS[emission.topic].name;
      const message = await this.prepare(emission);
      const messages = byTopic.get(name);
      if (messages) messages.push(message);
      else byTopic.set(name, [message]);
    }
    await Promise.all([...byTopic].map(([topic, messages]) => this.bus.publish(topic, messages)));
  }

  /** The payload bytes of a message, fetched from the blob store when sent by reference. */
  async payload(message: BusMessage): Promise<Buffer> {
    const ref = message.headers[HEADERS.blobRef];
    return ref ? this.blobs.get(ref) : message.value;
  }

  async read(message: BusMessage): Promise<DecodedEvent> {
    return this.codec.decode(await this.payload(message));
  }
}
