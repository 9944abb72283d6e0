/**
 * The dashboard's request rows (gateway/usage.ts): a gateway with a pipeline writes one
 * `api_requests` row per answered operation request of a key, through the batch writer,
 * with the operation, status, error code (validation_failed for a 422 with `detail`, the
 * envelope's code otherwise, the key's own 429 included), credits and the injected clock's
 * time; a request with no valid key, and the dashboard's own reads, write none; a writer
 * that fails is logged once, and the answers go on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildGateway } from '../../gateway/app.js';
import type { Requester } from '../../pipeline/runtime/request-reply.js';
import { FileKeyRegistry } from '../../pipeline/keys/ledger-file.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';
import { loadConfig } from '../../pipeline/service/config.js';

const NOW = 1_790_000_000_000;

interface Rig {
  app: FastifyInstance;
  rows: Record<string, unknown>[];
  warnings: string[];
  secret: string;
  keyId: string;
  close(): Promise<void>;
}

async function rig(env: Record<string, string> = {}, failWrites = false): Promise<Rig> {
  const dataDir = mkdtempSync(join(tmpdir(), 'wds-usage-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', PORT: '0', HOST: '127.0.0.1', ...env });
  const keys = new FileKeyRegistry(dataDir);
  const { key, record } = await keys.create({ name: 'usage', credits: 'unlimited' });
  const state = new MemoryState();
  const rows: Record<string, unknown>[] = [];
  const warnings: string[] = [];
  const log = createLogger('silent');
  log.warn = ((_obj: unknown, msg?: string) => void warnings.push(String(msg))) as typeof log.warn;
  const writer = {
    write: async (table: string, written: readonly Record<string, unknown>[]) => {
      if (failWrites) throw new Error('store down');
      for (const row of written) rows.push({ table, ...row });
    },
  };
  const app = await buildGateway({
    config,
    log,
    keys,
    state,
    version: '0.1.0-test',
    now: () => NOW,
    // No actors: the operations the pipeline serves answer 501, which is what these requests need.
    pipeline: { serves: new Set(), requester: {} as Requester, records: { state, store: { query: async () => [] }, writer, events: { emit: async () => undefined } } },
  });
  await app.ready();
  return {
    app,
    rows,
    warnings,
    secret: key,
    keyId: record.id,
    async close() {
      await app.close();
      keys.close();
      await state.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('gateway/usage: request rows', () => {
  let r: Rig | undefined;
  afterEach(async () => {
    await r?.close();
    r = undefined;
  });

  const send = (method: 'GET' | 'POST', url: string, secret: string | null, payload?: unknown) =>
    r!.app.inject({ method, url, headers: secret ? { authorization: `Bearer ${secret}` } : {}, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('writes one row per answered operation request of a key, with its code and the clock\'s time', async () => {
    r = await rig();
    expect((await send('GET', '/v1/templates', r.secret)).statusCode).toBe(200);
    expect((await send('POST', '/v1/scrape', r.secret, { url: 'not a url' })).statusCode).toBe(422);
    expect((await send('POST', '/v1/scrape', r.secret, { url: 'https://example.com/' })).statusCode).toBe(501);
    // No key, an unknown key, and the dashboard's own reads: no row.
    expect((await send('GET', '/v1/templates', null)).statusCode).toBe(401);
    expect((await send('GET', '/v1/templates', 'wds_not_a_key_of_this_service')).statusCode).toBe(401);
    expect((await send('GET', '/dashboard/api/usage', r.secret)).statusCode).toBe(200);
    const at = new Date(NOW);
    expect(r.rows.map(({ request_id: _id, ...row }) => row)).toEqual([
      { table: 'api_requests', tenant: r.keyId, at, op: 'templates', status: 200, code: '', credits: 0 },
      { table: 'api_requests', tenant: r.keyId, at, op: 'scrape', status: 422, code: 'validation_failed', credits: 0 },
      { table: 'api_requests', tenant: r.keyId, at, op: 'scrape', status: 501, code: 'not_implemented', credits: 0 },
    ]);
    expect(r.rows.every((row) => typeof row.request_id === 'string' && row.request_id !== '')).toBe(true);
    expect(JSON.stringify(r.rows)).not.toContain(r.secret);
  });

  it('records a key\'s own rate limit as rate_limited', async () => {
    r = await rig({ RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BURST: '1' });
    expect((await send('GET', '/v1/templates', r.secret)).statusCode).toBe(200);
    expect((await send('GET', '/v1/templates', r.secret)).statusCode).toBe(429);
    expect(r.rows.map((row) => [row.status, row.code])).toEqual([[200, ''], [429, 'rate_limited']]);
  });

  it('logs a failing writer once and still answers', async () => {
    r = await rig({}, true);
    for (let i = 0; i < 3; i++) expect((await send('GET', '/v1/templates', r.secret)).statusCode).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(r.warnings).toEqual(['could not record request rows for the dashboard']);
  });
});
