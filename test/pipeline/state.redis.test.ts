/**
 * What only RedisState has: a namespace on every key, start-up that fails with a coded
 * error and a clear log line when Redis is down, and operations that fail with
 * `state_unavailable` while the connection is lost and recover when it is back. The
 * fault tests need no Redis (they point at a closed port); the others use the test Redis.
 */
import { once } from 'node:events';
import { createServer, connect as tcpConnect, type AddressInfo, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasCode } from '../../pipeline/runtime/errors.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { createState } from '../../pipeline/runtime/state/index.js';
import { RedisState } from '../../pipeline/runtime/state/redis.js';
import { engine } from '../helpers/engines.js';
import { countNamespace, dropNamespace, REDIS_INSTALL, redisProbe, TEST_REDIS_URL, testNamespace } from '../helpers/redis.js';
import { rejection } from '../helpers/wait.js';

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A pino logger whose lines are kept, parsed, in `lines`. */
function capturedLog(): { log: ReturnType<typeof createLogger>; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = createLogger('debug', { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { log, lines };
}

/** A port nothing listens on (taken from the OS, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

describe('pipeline/runtime/state/redis (Redis down)', () => {
  it('rejects connect() with state_unavailable after the bounded wait, logging why', async () => {
    const port = await closedPort();
    const { log, lines } = capturedLog();
    const state = new RedisState({ url: `redis://127.0.0.1:${port}/0`, log, connectTimeoutMs: 400 });
    const error = await rejection(state.connect());
    expect(hasCode(error, 'state_unavailable')).toBe(true);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);

    const failure = lines.find((line) => line.level === 50);
    expect(failure?.msg).toMatch(new RegExp(`redis at redis://127\\.0\\.0\\.1:${port}/0 is unavailable at start`));
    expect(failure?.msg).toContain('ECONNREFUSED');
    expect(lines.some((line) => line.level === 40 && /unreachable.*retrying/.test(line.msg))).toBe(true);

    // Given up for good: calls fail at once instead of waiting on a dead socket.
    expect(hasCode(await rejection(state.get('k')), 'state_unavailable')).toBe(true);
    expect(hasCode(await rejection(state.connect()), 'state_unavailable')).toBe(true);
    await state.close();
  });

  it('fails createState at start-up, never logging a password', async () => {
    const port = await closedPort();
    const { log, lines } = capturedLog();
    const error = await rejection(
      createState({ kind: 'redis', url: `redis://user:s3cret@127.0.0.1:${port}/0`, log, connectTimeoutMs: 300 }),
    );
    expect(hasCode(error, 'state_unavailable')).toBe(true);
    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.stringify(lines)).not.toContain('s3cret');
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('refuses a namespace that could collide with another one', () => {
    const { log } = capturedLog();
    expect(() => new RedisState({ url: TEST_REDIS_URL, log, namespace: 'a:b' })).toThrow(TypeError);
    expect(() => new RedisState({ url: 'http://127.0.0.1:6379', log })).toThrow(TypeError);
  });
});

/** A TCP forwarder to Redis that a test can cut and restore on the same port. */
class CuttableProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = tcpConnect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    const closed = once(server, 'close');
    server.close();
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

const hasRedis = await engine('redis', () => redisProbe(), REDIS_INSTALL);

describe.skipIf(!hasRedis)('pipeline/runtime/state/redis (Redis up)', () => {
  const namespace = testNamespace();
  const other = testNamespace();
  const { log, lines } = capturedLog();
  let state: RedisState;
  let raw: Redis;

  beforeAll(async () => {
    state = (await createState({ kind: 'redis', url: TEST_REDIS_URL, namespace, log })) as RedisState;
    raw = new Redis(TEST_REDIS_URL, { lazyConnect: true });
    await raw.connect();
  });
  afterAll(async () => {
    await state?.close();
    raw?.disconnect();
    await dropNamespace(namespace);
    await dropNamespace(other);
  });

  it('keeps every key, lock and bucket under its namespace', async () => {
    await state.set('plain', 'v');
    await state.sadd('set', 'm');
    const held = await state.lock('job', 10_000);
    await state.takeToken('host', { capacity: 5, refillPerSecond: 1 });
    expect(await raw.get(`${namespace}:plain`)).toBe('v');
    expect(await raw.sismember(`${namespace}:set`, 'm')).toBe(1);
    expect(await raw.exists(`${namespace}:lock:job`, `${namespace}:bucket:host`)).toBe(2);
    expect(await countNamespace(namespace)).toBe(4);
    await held?.release();
  });

  it('does not see another namespace on the same Redis', async () => {
    const neighbour = new RedisState({ url: TEST_REDIS_URL, namespace: other, log });
    await neighbour.connect();
    await state.set('shared-name', 'mine');
    expect(await neighbour.get('shared-name')).toBeNull();
    expect(await neighbour.setIfAbsent('shared-name', 'theirs')).toBe(true);
    expect(await state.get('shared-name')).toBe('mine');
    await neighbour.close();
  });

  it('stores the bucket like memory does: fractional tokens and a refill time', async () => {
    await state.takeToken('frac', { capacity: 3, refillPerSecond: 1000 });
    const stored = await state.hgetall('bucket:frac');
    expect(Number(stored.tokens)).toBeGreaterThanOrEqual(2);
    expect(Number(stored.ts)).toBeGreaterThan(1.6e12);
  });

  it('fails operations with state_unavailable while Redis is cut off, then recovers', async () => {
    const target = new URL(TEST_REDIS_URL);
    const proxy = new CuttableProxy({ host: target.hostname, port: Number(target.port || 6379) });
    await proxy.start();
    const behind = new RedisState({
      url: `redis://${target.host.replace(/:\d+$/, '')}:${proxy.port}${target.pathname}`,
      namespace,
      log,
      commandTimeoutMs: 500,
      maxRetryDelayMs: 50,
    });
    await behind.connect();
    await behind.set('through-proxy', 'v');

    await proxy.cut();
    const error = await rejection(behind.get('through-proxy'));
    expect(hasCode(error, 'state_unavailable')).toBe(true);
    expect(lines.some((line) => line.level === 40 && /unreachable/.test(line.msg))).toBe(true);

    await proxy.start();
    let value: string | null = null;
    const giveUpAt = Date.now() + 5000;
    while (value === null && Date.now() < giveUpAt) {
      value = await behind.get('through-proxy').catch(() => null);
      if (value === null) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(value).toBe('v');
    expect(lines.some((line) => line.level === 30 && /reachable again/.test(line.msg))).toBe(true);
    await behind.close();
    await proxy.cut();
  });

  it('quits cleanly on close()', async () => {
    const own = new RedisState({ url: TEST_REDIS_URL, namespace, log });
    await own.connect();
    await own.close();
    expect(hasCode(await rejection(own.get('k')), 'state_unavailable')).toBe(true);
  });
});
