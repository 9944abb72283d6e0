/**
 * POST /v1/scrape end to end, one scenario run on both shapes of the service:
 *
 * - embedded: `startService({role: 'all'})` in this process (memory bus, chdb in a temp
 *   DATA_DIR, memory state, keys in the ledger file);
 * - distributed: separate processes — one gateway, two fetchers, one parser — on librdkafka's
 *   mock Kafka, Redis and a ClickHouse server (chdb's HTTP interface in its own process), keys
 *   in the store and Redis.
 *
 * The page-reading actors are the test actors of test/helpers/test-actors.ts (deterministic
 * synthetic pages), so every answer can be checked byte for byte: title, size and sha256.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService } from '../../main.js';
import { loadConfig } from '../../pipeline/service/config.js';
import { openKeyRegistry, type KeyRegistry } from '../../pipeline/keys/index.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { createStore, type Store } from '../../pipeline/runtime/store/index.js';
import { chdbAvailable, quietLog, tempDir } from '../helpers/clickhouse.js';
import { parseLogLines, startCluster, type LogLine } from '../helpers/cluster.js';
import { engine } from '../helpers/engines.js';
import { hasKafka } from '../helpers/kafka.js';
import { REDIS_INSTALL, redisProbe } from '../helpers/redis.js';
import { pagesByRequest, scrape, warmUp, type ScrapeAnswer } from '../helpers/scrape.js';
import { expectedPage, TEST_ACTORS } from '../helpers/test-actors.js';
import { until } from '../helpers/wait.js';

const hasChdb = await chdbAvailable();
const kafkaUp = await hasKafka();
const redisUp = await engine('redis', () => redisProbe(), REDIS_INSTALL);

/** Per test: a request normally takes 1-3 s, but one consumer-group rebalance of the mock stalls ~29 s. */
const TEST_TIMEOUT_MS = 90_000;

/** One running shape of the service, as the scenario sees it. */
interface Deployment {
  /** The gateway's base URL. */
  readonly gateway: string;
  /** The API_KEY it was started with (unlimited). */
  readonly apiKey: string;
  /** The store the actors write to. */
  readonly store: Store;
  /** The key registry this shape uses (ledger file, or store + Redis). */
  readonly keys: KeyRegistry;
  /** Log lines of every service process so far. */
  logs(): LogLine[];
  /** The charges recorded for a key: one entry per charged request. */
  charges(keyId: string): Promise<{ requestId: string; amount: number }[]>;
  stop(): Promise<void>;
}

async function embedded(): Promise<Deployment> {
  const dir = tempDir('wds-e2e');
  const apiKey = 'e2e-embedded-api-key-0001';
  const lines: string[] = [];
  const log = createLogger('info', { write: (line: string) => void lines.push(line) });
  const config = loadConfig({ DATA_DIR: dir.path, LOG_LEVEL: 'info', HOST: '127.0.0.1', PORT: '0', API_KEY: apiKey });
  const service = await startService({ config, log, role: 'all', actors: TEST_ACTORS });
  // chdb binds one data directory per process: the service's, opened a second time.
  const store = await createStore({ kind: 'chdb', dataDir: join(dir.path, 'clickhouse') }, quietLog);
  const keys = await openKeyRegistry(config, quietLog);
  const { port } = service.app?.server.address() as AddressInfo;
  return {
    gateway: `http://127.0.0.1:${port}`,
    apiKey,
    store,
    keys,
    logs: () => parseLogLines(lines.join('')),
    async charges(keyId) {
      return readFileSync(join(dir.path, 'keys.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as { t: string; id: string; reason?: string; amount?: number; requestId?: string })
        .filter((l) => l.t === 'credit' && l.reason === 'charge' && l.id === keyId)
        .map((l) => ({ requestId: l.requestId ?? '', amount: l.amount ?? 0 }));
    },
    async stop() {
      keys.close();
      await service.stop();
      await store.close();
      dir.remove();
    },
  };
}

async function distributed(): Promise<Deployment> {
  const cluster = await startCluster();
  try {
    const [gateway] = await Promise.all([
      cluster.service('gateway'),
      cluster.service('fetcher'),
      cluster.service('fetcher'),
      cluster.service('parser'),
    ]);
    await warmUp(gateway.url as string, cluster.apiKey);
    const store = cluster.store();
    return {
      gateway: gateway.url as string,
      apiKey: cluster.apiKey,
      store,
      keys: await cluster.keys(),
      logs: () => cluster.processes.flatMap((p) => p.logLines()),
      async charges(keyId) {
        const rows = await store.query<{ request_id: string; amount: string }>(
          "SELECT request_id, amount FROM credit_ledger FINAL WHERE key_id = {id:String} AND reason = 'charge'",
          { id: keyId },
        );
        return rows.map((r) => ({ requestId: r.request_id, amount: Number(r.amount) }));
      },
      stop: () => cluster.stop(),
    };
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}

function pipelineScenario(title: string, available: boolean, deploy: () => Promise<Deployment>): void {
  describe.skipIf(!available)(title, () => {
    let d: Deployment;
    /** Request id → URL of every answered scrape, for the store check at the end. */
    const answered = new Map<string, string>();

    beforeAll(async () => {
      d = await deploy();
    }, 150_000);
    afterAll(async () => {
      await d?.stop();
    }, 60_000);

    function expectPage(answer: ScrapeAnswer, url: string, cost: Record<string, unknown> = { credits: 1, remaining: null, source: 'fresh' }): void {
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const { cost: charged, ...data } = answer.body.data ?? {};
      expect(data).toEqual(expectedPage(url));
      expect(charged).toEqual(cost);
      answered.set(answer.requestId, url);
    }

    it('answers concurrent scrapes with the synthetic page, 1 credit each', async () => {
      const urls = Array.from({ length: 6 }, (_, i) => `https://site-${i}.test/articles/${i}?q=${i}&x=%3Cb%3E`);
      const answers = await Promise.all(urls.map((url) => scrape(d.gateway, d.apiKey, url)));
      answers.forEach((answer, i) => expectPage(answer, urls[i] as string));
      expect(new Set(answers.map((a) => a.requestId)).size).toBe(urls.length);
    }, TEST_TIMEOUT_MS);

    it('carries a 10 MB page through the pipeline intact', async ({ annotate }) => {
      const url = 'https://big.test/ten-megabytes?bytes=10485760';
      const sentAt = Date.now();
      const answer = await scrape(d.gateway, d.apiKey, url);
      const answeredAt = Date.now();
      expectPage(answer, url);
      expect(answer.body.data?.bytes).toBe(10_485_760);
      const at = (msg: string) => d.logs().find((l) => l.requestId === answer.requestId && l.msg === msg)?.time;
      const [started, fetched, parsed] = await until('the stages logged', () => {
        const times = ['synthetic fetch started', 'synthetic fetch done', 'synthetic page parsed'].map(at);
        return times.every((t) => t !== undefined) && (times as [number, number, number]);
      });
      await annotate(
        `10 MB page round trip: ${Math.round(answer.ms)} ms (to the fetcher ${started - sentAt} ms, page made ${fetched - started} ms, ` +
          `to the parser and stored ${parsed - fetched} ms, reply to the client ${answeredAt - parsed} ms)`,
      );
    }, TEST_TIMEOUT_MS);

    it('retries a fetch that fails twice, then answers', async () => {
      const url = 'https://flaky.test/page?fail=2';
      const answer = await scrape(d.gateway, d.apiKey, url);
      expectPage(answer, url);
      const failed = await until('two failed attempts logged', () => {
        const lines = d.logs().filter((l) => l.requestId === answer.requestId && l.msg.startsWith('attempt failed, retrying'));
        return lines.length >= 2 && lines;
      });
      expect(failed.map((l) => l.attempt)).toEqual([1, 2]);
    }, TEST_TIMEOUT_MS);

    it('charges a limited key once per answered request, never beyond its balance', async () => {
      const { key, record } = await d.keys.create({ name: 'e2e-limited', credits: 3 });
      const urls = Array.from({ length: 4 }, (_, i) => `https://paid.test/item/${i}`);
      const answers = await Promise.all(urls.map((url) => scrape(d.gateway, key, url)));
      const ok = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status !== 200);
      expect(ok).toHaveLength(3);
      expect(refused.map((a) => [a.status, a.body.error?.code])).toEqual([[402, 'insufficient_credits']]);
      for (const answer of ok) {
        const url = urls[answers.indexOf(answer)] as string;
        expect(answer.body.data?.cost).toMatchObject({ credits: 1, source: 'fresh' });
        expectPage(answer, url, answer.body.data?.cost as Record<string, unknown>);
      }
      expect((await d.keys.get(record.id))?.balance).toBe(0);
      const charges = await d.charges(record.id);
      expect(charges.map((c) => c.requestId).sort()).toEqual(ok.map((a) => a.requestId).sort());
      expect(charges.map((c) => c.amount)).toEqual([-1, -1, -1]);
    }, TEST_TIMEOUT_MS);

    it('stores exactly one pages row per request id', async () => {
      const ids = [...answered.keys()];
      expect(ids.length).toBe(11);
      const pages = await pagesByRequest(d.store, ids);
      expect([...pages.keys()].sort()).toEqual([...ids].sort());
      for (const [id, url] of answered) {
        const page = expectedPage(url);
        expect(pages.get(id), url).toEqual({ request_id: id, rows: 1, title: page.title, content_hash: page.sha256, bytes: page.bytes });
      }
    }, TEST_TIMEOUT_MS);
  });
}

pipelineScenario('e2e/pipeline (embedded: memory bus, chdb, memory state, one process)', hasChdb, embedded);

pipelineScenario(
  'e2e/pipeline (distributed: mock Kafka, Redis, ClickHouse HTTP served by chdb; gateway, 2 fetchers, parser processes)',
  hasChdb && kafkaUp && redisUp,
  distributed,
);
