/**
 * The bus for this process: in memory (embedded mode) or on Kafka (distributed). A Kafka bus
 * has reached a broker before this resolves, so an unreachable Kafka fails start-up with
 * AppError `bus_unavailable` (after `connectTimeoutMs`) instead of the first publish.
 * The Kafka bus (kafkajs) is imported only when one is asked for: an embedded process never
 * loads it.
 */
import type { Bus } from './bus.js';
import type { KafkaBusOptions } from './kafka.js';
import { MemoryBus, type MemoryBusOptions } from './memory.js';

export type { Bus, BusMessage, ConsumeOptions, Headers, OutgoingMessage, Subscription } from './bus.js';

export type BusOptions = ({ kind: 'memory' } & MemoryBusOptions) | ({ kind: 'kafka' } & KafkaBusOptions);

export async function createBus(options: BusOptions): Promise<Bus> {
  if (options.kind === 'memory') return new MemoryBus(options);
  const { KafkaBus } = await import('./kafka.js');
  return KafkaBus.connect(options);
}
