/**
 * A process's Prometheus metrics (prom-client), one `Metrics` per runtime: its own registry,
 * never prom-client's global one, so two runtimes in one process (the tests) count apart.
 * Every name starts `wds_`; docs/metrics.md lists them.
 *
 * The hot paths (a message consumed or produced, a handler's attempt, an HTTP answer) each
 * hold the cells they count into (families.ts), resolved once per label value and kept in a
 * Map (`Children`): one Map lookup and an add per event, no label hashing or allocation. Values
 * that are a state rather than a count (handlers in flight, consumer lag) are read when
 * Prometheus scrapes, from the sources registered here (`inFlightOf`, `lagOf`).
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { CounterFamily, HistogramFamily } from './families.js';

/** A counter or histogram child per label value, made on first use. */
export class Children<T, K extends string | number = string> {
  private readonly made = new Map<K, T>();
  constructor(private readonly make: (label: K) => T) {}
  of(label: K): T {
    let child = this.made.get(label);
    if (child === undefined) {
      child = this.make(label);
      this.made.set(label, child);
    }
    return child;
  }
}

/** One partition's backlog for one consumer group: the partition's end minus the group's committed position. */
export interface PartitionLag {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly lag: number;
}

export interface CounterChild {
  inc(by?: number): void;
}
export interface HistogramChild {
  observe(value: number): void;
}

/** Seconds: from a millisecond handler to a two-minute crawl page (the renderer's longest waits). */
const HANDLER_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const INSERT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const HTTP_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 330];

export class Metrics {
  readonly registry = new Registry();
  private readonly inFlightSources = new Map<string, () => number>();
  private lagSource: (() => Promise<readonly PartitionLag[]>) | null = null;
  private defaultsCollected = false;

  readonly eventsConsumed = new CounterFamily(
    this.registry,
    'wds_events_consumed_total',
    'Messages handed to this process\'s handlers, by topic and consumer group (a redelivered message counts again).',
    ['topic', 'group'],
  );
  readonly eventsProduced = new CounterFamily(
    this.registry,
    'wds_events_produced_total',
    'Messages this process published, by topic (dead letters on the dead-letter topic included).',
    ['topic'],
  );
  readonly handlerSeconds = new HistogramFamily(
    this.registry,
    'wds_handler_duration_seconds',
    'Time of one attempt of an actor\'s handler, by actor and event, whatever its outcome.',
    ['actor', 'event'],
    HANDLER_BUCKETS,
  );
  readonly retries = new CounterFamily(
    this.registry,
    'wds_handler_retries_total',
    'Attempts that failed and were tried again after a backoff, by actor and error code.',
    ['actor', 'code'],
  );
  readonly deadLetters = new CounterFamily(
    this.registry,
    'wds_dead_letters_total',
    'Messages an actor pool gave up on and published to the dead-letter topic, by actor and error code.',
    ['actor', 'code'],
  );
  readonly storeBatches = new CounterFamily(
    this.registry,
    'wds_store_insert_batches_total',
    'Batched inserts into the store, by table and result (ok, failed).',
    ['table', 'result'],
  );
  readonly storeRows = new CounterFamily(
    this.registry,
    'wds_store_insert_rows_total',
    'Rows inserted by the batch writer, by table (failed batches not counted).',
    ['table'],
  );
  readonly storeSeconds = new HistogramFamily(
    this.registry,
    'wds_store_insert_duration_seconds',
    'Time of one batched insert into the store, by table.',
    ['table'],
    INSERT_BUCKETS,
  );
  readonly httpRequests = new CounterFamily(
    this.registry,
    'wds_http_requests_total',
    'Answers of the gateway, by operation id (or route, `unmatched` for no route) and status.',
    ['operation', 'status'],
  );
  readonly httpSeconds = new HistogramFamily(
    this.registry,
    'wds_http_request_duration_seconds',
    'Time from a request\'s arrival to its answer being handed to Node, by operation id.',
    ['operation'],
    HTTP_BUCKETS,
  );

  constructor() {
    const inFlight = this.inFlightSources;
    new Gauge({
      name: 'wds_handlers_in_flight',
      help: 'Messages an actor pool of this process is working on now, by actor.',
      labelNames: ['actor'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [actor, read] of inFlight) this.labels(actor).set(read());
      },
    });
    const lag = () => this.lagSource;
    new Gauge({
      name: 'wds_consumer_lag',
      help: 'Messages of a partition its consumer group has not committed yet, for the groups this process is a member of (every member reports its group\'s figure: aggregate with max).',
      labelNames: ['group', 'topic', 'partition'] as const,
      registers: [this.registry],
      async collect() {
        this.reset();
        const read = lag();
        if (!read) return;
        let rows: readonly PartitionLag[];
        try {
          rows = await read();
        } catch {
          return; // the brokers did not answer: this scrape has no lag figures
        }
        for (const row of rows) this.labels(row.group, row.topic, String(row.partition)).set(row.lag);
      },
    });
  }

  /** The pool of `actor` reports its messages in flight through `read` (read at each scrape). */
  inFlightOf(actor: string, read: () => number): void {
    this.inFlightSources.set(actor, read);
  }

  /** The bus reports its groups' lag through `read` (read at each scrape; a failure there leaves the series out). */
  lagOf(read: () => Promise<readonly PartitionLag[]>): void {
    this.lagSource = read;
  }

  /** Adds the process's own figures (CPU seconds, resident memory, heap, event-loop delay, GC) as `wds_process_*` and `wds_nodejs_*`. Once. */
  collectProcessMetrics(): void {
    if (this.defaultsCollected) return;
    this.defaultsCollected = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'wds_' });
  }

  /** The exposition text of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
