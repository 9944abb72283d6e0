/**
 * Faults of the distributed shape, with real processes (test/helpers/cluster.ts): a fetcher
 * SIGKILLed with requests in flight, a poison event on the requests topic, a gateway whose
 * workers never answer, and a process that cannot reach Kafka at all.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BusMessage, Subscription } from '../../pipeline/runtime/bus/bus.js';
import { KafkaBus } from '../../pipeline/runtime/bus/kafka.js';
import { partitionOf } from '../../pipeline/runtime/bus/murmur2.js';
import { HEADERS, TOPICS } from '../../schemas/topics.js';
import { chdbAvailable, quietLog } from '../helpers/clickhouse.js';
import { parseLogLines, SERVICE_MAIN, startCluster, type Cluster, type ServiceProcess } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { hasKafka } from '../helpers/kafka.js';
import { spawnTs } from '../helpers/process.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';
import { pagesByRequest, scrape, warmUp } from '../helpers/scrape.js';
import { expectedPage } from '../helpers/test-actors.js';
import { until } from '../helpers/wait.js';

const ready = (await chdbAvailable()) && (await hasKafka()) && (await engine('redis', () => redisProbe(), REDIS_INSTALL));

/** The mock cluster auto-creates every topic with this many partitions. */
const MOCK_PARTITIONS = 4;

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Request ids whose fetch a process has started and (`done`) finished, from its log. */
function fetchesOf(proc: ServiceProcess): { started: Map<string, number>; done: Set<string> } {
  const started = new Map<string, number>();
  const done = new Set<string>();
  for (const line of proc.logLines()) {
    if (!line.requestId) continue;
    if (line.msg === 'synthetic fetch started' && !started.has(line.requestId)) started.set(line.requestId, line.time);
    if (line.msg === 'synthetic fetch done') done.add(line.requestId);
  }
  return { started, done };
}

describe.skipIf(!ready)('e2e/faults (distributed: mock Kafka, Redis, ClickHouse HTTP served by chdb)', () => {
  let cluster: Cluster;
  let gateway: ServiceProcess;
  let fetchers: ServiceProcess[];

  beforeAll(async () => {
    // Generous: after a SIGKILL the dead member's partitions wait for its session timeout
    // (kafkajs default 30 s), and librdkafka's mock coordinator then holds the rebalance's
    // join phase for another session timeout less 1 s before it assigns them: ~60 s in all.
    // A shorter session makes the SIGKILLed member's partitions move sooner (the mock broker
    // waits about two session timeouts in all).
    cluster = await startCluster({ env: { REQUEST_TIMEOUT_MS: '120000', KAFKA_SESSION_TIMEOUT_MS: '8000' } });
    const started = await Promise.all([
      cluster.service('gateway'),
      cluster.service('fetcher'),
      cluster.service('fetcher'),
      cluster.service('parser'),
    ]);
    gateway = started[0];
    fetchers = [started[1], started[2]];
    await warmUp(gateway.url as string, cluster.apiKey);
  }, 150_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('a fetcher SIGKILLed with requests in flight: every request completes, one pages row each', async ({ annotate }) => {
    const [victim, survivor] = fetchers as [ServiceProcess, ServiceProcess];
    const urls = Array.from({ length: 30 }, (_, i) => `https://slow.test/page/${i}?delayMs=400`);
    const began = Date.now();
    const pending = Promise.all(urls.map((url) => scrape(gateway.url as string, cluster.apiKey, url, { timeoutMs: 150_000 })));

    // Kill the victim while it holds requests: some started, not all of its share finished.
    await until('the victim is mid-stream', () => fetchesOf(victim).started.size >= 2, 30_000);
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim.exited;
    const { started, done } = fetchesOf(victim);
    const inFlight = [...started.keys()].filter((id) => !done.has(id));

    const answers = await pending;
    const finishedAt = Date.now();
    expect(answers.map((a) => a.status)).toEqual(urls.map(() => 200));
    answers.forEach((answer, i) => {
      const { cost, ...data } = answer.body.data ?? {};
      expect(data).toEqual(expectedPage(urls[i] as string));
      expect(cost).toEqual({ credits: 1, remaining: null, source: 'fresh' });
    });

    // The requests the victim was handling were fetched again by the survivor. (A log line
    // the victim wrote just before the SIGKILL may be lost, so "in flight" is a lower bound.)
    const takenOver = fetchesOf(survivor).started;
    const retaken = inFlight.filter((id) => takenOver.has(id));
    expect(retaken.length, `in flight at the kill: ${inFlight.join(', ')}`).toBeGreaterThan(0);
    const takeoverAt = Math.min(...retaken.map((id) => takenOver.get(id) as number));

    // No loss, no duplicate stored row (a page the victim had already sent on collapses).
    const ids = answers.map((a) => a.requestId);
    const store = cluster.store();
    const pages = await pagesByRequest(store, ids);
    expect([...pages.keys()].sort()).toEqual([...ids].sort());
    expect([...pages.values()].every((p) => p.rows === 1)).toBe(true);
    const raw = await pagesByRequest(store, ids, false);
    const rawRows = [...raw.values()].reduce((n, p) => n + p.rows, 0);

    await annotate(
      `SIGKILL after ${killedAt - began} ms with ${inFlight.length} request(s) in the victim's hands (${retaken.length} seen re-fetched); ` +
        `the survivor took them over ${takeoverAt - killedAt} ms later (session timeout 30000 ms, mock join wait 29000 ms); ` +
        `all 30 answered ${finishedAt - began} ms after sending; pages rows before FINAL: ${rawRows} for ${ids.length} requests`,
    );
  }, 180_000);

  it('a poison event on wds.scrape.requested is dead-lettered as event_undecodable; later requests on its partition are answered', async () => {
    const bus = await KafkaBus.connect({ brokers: cluster.kafka?.brokers ?? [], clientId: 'faults-test', log: quietLog, connectTimeoutMs: 15_000 });
    let deadLetters: Subscription | null = null;
    try {
      const poisonKey = `poison-${randomUUID()}`;
      const poison = Buffer.concat([Buffer.from('not an avro event: '), randomBytes(48)]);
      const received: BusMessage[] = [];
      deadLetters = await bus.consume({
        group: `dead-letter-reader-${randomUUID()}`,
        topics: [TOPICS.deadLetters.name],
        concurrency: 1,
        fromBeginning: true,
        handler: async (message) => void received.push(message),
      });
      await bus.publish(TOPICS.scrapeRequested.name, [{ key: poisonKey, value: poison, headers: { [HEADERS.requestId]: poisonKey } }]);

      // Requests keyed onto the poison's partition, published after it: not blocked by it.
      const partition = partitionOf(poisonKey, MOCK_PARTITIONS);
      const requestIds: string[] = [];
      while (requestIds.length < 3) {
        const id = `after-poison-${randomUUID()}`;
        if (partitionOf(id, MOCK_PARTITIONS) === partition) requestIds.push(id);
      }
      const urls = requestIds.map((_, i) => `https://after-poison.test/${i}`);
      const answers = await Promise.all(
        urls.map((url, i) => scrape(gateway.url as string, cluster.apiKey, url, { requestId: requestIds[i] as string, timeoutMs: 60_000 })),
      );
      expect(answers.map((a) => [a.status, a.requestId])).toEqual(requestIds.map((id) => [200, id]));
      answers.forEach((a, i) => expect(a.body.data?.sha256).toBe(expectedPage(urls[i] as string).sha256));

      const dead = await until('the poison in wds.dead-letters', () => received.find((m) => m.value.equals(poison)), 30_000);
      expect(dead.key).toBe(poisonKey);
      expect(dead.headers).toMatchObject({
        [HEADERS.errorCode]: 'event_undecodable',
        [HEADERS.sourceTopic]: TOPICS.scrapeRequested.name,
        [HEADERS.group]: 'fetcher',
        [HEADERS.attempts]: '1',
        [HEADERS.requestId]: poisonKey,
      });
    } finally {
      await deadLetters?.stop();
      await bus.close();
    }
  }, 90_000);

  describe('a gateway whose workers never answer (REQUEST_TIMEOUT_MS=1500)', () => {
    let lonely: Cluster;
    let lonelyGateway: ServiceProcess;

    beforeAll(async () => {
      // A Kafka of its own, so the fetchers above cannot answer; the same ClickHouse process.
      lonely = await startCluster({ clickhouse: cluster.clickhouse, env: { REQUEST_TIMEOUT_MS: '1500' } });
      lonelyGateway = await lonely.service('gateway');
    }, 90_000);

    afterAll(async () => {
      await lonely?.stop();
    }, 30_000);

    it('answers 504 upstream_timeout and charges the key nothing', async () => {
      const keys = await lonely.keys();
      const { key, record } = await keys.create({ name: 'timeout', credits: 5 });
      const answer = await scrape(lonelyGateway.url as string, key, 'https://nobody-answers.test/');
      expect(answer.status).toBe(504);
      // The requester's own timer gave up on the reply, after REQUEST_TIMEOUT_MS: the one
      // place this message is written (pipeline/runtime/request-reply.ts), so the gateway did
      // wait out the 1500 ms rather than fail the request some quicker way.
      expect(answer.body).toEqual({
        success: false,
        error: { code: 'upstream_timeout', message: 'no worker answered within 1500 ms', retriable: true, requestId: answer.requestId },
      });
      expect((await keys.get(record.id))?.balance).toBe(5);
      const charges = await lonely.store().query("SELECT * FROM credit_ledger FINAL WHERE key_id = {id:String} AND reason = 'charge'", {
        id: record.id,
      });
      expect(charges).toEqual([]);
    });
  });

  it('a process that cannot reach Kafka logs each retry, then exits non-zero naming bus_unavailable', async () => {
    const port = await closedPort();
    const proc = spawnTs(SERVICE_MAIN, ['--role', 'fetcher'], {
      ...cluster.env,
      KAFKA_BROKERS: `127.0.0.1:${port}`,
      KAFKA_CONNECT_TIMEOUT_MS: '2000',
    });
    const killer = setTimeout(() => proc.child.kill('SIGKILL'), 30_000);
    // Exited by itself (code 1), not by the killer: start-up gave up after its connect timeout.
    const exit = await proc.exited.finally(() => clearTimeout(killer));

    expect(exit).toEqual({ code: 1, signal: null });
    const lines = parseLogLines(proc.stdout());
    const retries = lines.filter((l) => l.msg.startsWith(`kafka broker unreachable at 127.0.0.1:${port}, retrying`));
    expect(retries.length, proc.stdout()).toBeGreaterThanOrEqual(1);
    expect(retries.every((l) => l.level === 40)).toBe(true);
    const fatal = lines.filter((l) => l.level === 60);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toMatchObject({ code: 'bus_unavailable', msg: expect.stringMatching(/^could not start \(bus_unavailable\): kafka broker unreachable at/) });
    expect(proc.stdout()).not.toContain('pool running');
  }, 40_000);
});
