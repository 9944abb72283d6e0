/**
 * The service in embedded mode inside the test process, as the end-to-end suites run it:
 * `startService({role: 'all'})` with the production actors, a fresh DATA_DIR, listening on
 * 127.0.0.1 and a free port. chdb admits one data directory per process, so a file's
 * services run one after the other.
 */
import { afterAll, beforeAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActorSpec } from '../../actors/index.js';
import { startService, type Service } from '../../main.js';
import { loadConfig, type Config } from '../../pipeline/service/config.js';
import { FileKeyRegistry } from '../../pipeline/keys/ledger-file.js';
import { createLogger, type Logger } from '../../pipeline/runtime/log.js';
import { serverWebhookSecret } from '../../pipeline/webhooks/secret.js';
import { keyWebhookSecret } from '../../pipeline/webhooks/signing.js';

export interface Embedded {
  readonly service: Service;
  /** The gateway's base URL. */
  readonly base: string;
  readonly dataDir: string;
  readonly config: Config;
  /** Stops the service and removes its data directory. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** The API_KEY setting (an unlimited key). */
  readonly apiKey: string;
  /** Settings on top of DATA_DIR, PORT, HOST, LOG_LEVEL=silent and API_KEY. */
  readonly env?: Record<string, string>;
  readonly log?: Logger;
  /** Runs after the configuration is loaded and before the service starts (e.g. to make keys). */
  readonly before?: (config: Config) => Promise<void>;
  /** The build's actors (default: the production list, main.ts ACTORS). */
  readonly actors?: readonly ActorSpec[];
}

/**
 * A service for the enclosing describe block: started before its tests, stopped after.
 * The getter answers the running service.
 */
export function serviceForBlock<T extends { stop(): Promise<void> }>(start: () => Promise<T>): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    await started?.stop();
  });
  return () => {
    if (!started) throw new Error('the block\'s service did not start');
    return started;
  };
}

/** Starts every role of the service in this process on `config`; its gateway's base URL. */
export async function serveEmbedded(config: Config, options: Pick<EmbeddedOptions, 'log' | 'actors'> = {}): Promise<{ service: Service; base: string }> {
  const service = await startService({ config, log: options.log ?? createLogger('silent'), role: 'all', ...(options.actors ? { actors: options.actors } : {}) });
  const address = service.app?.server.address();
  if (!address || typeof address !== 'object') throw new Error('the gateway is not listening');
  return { service, base: `http://127.0.0.1:${address.port}` };
}

export async function startEmbedded(options: EmbeddedOptions): Promise<Embedded> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wds-e2e-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', API_KEY: options.apiKey, ...options.env });
    await options.before?.(config);
    const { service, base } = await serveEmbedded(config, options);
    return {
      service,
      base,
      dataDir,
      config,
      async stop() {
        await service.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** A key with a finite balance, made in the ledger the running service reads, and a reader of its balance. */
export async function meteredKey(dataDir: string, credits: number): Promise<{ key: string; balance: () => Promise<number | null> }> {
  const keys = new FileKeyRegistry(dataDir);
  try {
    const { key, record } = await keys.create({ name: 'metered', credits });
    return {
      key,
      balance: async () => {
        const reader = new FileKeyRegistry(dataDir);
        try {
          return (await reader.list()).find((r) => r.id === record.id)?.balance ?? null;
        } finally {
          reader.close();
        }
      },
    };
  } finally {
    keys.close();
  }
}

/** An embedded service on API_KEY `apiKey`, and a second key (1,000 credits) made in its ledger before it starts. */
export async function embeddedWithSecondKey(apiKey: string, env: Record<string, string>): Promise<{ svc: Embedded; otherKey: string }> {
  let otherKey = '';
  const svc = await startEmbedded({
    apiKey,
    env,
    before: async (config) => {
      otherKey = (await meteredKey(config.dataDir, 1000)).key;
    },
  });
  return { svc, otherKey };
}

/** The webhook signing secret of the service's API_KEY key, as `npm run keys -- webhook-secret <id>` derives it. */
export async function apiKeyWebhookSecret(svc: Pick<Embedded, 'dataDir' | 'config'>): Promise<string> {
  const keys = new FileKeyRegistry(svc.dataDir);
  try {
    const id = (await keys.list()).find((k) => k.name === 'API_KEY')?.id;
    if (!id) throw new Error('no API_KEY key');
    return keyWebhookSecret(serverWebhookSecret(svc.config), id);
  } finally {
    keys.close();
  }
}
