/**
 * gateway/access-log.ts: one access line per request, bound to the request id. The access log writes its line itself; it must be the line pino's per-request
 * child would write, byte for byte apart from the clock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildGateway } from '../../gateway/app.js';
import type { FastifyReply, FastifyRequest, InjectOptions } from 'fastify';
import { AccessLog } from '../../gateway/access-log.js';
import type { HandlerContext } from '../../gateway/handler.js';
import { loadConfig } from '../../pipeline/service/config.js';
import { FileKeyRegistry } from '../../pipeline/keys/ledger-file.js';
import { createLogger } from '../../pipeline/runtime/log.js';
import { MemoryState } from '../../pipeline/runtime/state/memory.js';

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

  const MCP_PING = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } });

  it('writes exactly one line, with the request id, for every kind of answer', async () => {
    const auth = { authorization: `Bearer ${key}` };
    const cases: { request: InjectOptions & { url: string }; status: number }[] = [
      { request: { method: 'GET', url: '/v1/templates', headers: auth }, status: 200 },
      { request: { method: 'GET', url: '/v1/templates' }, status: 401 },
      { request: { method: 'POST', url: '/v1/crawl', headers: { ...auth, 'content-type': 'application/json' }, payload: '{' }, status: 400 },
      { request: { method: 'GET', url: '/v1/no-such-thing' }, status: 404 },
      { request: { method: 'GET', url: '/v1/crawl/%E0%A4%A', headers: auth }, status: 400 },
      { request: { method: 'GET', url: '/healthz' }, status: 200 },
      { request: { method: 'GET', url: '/v1/openapi.json' }, status: 200 },
      { request: { method: 'GET', url: '/docs/assets/nothing-here.js' }, status: 404 },
      // MCP (gateway/mcp/http.ts): its refusals, its 405 and a call answered on its event stream.
      { request: { method: 'POST', url: '/mcp', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"jsonrpc":' }, status: 400 },
      { request: { method: 'POST', url: '/mcp', headers: { ...auth, 'content-type': 'text/plain' }, payload: 'hello' }, status: 415 },
      { request: { method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' }, payload: '{}' }, status: 401 },
      { request: { method: 'GET', url: '/mcp', headers: auth }, status: 405 },
      { request: { method: 'POST', url: '/mcp', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: MCP_PING }, status: 200 },
    ];
    for (const c of cases) {
      lines.length = 0;
      const res = await app.inject(c.request);
      expect(res.statusCode, `${c.request.url}: ${res.body}`).toBe(c.status);
      expect(lines, String(c.request.url)).toHaveLength(1);
      const line = JSON.parse(lines[0] as string) as Record<string, unknown>;
      expect(line).toMatchObject({ msg: 'request', status: c.status, method: c.request.method });
      expect(line.reqId).toBe(res.headers['x-request-id']);
    }
  });

  it('writes the bytes pino writes for the per-request child', () => {
    const out: string[] = [];
    const parent = createLogger('info', { write: (line: string) => void out.push(line) }).child({ role: 'api' });
    const cases = [
      { id: 'r-1', method: 'GET', url: '/v1/templates?x=1', status: 200 },
      // Ids hold only what gateway/app.ts REQUEST_ID accepts; the path is escaped.
      { id: 'r-2.b:c_D', method: 'POST', url: '/v1/crawl/ünï\\"code"', status: 422 },
    ];
    for (const c of cases) {
      const request = { id: c.id, method: c.method, url: c.url, raw: {} } as unknown as FastifyRequest;
      new AccessLog(parent).write(request, { statusCode: c.status } as FastifyReply);
      const line = JSON.parse(out.at(-1) as string) as { ms: number };
      parent.child({ reqId: c.id }).info({ method: c.method, path: c.url.split('?')[0], status: c.status, ms: line.ms }, 'request');
      expect(withoutTime(out.at(-2) as string)).toBe(withoutTime(out.at(-1) as string));
    }
    expect(out).toHaveLength(4);
  });

  it('writes each line for its own answer when answers repeat and then change (the remembered middle)', () => {
    const out: string[] = [];
    const parent = createLogger('info', { write: (line: string) => void out.push(line) });
    const access = new AccessLog(parent);
    const cases = [
      { id: 'm-1', method: 'POST', url: '/v1/crawl', status: 422 },
      { id: 'm-2', method: 'POST', url: '/v1/crawl', status: 422 },
      { id: 'm-3', method: 'POST', url: '/v1/crawl', status: 200 },
      { id: 'm-4', method: 'GET', url: '/v1/crawl', status: 200 },
      { id: 'm-5', method: 'GET', url: '/v1/crawl?limit=1', status: 200 },
      { id: 'm-6', method: 'GET', url: '/v1/crawl/"x"', status: 200 },
      { id: 'm-7', method: 'POST', url: '/v1/crawl', status: 422 },
    ];
    for (const c of cases) {
      const request = { id: c.id, method: c.method, url: c.url, raw: {} } as unknown as FastifyRequest;
      access.write(request, { statusCode: c.status } as FastifyReply);
      const line = JSON.parse(out.at(-1) as string) as { ms: number };
      parent.child({ reqId: c.id }).info({ method: c.method, path: c.url.split('?')[0], status: c.status, ms: line.ms }, 'request');
      expect(withoutTime(out.at(-2) as string)).toBe(withoutTime(out.at(-1) as string));
    }
  });

  it('writes nothing when info is off', () => {
    const out: string[] = [];
    const quiet = createLogger('warn', { write: (line: string) => void out.push(line) });
    const request = { id: 'r-3', method: 'GET', url: '/', raw: {} } as unknown as FastifyRequest;
    new AccessLog(quiet).write(request, { statusCode: 200 } as FastifyReply);
    expect(out).toHaveLength(0);
  });

  it("binds a handler's lines and an unhandled error's line to the request id", async () => {
    const out: string[] = [];
    const log = createLogger('info', { write: (line: string) => void out.push(line) });
    const handlers = {
      source: { handle: async (ctx: HandlerContext) => (ctx.log.info({ step: 1 }, 'from a handler'), { data: { ok: true } }) },
      templates: { handle: async () => Promise.reject(new Error('boom')) },
    };
    const own = await buildGateway({ config: loadConfig({ DATA_DIR: dataDir }), log, keys, state: new MemoryState(), version: 'test', handlers });
    try {
      const ok = await own.inject({ method: 'GET', url: '/v1/source', headers: { 'x-request-id': 'h-1' } });
      expect(ok.statusCode).toBe(200);
      const failed = await own.inject({ method: 'GET', url: '/v1/templates', headers: { authorization: `Bearer ${key}`, 'x-request-id': 'h-2' } });
      expect(failed.statusCode).toBe(500);
      const lines = out.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.find((l) => l.msg === 'from a handler')).toMatchObject({ reqId: 'h-1', step: 1 });
      expect(lines.find((l) => l.msg === 'unhandled error')).toMatchObject({ reqId: 'h-2', level: 50 });
      expect(lines.filter((l) => l.msg === 'request').map((l) => [l.reqId, l.status])).toEqual([
        ['h-1', 200],
        ['h-2', 500],
      ]);
    } finally {
      await own.close();
    }
  });
});
