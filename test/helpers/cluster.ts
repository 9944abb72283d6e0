/**
 * The distributed shape for multi-process tests: librdkafka's mock Kafka (kcat), chdb's
 * ClickHouse HTTP interface as the "ClickHouse server" (its own process), the local Redis
 * under a fresh namespace, and service processes started with test/helpers/service-main.ts
 * (main.ts's command line with the test actors), each with `--role`.
 *
 *   const cluster = await startCluster({ env: { REQUEST_TIMEOUT_MS: '90000' } });
 *   const [gateway] = await Promise.all([cluster.service('gateway'), cluster.service('fetcher')]);
 *   ...
 *   await cluster.stop(); // every process, the engines, the namespace, the temp dirs
 *
 * Every process gets the same settings (`cluster.env`): BUS=kafka (or memory, see
 * `ClusterOptions.bus`), STORE=clickhouse, STATE=redis, API_KEY, LOG_LEVEL=info, plus what
 * the test adds. `stop()` is safe to call
 * after a failed start and stops everything it started, SIGKILL after a grace period.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nodeFlagsOf } from '../../infra/codegen/deploy-roles.js';
import { TOPICS } from '../../schemas/topics.js';
import { loadConfig, type Config } from '../../pipeline/service/config.js';
import { openKeyRegistry, type KeyRegistry } from '../../pipeline/keys/index.js';
import { ClickHouseStore } from '../../pipeline/runtime/store/clickhouse.js';
import type { Store } from '../../pipeline/runtime/store/index.js';
import { applyMergeSelector } from '../../pipeline/runtime/store/merges.js';
import { applyJobRetention } from '../../pipeline/runtime/store/retention.js';
import { quietLog, startClickHouseProcess, tempDir, type ClickHouseProcess, type TempDir } from './clickhouse.js';
import { startMockKafka, type MockKafka } from './kafka.js';
import { spawnTs, type Spawned } from './process.js';
import { dropNamespace, TEST_REDIS_URL, testNamespace } from './redis.js';

export const SERVICE_MAIN = 'test/helpers/service-main.ts';
export const PRODUCTION_MAIN = 'main.ts';

/** Start-up of one service process on this 2-core machine: tsx, chdb's engine, a group join (60 s ran out at load 25–30 while other work shared the cores). */
const START_TIMEOUT_MS = 120_000;

export interface ServiceProcess extends Spawned {
  readonly role: string;
  /** `http://127.0.0.1:PORT` for a gateway (or `all`); null for a pool. */
  readonly url: string | null;
  /** Its JSON log lines so far, parsed (non-JSON lines are skipped). */
  logLines(): LogLine[];
}

export interface LogLine {
  level: number;
  time: number;
  msg: string;
  requestId?: string;
  [field: string]: unknown;
}

export function parseLogLines(text: string): LogLine[] {
  const out: LogLine[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as LogLine);
    } catch {
      // A line cut by a SIGKILL.
    }
  }
  return out;
}

export interface ClusterOptions {
  /**
   * `kafka` (default): a mock Kafka for the cluster. `memory`: none; each process has its own
   * in-process bus (gateways started with role `all` sharing only the store and Redis).
   */
  bus?: 'kafka' | 'memory';
  /** Settings every process of this cluster gets, on top of the distributed ones. */
  env?: Record<string, string>;
  /** Use this ClickHouse process instead of starting one (it is not stopped by `stop()`). */
  clickhouse?: ClickHouseProcess;
  /**
   * The entry point each service process runs: SERVICE_MAIN (default: main.ts with the test
   * actors) or PRODUCTION_MAIN (main.ts itself, the real fetcher and parser).
   */
  main?: string;
  /**
   * Every topic of schemas/topics.ts created up front with this many partitions (the mock
   * broker's own auto-created topics have 4, which caps a pool at 4 handlers in flight).
   */
  kafkaPartitions?: number;
}

export interface Cluster {
  /** The mock Kafka; null with `bus: 'memory'`. */
  readonly kafka: MockKafka | null;
  readonly clickhouse: ClickHouseProcess;
  readonly namespace: string;
  readonly apiKey: string;
  /** The settings every service process of the cluster gets. */
  readonly env: Readonly<Record<string, string>>;
  /** The config those settings make, for opening registries and stores like a service does. */
  config(extra?: Record<string, string>): Config;
  /**
   * Starts `node <flags> service-main.ts --role <role>` and waits until it listens or its pool
   * runs; the flags are the role's deployment's (infra/codegen/deploy-roles.ts) unless given.
   */
  service(role: string, env?: Record<string, string>, nodeFlags?: readonly string[]): Promise<ServiceProcess>;
  /** A ClickHouse client to the cluster's store (closed by `stop()`). */
  store(): Store;
  /** The key registry the gateways use (store + Redis), as `npm run keys` would open it. */
  keys(): Promise<KeyRegistry>;
  /** Every service process started so far, in start order. */
  readonly processes: readonly ServiceProcess[];
  stop(): Promise<void>;
}

/**
 * With TEST_CLUSTER_LOG_DIR set, each service process's output is written there when the
 * cluster stops (`<time>-<n>-<role>.log`), to read after a slow or failed run.
 */
function keepLogs(processes: readonly ServiceProcess[]): void {
  const dir = process.env.TEST_CLUSTER_LOG_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  processes.forEach((p, i) => writeFileSync(join(dir, `${stamp}-${i}-${p.role}.log`), `${p.stdout()}\n--- stderr ---\n${p.stderr()}`));
}

const LISTENING = /listening on (http:\/\/[\w.:-]+)\n/;
const POOL_RUNNING = /pool running\n/;

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const namespace = testNamespace();
  const apiKey = `test-api-key-${randomBytes(8).toString('hex')}`;
  const dataDir: TempDir = tempDir('wds-cluster');
  const processes: ServiceProcess[] = [];
  const stores: Store[] = [];
  const registries: KeyRegistry[] = [];
  let kafka: MockKafka | null = null;
  let clickhouse: ClickHouseProcess | null = options.clickhouse ?? null;
  let chDir: TempDir | null = null;

  const stop = async () => {
    await Promise.all(processes.map((p) => p.stop(5000)));
    keepLogs(processes);
    for (const registry of registries) registry.close();
    await Promise.all(stores.map((s) => s.close()));
    await kafka?.stop();
    if (!options.clickhouse) await clickhouse?.stop(5000);
    await dropNamespace(namespace).catch(() => 0);
    chDir?.remove();
    dataDir.remove();
  };

  try {
    const withKafka = (options.bus ?? 'kafka') === 'kafka';
    if (!clickhouse) chDir = tempDir('wds-cluster-ch');
    // Both started at once; when one fails, the other is kept so that stop() ends it too.
    const [k, ch] = await Promise.allSettled([
      withKafka
        ? startMockKafka(options.kafkaPartitions ? { topics: Object.values(TOPICS).map((t) => t.name), partitions: options.kafkaPartitions } : {})
        : null,
      clickhouse ?? startClickHouseProcess((chDir as TempDir).path),
    ]);
    if (k.status === 'fulfilled') kafka = k.value;
    if (ch.status === 'fulfilled') clickhouse = ch.value;
    if (k.status === 'rejected') throw k.reason;
    if (ch.status === 'rejected') throw ch.reason;
  } catch (error) {
    await stop();
    throw error;
  }
  if (!clickhouse) throw new Error('the ClickHouse process did not start');
  const env: Record<string, string> = {
    ...(kafka ? { BUS: 'kafka', KAFKA_BROKERS: kafka.brokers.join(',') } : { BUS: 'memory' }),
    STORE: 'clickhouse',
    CLICKHOUSE_URL: clickhouse.url,
    STATE: 'redis',
    REDIS_URL: TEST_REDIS_URL,
    REDIS_NAMESPACE: namespace,
    API_KEY: apiKey,
    DATA_DIR: dataDir.path,
    HOST: '127.0.0.1',
    PORT: '0',
    // The mock broker rejects a follower that syncs after its leader (a rebalance lost each
    // time; see KAFKA_LEADER_SYNC_DELAY_MS), and every rebalance of the mock stalls a session
    // timeout less 1 s: 10 s instead of the default 30 keeps one lost race well inside a test.
    KAFKA_LEADER_SYNC_DELAY_MS: '500',
    KAFKA_SESSION_TIMEOUT_MS: '10000',
    // The mock broker answers a waiting fetch only when its wait ends (KAFKA_FETCH_MAX_WAIT_MS):
    // at the service's 1,000 every hop between pools can wait a second.
    KAFKA_FETCH_MAX_WAIT_MS: '100',
    // TEST_CLUSTER_LOG_LEVEL=debug adds kafkajs's group joins and the bus's own lines.
    LOG_LEVEL: process.env.TEST_CLUSTER_LOG_LEVEL || 'info',
    ...options.env,
  };
  const ch = clickhouse;
  const mock = kafka;
  // The schema is applied once before the services start, as a deployment's migrate step
  // would: five processes running the same ALTERs at once against the one chdb-served
  // ClickHouse can stall a start past its time limit on a loaded machine.
  try {
    const migrator = new ClickHouseStore({ url: ch.url }, quietLog);
    try {
      await migrator.migrate();
      await applyJobRetention(migrator, loadConfig(env).jobRetentionHours, quietLog);
      // The server is chdb served over HTTP (infra/chdb-http): the embedded engine, which the
      // service runs with its small-insert merge setting (pipeline/runtime/store/merges.ts).
      await applyMergeSelector(migrator, quietLog);
    } finally {
      await migrator.close();
    }
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    kafka: mock,
    clickhouse: ch,
    namespace,
    apiKey,
    env,
    processes,
    config: (extra = {}) => loadConfig({ ...env, ...extra }),
    async service(role, extra = {}, nodeFlags = nodeFlagsOf(role)) {
      const proc = spawnTs(options.main ?? SERVICE_MAIN, ['--role', role], { ...env, ...extra }, nodeFlags);
      const gateway = role === 'gateway' || role === 'all';
      const service: ServiceProcess = Object.assign(proc, {
        role,
        url: null as string | null,
        logLines: () => parseLogLines(proc.stdout()),
      });
      processes.push(service);
      if (gateway) {
        const match = await proc.waitFor(LISTENING, START_TIMEOUT_MS);
        await proc.waitFor(/API reference: \S+\n/, START_TIMEOUT_MS);
        return Object.assign(service, { url: match[1] as string });
      }
      await proc.waitFor(POOL_RUNNING, START_TIMEOUT_MS);
      return service;
    },
    store() {
      const store = new ClickHouseStore({ url: ch.url }, quietLog);
      stores.push(store);
      return store;
    },
    async keys() {
      const registry = await openKeyRegistry(loadConfig(env), quietLog);
      registries.push(registry);
      return registry;
    },
    stop,
  };
}
