/**
 * A gateway for tests: a fresh DATA_DIR, a silent logger, and helpers to make keys. Use
 * `app.inject()` for in-process requests, or `listen()` for a real socket.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildGateway } from '../../gateway/app.js';
import type { Handlers } from '../../gateway/handler.js';
import { loadConfig, type Config } from '../../pipeline/service/config.js';
import { FileKeyRegistry } from '../../pipeline/keys/ledger-file.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';

export interface TestGateway {
  app: FastifyInstance;
  config: Config;
  keys: FileKeyRegistry;
  dataDir: string;
  /** A new key with this many credits (default unlimited); returns the secret. */
  key(credits?: number | 'unlimited', name?: string): Promise<string>;
  close(): Promise<void>;
}

export async function testGateway(
  env: Record<string, string> = {},
  options: { handlers?: Handlers } = {},
): Promise<TestGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wds-test-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1', ...env });
  const keys = new FileKeyRegistry(dataDir);
  const state = new MemoryState();
  const app = await buildGateway({
    config,
    log: createLogger('silent'),
    keys,
    state,
    version: '0.1.0-test',
    ...(options.handlers ? { handlers: options.handlers } : {}),
  });
  await app.ready();
  return {
    app,
    config,
    keys,
    dataDir,
    async key(credits = 'unlimited', name = 'test') {
      return (await keys.create({ name, credits })).key;
    },
    async close() {
      await app.close();
      keys.close();
      await state.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A test gateway and an unlimited key on it, for a suite that needs nothing else. */
export async function gatewayWithKey(): Promise<{ gw: TestGateway; key: string }> {
  const gw = await testGateway();
  return { gw, key: await gw.key() };
}

export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}
