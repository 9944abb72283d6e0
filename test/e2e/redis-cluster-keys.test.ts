/**
 * Coordination state that works on a Redis Cluster: every command and script the service
 * sends touches keys of one hash slot (docs/scaling.md "Redis"). The slot function against
 * Redis Cluster's own examples; RedisState's multi-key DEL split per slot; then the service
 * itself, embedded with STATE=redis, runs a crawl, a batch and scrapes while a MONITOR
 * connection records every command it sends to its namespace: each command's keys (as the
 * server reads them, COMMAND GETKEYS) are in one slot, and the recording holds the work
 * queue's seven-key scripts and the job's multi-key DEL, so the check saw what it checks.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seenKey } from '../../actors/frontier/jobs/queue.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { keySlot } from '../../pipeline/runtime/state/key-slot.js';
import { RedisState } from '../../pipeline/runtime/state/redis.js';
import { startEmbedded, type Embedded } from '../helpers/embedded.js';
import { engine } from '../helpers/engines.js';
import { dropNamespace, REDIS_INSTALL, redisProbe, TEST_REDIS_URL, testNamespace } from '../helpers/redis.js';
import { until } from '../helpers/wait.js';

const API_KEY = 'e2e-redis-cluster-key-0123456789';
const hasRedis = await engine('redis', () => redisProbe(), REDIS_INSTALL);

describe('the hash slot of a key', () => {
  it('is Redis Cluster\'s: CRC16 of the key or its hash tag, modulo 16384', () => {
    // The examples of the Redis Cluster specification and its CRC16 check value.
    expect(keySlot('123456789')).toBe(0x31c3 % 16384);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('bar')).toBe(5061);
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
    expect(keySlot('{user1000}.following')).toBe(keySlot('user1000'));
    expect(keySlot('foo{}{bar}')).toBe(keySlot('foo{}{bar}')); // an empty tag: the whole key is hashed
    expect(keySlot('foo{}{bar}')).not.toBe(keySlot('bar'));
    expect(keySlot('foo{{bar}}zap')).toBe(keySlot('{bar'));
    expect(keySlot('foo{bar}{zap}')).toBe(keySlot('bar'));
    expect(keySlot('wds:job:{abc}:seen')).toBe(keySlot('wds:job:{abc}'));
  });
});

/** Records every command sent to database 15 that names a key of `namespace`, with its keys as the server reads them. */
async function recordCommands(namespace: string): Promise<{ commands: () => Promise<{ args: string[]; keys: string[] }[]>; stop: () => Promise<void> }> {
  const client = new Redis(TEST_REDIS_URL, { lazyConnect: true });
  await client.connect();
  const monitor = await new Redis(TEST_REDIS_URL).monitor();
  const seen = new Map<string, string[]>();
  monitor.on('monitor', (_time: string, args: string[], _source: string, database: string) => {
    if (!TEST_REDIS_URL.endsWith(`/${database}`)) return;
    // This recorder's own COMMAND GETKEYS name the keys too.
    if (args[0]?.toLowerCase() === 'command' || !args.some((a) => a.startsWith(`${namespace}:`))) return;
    seen.set(JSON.stringify(args), args);
  });
  return {
    async commands() {
      const out: { args: string[]; keys: string[] }[] = [];
      for (const args of seen.values()) {
        const [name, ...rest] = args as [string, ...string[]];
        const keys = (await client.call('COMMAND', 'GETKEYS', name, ...rest).catch(() => [])) as string[];
        out.push({ args, keys });
      }
      return out;
    },
    async stop() {
      monitor.disconnect();
      client.disconnect();
    },
  };
}

describe.skipIf(!hasRedis)('commands on one hash slot', () => {
  const namespace = testNamespace();
  let site: http.Server;
  let siteBase: string;
  let service: Embedded | undefined;

  beforeAll(async () => {
    site = http.createServer((request, response) => {
      const n = Number(/^\/p(\d+)$/.exec(request.url ?? '')?.[1] ?? 0);
      const links = Array.from({ length: 12 }, (_, i) => `<a href="/p${i}">page ${i}</a>`).join(' ');
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<html><head><title>Page ${n}</title></head><body><h1>Page ${n}</h1><p>Words of page ${n}.</p>${links}</body></html>`);
    });
    site.listen(0, '127.0.0.1');
    await once(site, 'listening');
    siteBase = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await service?.stop();
    site?.close();
    await dropNamespace(namespace);
  });

  it('a DEL of keys in several slots is sent once per slot', async () => {
    const recorder = await recordCommands(namespace);
    const state = new RedisState({ url: TEST_REDIS_URL, namespace, log: createLogger('silent') });
    await state.connect();
    try {
      const keys = ['a', 'b', 'c', 'job:{x}:seen', 'job:{x}:queue'];
      for (const key of keys) await state.set(key, '1');
      expect(await state.del(...keys, 'never-set')).toBe(5);
      for (const key of keys) expect(await state.get(key)).toBeNull();
      const dels = await until('the DELs recorded', async () => {
        const found = (await recorder.commands()).filter((c) => c.args[0]?.toLowerCase() === 'del');
        return found.length >= 4 ? found : null;
      });
      for (const { keys: touched } of dels) expect(new Set(touched.map(keySlot)).size, touched.join(' ')).toBe(1);
      expect(dels.find((d) => d.keys.length === 2)?.keys.sort()).toEqual([`${namespace}:job:{x}:queue`, `${namespace}:job:{x}:seen`]);
    } finally {
      await state.close();
      await recorder.stop();
    }
  });

  it('a crawl, a batch and scrapes with the state in Redis send no command across slots', { timeout: 120_000 }, async () => {
    const recorder = await recordCommands(namespace);
    try {
      service = await startEmbedded({
        apiKey: API_KEY,
        env: { FETCH_ALLOW_PRIVATE: 'true', STATE: 'redis', REDIS_URL: TEST_REDIS_URL, REDIS_NAMESPACE: namespace },
      });
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${service?.base}${path}`, {
          method,
          headers: { authorization: `Bearer ${API_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, body: (await res.json()) as Record<string, any> };
      };
      const crawl = await call('POST', '/v1/crawl', { url: `${siteBase}/`, limit: 12, maxConcurrency: 3 });
      const batch = await call('POST', '/v1/batch/scrape', { urls: [`${siteBase}/p1`, `${siteBase}/p2`] });
      expect([crawl.status, batch.status]).toEqual([200, 200]);
      expect((await call('POST', '/v1/scrape', { url: `${siteBase}/p3` })).status).toBe(200);
      for (const [kind, id] of [['crawl', crawl.body.data.id], ['batch', batch.body.data.id]]) {
        await until(`the ${kind} ended`, async () => (await call('GET', `/v1/${kind}/${id}`)).body.data.status === 'completed', 60_000);
      }
      // The job's working keys are dropped once it ended (a multi-key DEL): wait for it.
      const seen = `${namespace}:${seenKey(crawl.body.data.id as string)}`;
      const commands = await until('the working keys dropped', async () => {
        const all = await recorder.commands();
        return all.some((c) => c.args[0]?.toLowerCase() === 'del' && c.keys.includes(seen)) ? all : null;
      }, 30_000);
      const multi = commands.filter((c) => c.keys.length > 1);
      const crossing = multi.filter((c) => new Set(c.keys.map(keySlot)).size > 1).map((c) => c.args.slice(0, 4 + c.keys.length).join(' '));
      expect(crossing).toEqual([]);
      // What was checked: the work queue's scripts (seven keys each, eight with the end key or the marked set) and the working keys' DEL.
      expect(multi.filter((c) => c.args[0]?.toLowerCase().startsWith('eval') && (c.keys.length === 7 || c.keys.length === 8)).length).toBeGreaterThan(10);
      expect(multi.some((c) => c.args[0]?.toLowerCase() === 'del' && c.keys.includes(seen) && c.keys.length >= 6)).toBe(true);
    } finally {
      await recorder.stop();
    }
  });
});
