/**
 * The Redis that integration suites use: `TEST_REDIS_URL` (default database 15 of the local
 * server, away from anything a developer keeps in 0), a probe for the engine policy of
 * engines.ts, fresh namespaces, and a cleanup that deletes a namespace's keys.
 *
 *   const hasRedis = await engine('redis', redisProbe, REDIS_INSTALL);
 *   describe.skipIf(!hasRedis)('pipeline/runtime/state (redis)', () => { ... });
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379/15';

export const REDIS_INSTALL = 'apt-get install -y redis-server && redis-server --daemonize yes';

/** A client that tries once and gives up quickly; callers must `disconnect()` it. */
function quickClient(url: string): { client: Redis; lastError(): Error | null } {
  let last: Error | null = null;
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', (error: Error) => void (last = error));
  return { client, lastError: () => last };
}

/** True when TEST_REDIS_URL answers PING; throws (with the reason) when it does not. */
export function redisProbe(url: string = TEST_REDIS_URL): Promise<boolean> {
  return withClient(url, async (client) => (await client.ping()) === 'PONG');
}

/** A namespace no other run uses: `wds-test-<hex>`. */
export function testNamespace(): string {
  return `wds-test-${randomBytes(6).toString('hex')}`;
}

/** Runs `use` with a connected client, disconnecting it afterwards. */
async function withClient<T>(url: string, use: (client: Redis) => Promise<T>): Promise<T> {
  const { client, lastError } = quickClient(url);
  try {
    await client.connect().catch((error: Error) => {
      throw new Error(`${url}: ${lastError()?.message ?? error.message}`);
    });
    return await use(client);
  } finally {
    client.disconnect();
  }
}

/** The keys under `namespace`, a SCAN page at a time. */
async function* namespaceKeys(client: Redis, namespace: string): AsyncGenerator<string[]> {
  if (!/^[A-Za-z0-9_.-]+$/.test(namespace)) throw new Error(`refusing to scan namespace "${namespace}"`);
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${namespace}:*`, 'COUNT', 500);
    if (keys.length) yield keys;
    cursor = next;
  } while (cursor !== '0');
}

/** Deletes every key under `namespace` (SCAN + UNLINK); returns how many. */
export function dropNamespace(namespace: string, url: string = TEST_REDIS_URL): Promise<number> {
  return withClient(url, async (client) => {
    let dropped = 0;
    for await (const keys of namespaceKeys(client, namespace)) dropped += await client.unlink(...keys);
    return dropped;
  });
}

/** How many keys exist under `namespace`. */
export function countNamespace(namespace: string, url: string = TEST_REDIS_URL): Promise<number> {
  return withClient(url, async (client) => {
    let count = 0;
    for await (const keys of namespaceKeys(client, namespace)) count += keys.length;
    return count;
  });
}
