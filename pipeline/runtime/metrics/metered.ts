/**
 * The runtime's engines with their counts kept (metrics.ts): the bus, whose messages are
 * counted per topic as they are published and as they are handed to a handler, and whose
 * groups' lag is read at each scrape; and the batch writer's inserts, counted and timed per
 * table. Both wrap the engine, so either implementation (memory or Kafka, chdb or a server)
 * is counted the same way.
 */
import { performance } from 'node:perf_hooks';
import type { Bus, BusMessage, ConsumeOptions, OutgoingMessage, Subscription } from '../bus/bus.js';
import type { Store } from '../store/store.js';
import { Children, type CounterChild, type HistogramChild, type Metrics } from './metrics.js';

/** `bus` with every message published and consumed counted, and its groups' lag reported to `metrics`. */
export function meteredBus(bus: Bus, metrics: Metrics): Bus {
  const produced = new Children<CounterChild>((topic) => metrics.eventsProduced.labels(topic));
  metrics.lagOf(() => bus.lag());
  return {
    kind: bus.kind,
    ensureTopics: (topics) => bus.ensureTopics(topics),
    async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
      await bus.publish(topic, messages);
      produced.of(topic).inc(messages.length);
    },
    consume(options: ConsumeOptions): Promise<Subscription> {
      // The group's children, one per topic, resolved now: a message costs a Map lookup and an add.
      const consumed = new Map(options.topics.map((topic) => [topic, metrics.eventsConsumed.labels(topic, options.group)]));
      const handler = options.handler;
      return bus.consume({
        ...options,
        handler: (message: BusMessage) => {
          consumed.get(message.topic)?.inc();
          return handler(message);
        },
      });
    },
    lag: () => bus.lag(),
    close: () => bus.close(),
  };
}

/** `store`'s `insert` with each call (one batch of the batch writer) counted and timed per table. */
export function meteredInserts(store: Pick<Store, 'insert'>, metrics: Metrics): Pick<Store, 'insert'> {
  const ok = new Children<CounterChild>((table) => metrics.storeBatches.labels(table, 'ok'));
  const failed = new Children<CounterChild>((table) => metrics.storeBatches.labels(table, 'failed'));
  const rows = new Children<CounterChild>((table) => metrics.storeRows.labels(table));
  const seconds = new Children<HistogramChild>((table) => metrics.storeSeconds.labels(table));
  return {
    async insert(table, batch) {
      const start = performance.now();
      try {
        await store.insert(table, batch);
      } catch (error) {
        failed.of(table).inc();
        throw error;
      }
      seconds.of(table).observe((performance.now() - start) / 1000);
      ok.of(table).inc();
      rows.of(table).inc(batch.length);
    },
  };
}
