/**
 * A Kafka broker for tests: librdkafka's built-in mock cluster, started through Debian's kcat
 * (librdkafka 2.0.2). `kcat -X test.mock.num.brokers=3 -b localhost:1 -C -t warmup` prints
 *
 *   %5|…|MOCK|rdkafka#consumer-1| [thrd:app]: Mock cluster enabled: original bootstrap.servers
 *   and security.protocol ignored and replaced with 127.0.0.1:PORT,127.0.0.1:PORT,127.0.0.1:PORT
 *
 * on stderr and serves the Kafka wire protocol for as long as kcat runs. It is a test broker:
 *
 * - Topics are auto-created (on metadata or produce) with 4 partitions, replication 3; it has
 *   no CreateTopics, DescribeGroups or InitProducerId (so no idempotent producer).
 * - A partition keeps the last ~5 MiB of messages (librdkafka's mock `max_size`), whether
 *   consumed or not: a consumer further behind than that loses messages. The mock has no
 *   message size limit, but an append that needs every older message on its partition
 *   trimmed (new + newest older > 5 MiB) leaves the new message unreadable too (start offset
 *   = end offset). So a message over ~2.5 MiB is safe only as the first on its partition:
 *   keep big messages on topics of their own.
 * - A group's first join waits 3 s (like group.initial.rebalance.delay.ms); a member that
 *   stops heartbeating is dropped after its session timeout.
 *
 * `stop()` kills kcat (and with it the cluster); a process exit kills it too.
 *
 * With `topics`, the same mock cluster is started by test/kafka-mock/kafka-mock.c instead (built
 * here with gcc on first use, against kcat's librdkafka), which creates those topics with
 * `partitions` partitions before any client connects: a consumer runs one handler per
 * partition at a time, so the 4 of an auto-created topic cap a whole pool at 4 in flight.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe } from 'vitest';
import type { Bus } from '../../pipeline/runtime/bus/bus.js';
import { KafkaBus } from '../../pipeline/runtime/bus/kafka.js';
import { MemoryBus } from '../../pipeline/runtime/bus/memory.js';
import type { Logger } from '../../pipeline/runtime/log.js';
import { engine } from './engines.js';

export const KCAT = '/usr/bin/kcat';

/** True when the Kafka suites can run (see engines.ts for the missing-engine policy). */
export function hasKafka(): Promise<boolean> {
  return engine('kafka (kcat mock cluster)', () => existsSync(KCAT), 'apt-get install -y kcat');
}

export interface MockKafka {
  /** Bootstrap servers, `127.0.0.1:PORT`. */
  readonly brokers: string[];
  /** The broker process (kcat or kafka-mock), for its CPU time. */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

const ENABLED = /Mock cluster enabled: .* replaced with (\S+)/;

const MOCK_SOURCE = fileURLToPath(new URL('../kafka-mock/kafka-mock.c', import.meta.url));

/** test/kafka-mock/kafka-mock.c built once per version of its source, in the temp directory. */
function kafkaMockBinary(): string {
  const source = readFileSync(MOCK_SOURCE);
  const dir = join(tmpdir(), 'wds-kafka-mock');
  const binary = join(dir, `kafka-mock-${createHash('sha256').update(source).digest('hex').slice(0, 16)}`);
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  const building = `${binary}.${process.pid}`;
  execFileSync('gcc', ['-O2', '-o', building, MOCK_SOURCE, '-l:librdkafka.so.1']);
  renameSync(building, binary);
  return binary;
}

export interface MockKafkaOptions {
  brokers?: number;
  timeoutMs?: number;
  /** Topics created before any client connects, each with `partitions` partitions. */
  topics?: readonly string[];
  /** Partitions of each of `topics` (default 12). */
  partitions?: number;
}

export async function startMockKafka(options: MockKafkaOptions = {}): Promise<MockKafka> {
  const brokers = options.brokers ?? 3;
  // Creating each topic is a round trip to the mock's thread: about 0.3 s a topic on a busy machine.
  const timeoutMs = options.timeoutMs ?? (options.topics?.length ? 10_000 + 1000 * options.topics.length : 10_000);
  const child = options.topics?.length
    ? spawn(kafkaMockBinary(), [String(brokers), String(options.partitions ?? 12), ...options.topics], { stdio: ['pipe', 'ignore', 'pipe'] })
    : spawn(KCAT, ['-X', `test.mock.num.brokers=${brokers}`, '-b', 'localhost:1', '-C', '-t', 'warmup', '-q'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const hard = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(hard);
    }
  };

  let stderr = '';
  try {
    const servers = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the mock broker printed no cluster address within ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
        const match = ENABLED.exec(stderr);
        if (match) {
          clearTimeout(timer);
          resolve(match[1] as string);
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the mock broker exited (${code ?? signal}) before starting the cluster:\n${stderr}`));
      });
    });
    // Keep draining stderr so kcat never blocks on a full pipe.
    child.stderr.on('data', () => undefined);
    return { brokers: servers.split(','), pid: child.pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A KafkaBus on a mock cluster tuned for tests: quick rebalances (6 s session), short fetch
 * waits and fast redelivery backoff.
 */
export function connectTestKafkaBus(cluster: MockKafka, clientId: string, log: Logger): Promise<KafkaBus> {
  return KafkaBus.connect({
    brokers: cluster.brokers,
    clientId,
    log,
    connectTimeoutMs: 15_000,
    sessionTimeoutMs: 6000,
    heartbeatIntervalMs: 500,
    maxWaitTimeMs: 100,
    redeliveryDelayMs: 20,
    maxRedeliveryDelayMs: 200,
    leaderSyncDelayMs: 300,
  });
}

export type BusSuite<R> = (name: string, setup: () => Promise<R>, options?: { concurrent?: boolean; testTimeoutMs?: number }) => void;
export type BusRig<R> = (bus: Bus, limitMs: number, close: () => Promise<void>) => Promise<R>;

/**
 * Registers `suite` twice: on the memory bus (10 s limits) and on Kafka, librdkafka's mock
 * cluster (45 s limits, tests run concurrently: its group joins are slow), each bus wrapped by
 * `rig`. The Kafka half is skipped only where kcat is missing and engines are not required.
 */
export async function onBothBuses<R>(title: string, clientId: string, log: Logger, suite: BusSuite<R>, rig: BusRig<R>): Promise<void> {
  suite(`${title} (memory bus)`, async () => {
    const bus = new MemoryBus({ log, redeliveryDelayMs: 5, maxRedeliveryDelayMs: 50 });
    return rig(bus, 10_000, () => bus.close());
  });
  const kafkaUp = await hasKafka();
  describe.skipIf(!kafkaUp)(`${title} (kafka, mock cluster)`, () => {
    let cluster: MockKafka | undefined;
    afterAll(async () => {
      await cluster?.stop();
    });
    suite(
      'suite',
      async () => {
        cluster = await startMockKafka();
        const bus = await connectTestKafkaBus(cluster, clientId, log);
        return rig(bus, 45_000, () => bus.close());
      },
      { concurrent: true, testTimeoutMs: 90_000 },
    );
  });
}
