/**
 * A Kafka group member's messages (kafka-member.ts): kafkajs hands over each partition's
 * fetched batch; its messages are started in offset order, each as soon as its key has no
 * earlier message running and the member has a free handler slot (kafka-window.ts), and run
 * while the batch's partition goes on to its next messages and the member keeps heartbeating.
 * A message's offset is resolved when it starts, so kafkajs fetches past it; the committed
 * offset is the partition's lowest message not yet handled (kafka-commits.ts), so nothing
 * unhandled is ever committed. A member that stops leaves the batch's messages not started
 * unresolved: they are fetched again by whoever reads the partition next.
 */
import { setMaxListeners } from 'node:events';
import type { EachBatchHandler, IHeaders, KafkaMessage } from 'kafkajs';
import type { Logger } from '../log.js';
import type { BusMessage, Headers } from './bus.js';
import { deliver, type DeliveryOutcome } from './deliver.js';
import type { OffsetCommits } from './kafka-commits.js';
import { Slots, Windows, type PartitionWindow } from './kafka-window.js';

export type MemberPhase = 'running' | 'stopping' | 'aborted' | 'stopped';

/** A member's phase, its handler slots, its partitions' windows and the deliveries it runs, shared by its steps. */
export class MemberRun {
  private phase: MemberPhase = 'running';
  /** Aborted by `abort()`: deliveries in flight are released at once. */
  readonly abandoned = new AbortController();
  readonly running = new Set<Promise<DeliveryOutcome>>();
  readonly windows = new Windows();
  readonly slots: Slots;

  constructor(concurrency: number) {
    this.slots = new Slots(concurrency);
    // Every delivery in flight listens on it until it settles: more than 10 is normal.
    setMaxListeners(0, this.abandoned.signal);
  }

  /** Read through a method: a step sees changes made while it awaited. */
  current(): MemberPhase {
    return this.phase;
  }

  enter(phase: MemberPhase): void {
    this.phase = phase;
    // A batch waiting for a slot looks again, and leaves when the member no longer runs.
    this.slots.wake();
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

/** kafkajs's `eachBatch` for a member (run with `eachBatchAutoResolve: false`). */
export function eachBatchOf(deps: DeliveryDeps): EachBatchHandler {
  const { member, settings } = deps;
  return async ({ batch, resolveOffset, heartbeat, isRunning }) => {
    const window = member.windows.of(batch.topic, batch.partition);
    const keepAlive = () => void heartbeat().catch(() => undefined);
    for (const message of batch.messages) {
      const offset = BigInt(message.offset);
      if (offset <= window.lastStarted) {
        // Started here already (fetched again from the commit after a rejoin): running or handled.
        resolveOffset(message.offset);
        continue;
      }
      const key = message.key?.toString('utf8') ?? '';
      for (;;) {
        // Left unresolved: fetched again by whoever reads the partition next.
        if (member.current() !== 'running' || !isRunning() || window.retired) return;
        const blocker = window.blocker(key);
        if (!blocker && member.slots.tryTake()) break;
        await heartbeating(blocker ?? member.slots.changed(), keepAlive, settings.heartbeatIntervalMs);
      }
      window.start(offset, key);
      resolveOffset(message.offset);
      start(deps, window, busMessageOf(batch.topic, batch.partition, message));
    }
  };
}

/** Runs one message's delivery in the background: its slot given back, its window settled, the commit moved when it was handled. */
function start({ member, commits, handler, settings, log }: DeliveryDeps, window: PartitionWindow, message: BusMessage): void {
  const delivery = deliver(message, handler, {
    log,
    redeliveryDelayMs: settings.redeliveryDelayMs,
    maxRedeliveryDelayMs: settings.maxRedeliveryDelayMs,
    mayRetry: () => member.current() === 'running' && !window.retired,
    abandoned: member.abandoned.signal,
  }).catch((error: unknown): DeliveryOutcome => {
    log.error({ err: error, topic: message.topic, partition: message.partition }, 'kafka bus delivery failed');
    return 'released';
  });
  member.running.add(delivery);
  void delivery.then((outcome) => {
    member.running.delete(delivery);
    member.slots.give();
    const offset = BigInt(message.offset);
    window.settle(offset, outcome === 'handled');
    if (outcome === 'handled' && !window.retired && member.current() !== 'aborted') commits.mark(message.topic, message.partition, window.commitOffset().toString());
  });
}

/** Waits for `change`, heartbeating meanwhile so that a long wait does not cost the member its partitions. */
async function heartbeating(change: Promise<void>, keepAlive: () => void, intervalMs: number): Promise<void> {
  const timer = setInterval(keepAlive, intervalMs);
  try {
    await change;
  } finally {
    clearInterval(timer);
  }
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
