/**
 * A Kafka group member's messages (kafka-member.ts): each fetched message is delivered to
 * the handler (deliver.ts) while the member keeps heartbeating, and its offset is marked for
 * commit only when the handler resolved (kafka-commits.ts). A message released while the
 * member runs is fetched again, keeping the partition's order.
 */
import { setMaxListeners } from 'node:events';
import kafkajs, { type EachMessageHandler, type IHeaders, type KafkaMessage } from 'kafkajs';
import type { Logger } from '../log.js';
import type { BusMessage, Headers } from './bus.js';
import { deliver, type DeliveryOutcome } from './deliver.js';
import type { OffsetCommits } from './kafka-commits.js';

const { KafkaJSError } = kafkajs;

export type MemberPhase = 'running' | 'stopping' | 'aborted' | 'stopped';

/** A member's phase and the deliveries it runs, shared by its steps. */
export class MemberRun {
  private phase: MemberPhase = 'running';
  /** Aborted by `abort()`: deliveries in flight are released at once. */
  readonly abandoned = new AbortController();
  readonly running = new Set<Promise<DeliveryOutcome>>();

  constructor() {
    // Every delivery in flight listens on it until it settles: more than 10 is normal.
    setMaxListeners(0, this.abandoned.signal);
  }

  /** Read through a method: a step sees changes made while it awaited. */
  current(): MemberPhase {
    return this.phase;
  }

  enter(phase: MemberPhase): void {
    this.phase = phase;
  }
}

export interface DeliverySettings {
  readonly heartbeatIntervalMs: number;
  readonly redeliveryDelayMs: number;
  readonly maxRedeliveryDelayMs: number;
}

export interface DeliveryDeps {
  readonly member: MemberRun;
  readonly commits: OffsetCommits;
  readonly handler: (message: BusMessage) => Promise<void>;
  readonly settings: DeliverySettings;
  readonly log: Logger;
}

/** kafkajs's `eachMessage` for a member. */
export function eachMessageOf({ member, commits, handler, settings, log }: DeliveryDeps): EachMessageHandler {
  return async ({ topic, partition, message, heartbeat }) => {
    // After stop/abort began, a message already fetched is left uncommitted for the next owner.
    if (member.current() !== 'running') return;
    const busMessage = busMessageOf(topic, partition, message);
    const keepAlive = setInterval(() => void heartbeat().catch(() => undefined), settings.heartbeatIntervalMs);
    const delivery = deliver(busMessage, handler, {
      log,
      redeliveryDelayMs: settings.redeliveryDelayMs,
      maxRedeliveryDelayMs: settings.maxRedeliveryDelayMs,
      mayRetry: () => member.current() === 'running',
      abandoned: member.abandoned.signal,
    });
    member.running.add(delivery);
    let outcome: DeliveryOutcome;
    try {
      outcome = await delivery;
    } finally {
      clearInterval(keepAlive);
      member.running.delete(delivery);
    }
    if (outcome === 'handled') {
      if (member.current() !== 'aborted') commits.mark(topic, partition, (BigInt(message.offset) + 1n).toString());
      return;
    }
    // Returning would let kafkajs move past the message; throwing makes it fetch it again.
    if (member.current() === 'running') throw new KafkaJSError('message released while the member runs; fetching it again', { retriable: true });
  };
}

function busMessageOf(topic: string, partition: number, message: KafkaMessage): BusMessage {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    value: message.value ?? Buffer.alloc(0),
    headers: headersOf(message.headers),
  };
}

function headersOf(headers: IHeaders | undefined): Headers {
  const out: Headers = {};
  for (const [name, raw] of Object.entries(headers ?? {})) {
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (value !== undefined) out[name] = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  }
  return out;
}
