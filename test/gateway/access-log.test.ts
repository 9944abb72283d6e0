/**
 * gateway/access-log.ts and gateway/request-log.ts: one access line per request, bound to the
 * request id. The line is written through the parent logger while no per-request child
 * exists; it must be the same line a child would write, field for field and in order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildGateway } from '../../gateway/app.js';
import { RequestLog, pinoLoggerOf } from '../../gateway/request-log.js';
import { loadConfig } from '../../pipeline/config.js';
import { FileKeyRegistry } from '../../pipeline/keys/ledger-file.js';
import { createLogger } from '../../pipeline/log.js';
import { MemoryState } from '../../pipeline/state/memory.js';

const withoutTime = (line: string) => line.replace(/"time":\d+,/, '');

describe('gateway/access-log', () => {
  const lines: string[] = [];
  let app: FastifyInstance;
  let keys: FileKeyRegistry;
  let key: string;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'wds-access-'));
    keys = new FileKeyRegistry(dataDir);
    key = (await keys.create({ name: 'access', credits: 'unlimited' })).key;
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    app = await buildGateway({ config: loadConfig({ DATA_DIR: dataDir }), log, keys, state: new MemoryState(), version: 'test' });
  });
  afterAll(async () => {
    await app.close();
    keys.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes one line per request: reqId, method, path without the query, status, ms', async () => {
    lines.length = 0;
    const res = await app.inject({
      method: 'POST',
      url: '/v1/crawl?x=https://secret.example',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-request-id': 'acc-1' },
      payload: '{"url":"https://example.com","limit":0}',
    });
    expect(res.statusCode).toBe(422);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual(['level', 'time', 'service', 'reqId', 'method', 'path', 'status', 'ms', 'msg']);
    expect(line).toMatchObject({ level: 30, reqId: 'acc-1', method: 'POST', path: '/v1/crawl', status: 422, msg: 'request' });
    expect(lines[0]).not.toContain(key);
  });

  it('writes through the parent the same bytes as the per-request child', () => {
    const out: string[] = [];
    const parent = createLogger('info', { write: (line: string) => void out.push(line) }).child({ role: 'api' });
    const fields = { method: 'GET', path: '/v1/templates', status: 200, ms: 0.4 };
    const lazy = new RequestLog(parent, { reqId: 'r-1' });
    lazy.withoutChild()?.info({ reqId: 'r-1', ...fields }, 'request');
    parent.child({ reqId: 'r-1' }).info(fields, 'request');
    expect(out).toHaveLength(2);
    expect(withoutTime(out[0] as string)).toBe(withoutTime(out[1] as string));
  });

  it('makes the child on the first other line, and handlers get it', () => {
    const out: string[] = [];
    const parent = createLogger('info', { write: (line: string) => void out.push(line) });
    const lazy = new RequestLog(parent, { reqId: 'r-2' });
    lazy.debug('below the level');
    expect(lazy.withoutChild()).toBe(parent);
    lazy.warn({ code: 'x' }, 'a warning');
    expect(lazy.withoutChild()).toBeUndefined();
    expect(JSON.parse(out[0] as string)).toMatchObject({ reqId: 'r-2', code: 'x', msg: 'a warning' });
    pinoLoggerOf(lazy).info('from a handler');
    expect(JSON.parse(out[1] as string)).toMatchObject({ reqId: 'r-2', msg: 'from a handler' });
    expect(out).toHaveLength(2);
  });
});
