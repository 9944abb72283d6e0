/**
 * Our MCP server (gateway/mcp/, docs/mcp.md), driven by the official MCP SDK's client over
 * both transports, against the production actors in embedded mode and local sites:
 *
 * - Streamable HTTP at /mcp on a running service: 401 without a key or with an unknown one;
 *   the tools listed with input schemas generated from the API's request schemas; scrape,
 *   map, search (a local SearXNG) and crawl answered as text and structured content; a crawl
 *   reporting MCP progress notifications; errors as `isError` results carrying our code
 *   (validation, an unknown job, a key out of credits, which is not charged).
 * - stdio, `main.ts mcp` as `npx web-data-service mcp` runs it: with WDS_URL and WDS_API_KEY
 *   against the running service, and without them running the embedded service itself (in a
 *   child process: chdb would read the client's pipe on standard input as insert data), its
 *   standard output carrying the protocol only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { startFakeSearxng, type FakeSearch } from '../helpers/fake-search.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { startMapSite, type MapSite } from '../helpers/map-site.js';
import { callTool as call, dataOf, expectProgress, mcpHttpClient, mcpStdioClient as stdioClient, textOf, type Json } from '../helpers/mcp.js';

const API_KEY = 'e2e-mcp-key-0123456789';

let site: FixtureSite;
let mapSite: MapSite;
let searxng: FakeSearch;
let svc: Embedded;
let brokeKey = '';
let brokeBalance: () => Promise<number | null>;


beforeAll(async () => {
  [site, mapSite] = await Promise.all([startFixtureSite(), startMapSite()]);
  searxng = await startFakeSearxng({ results: [{ url: site.url('/html'), title: 'Hello fixture page', snippet: 'A page served for the MCP tests.' }] });
  svc = await startEmbedded({
    apiKey: API_KEY,
    env: { FETCH_ALLOW_PRIVATE: 'true', SEARCH_PROVIDERS: 'searxng', SEARXNG_URL: searxng.url, SEARCH_TIMEOUT_MS: '3000' },
    before: async (config) => void ({ key: brokeKey, balance: brokeBalance } = await meteredKey(config.dataDir, 0)),
  });
}, 120_000);

afterAll(async () => {
  await svc?.stop();
  await Promise.all([site?.close(), mapSite?.close(), searxng?.close()]);
});

const httpClient = (key = API_KEY): Promise<Client> => mcpHttpClient(svc.base, key);

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '0' } },
};

describe('e2e/mcp over Streamable HTTP at /mcp', () => {
  it('answers 401 without a key and with an unknown one, and a client cannot connect without one', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const none = await fetch(`${svc.base}/mcp`, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) });
    expect(none.status).toBe(401);
    expect(((await none.json()) as Json).error.code).toBe('missing_api_key');
    const wrong = await fetch(`${svc.base}/mcp`, { method: 'POST', headers: { ...headers, authorization: 'Bearer wds_not-a-key-of-this-service' }, body: JSON.stringify(INITIALIZE) });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as Json).error.code).toBe('invalid_api_key');
    await expect(httpClient('wds_not-a-key-of-this-service')).rejects.toThrow(/invalid_api_key/);
  });

  it('is stateless: GET and DELETE (session stream, session end) answer 405 with a key', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${svc.base}/mcp`, { method, headers: { authorization: `Bearer ${API_KEY}`, accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('lists the tools with input schemas generated from the request schemas, under the API field names', async () => {
    const client = await httpClient();
    try {
      expect(client.getServerVersion()?.name).toBe('web-data-service');
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const name of ['scrape', 'batch_scrape', 'crawl', 'crawl_status', 'crawl_pages', 'map', 'search', 'serp', 'places_search', 'extract', 'parse', 'monitor_create', 'monitor_list', 'monitor_run', 'monitor_checks', 'mention_watch_create', 'mention_watch_list', 'mentions_list', 'domain', 'company', 'products', 'posts', 'social']) {
        expect(names).toContain(name);
      }
      // Find Leads: its sources, a run's start, status and cancel.
      expect(names).toEqual(expect.arrayContaining(['leads_sources', 'find_leads', 'leads_status', 'leads_cancel']));
      const sources = dataOf(await call(client, 'leads_sources', { country: 'US' }));
      expect(sources).toMatchObject({ country: 'US', sources: [{ key: 'osm', countries: ['*'] }] });
      const missing = await call(client, 'leads_status', { job_id: 'leads_00000000000000000000000000000000' });
      expect(missing.isError).toBe(true);
      const scrape = tools.find((t) => t.name === 'scrape')!;
      expect(scrape.inputSchema.required).toEqual(['url']);
      expect(Object.keys(scrape.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['url', 'formats', 'onlyMainContent', 'waitFor', 'actions']));
      const crawl = tools.find((t) => t.name === 'crawl')!;
      expect(Object.keys(crawl.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['url', 'limit', 'maxDepth', 'scrapeOptions', 'waitSeconds']));
      const pages = tools.find((t) => t.name === 'crawl_pages')!;
      expect(pages.inputSchema.required).toEqual(['job_id']);
      expect(Object.keys(pages.inputSchema.properties ?? {})).toEqual(['job_id', 'cursor', 'limit']);
    } finally {
      await client.close();
    }
  });

  it('scrapes, maps, searches and extracts through the API, answering text and structured content', async () => {
    const client = await httpClient();
    try {
      const scraped = dataOf(await call(client, 'scrape', { url: site.url('/html'), formats: ['markdown', 'links'] }));
      expect(scraped.markdown).toContain('Hello fixture');
      expect(scraped.metadata.title).toBe('Fixture');
      expect(scraped.cost).toMatchObject({ credits: 1 });

      const mapped = dataOf(await call(client, 'map', { url: mapSite.url('/'), limit: 20 }));
      expect(mapped.links[0].url).toBe(mapSite.url('/'));
      expect(mapped.links.length).toBeGreaterThan(5);

      const found = dataOf(await call(client, 'search', { query: 'hello fixture', limit: 3 }));
      expect(found.results.map((r: Json) => r.url)).toContain(site.url('/html'));
      expect(searxng.requests.length).toBeGreaterThan(0);

      const extracted = dataOf(await call(client, 'extract', { urls: [site.url('/html')], schema: { type: 'object', properties: { title: { type: 'string' } } } }));
      expect(extracted.results).toHaveLength(1);
      expect(extracted.results[0].url).toBe(site.url('/html'));
    } finally {
      await client.close();
    }
  });

  it('runs a crawl to its end, reporting MCP progress notifications, then pages it', async () => {
    const client = await httpClient();
    try {
      const progress: Progress[] = [];
      const result = (await client.callTool(
        { name: 'crawl', arguments: { url: mapSite.url('/'), ignoreSitemap: true, maxDepth: 1, limit: 8, waitSeconds: 90 } },
        undefined,
        { timeout: 120_000, resetTimeoutOnProgress: true, onprogress: (p) => progress.push(p) },
      )) as CallToolResult;
      const status = dataOf(result);
      expect(status.status).toBe('completed');
      expect(status.completed).toBe(8);
      expect(status.data.length).toBeGreaterThan(0);
      expectProgress(progress, 8);

      const again = dataOf(await call(client, 'crawl_status', { job_id: status.id }));
      expect(again).toMatchObject({ id: status.id, status: 'completed' });
      const paged = dataOf(await call(client, 'crawl_pages', { job_id: status.id, limit: 3 }));
      expect(paged.data).toHaveLength(3);
      expect(typeof paged.next).toBe('string');
    } finally {
      await client.close();
    }
  });

  it('parses an uploaded document and keeps monitors and watches per key', async () => {
    const client = await httpClient();
    try {
      const parsed = dataOf(await call(client, 'parse', { file: { name: 'notes.md', content: '# Field notes\n\nZebras are striped.\n', contentType: 'text/markdown' } }));
      expect(parsed.markdown).toContain('Zebras are striped.');
      expect(parsed.metadata.sourceURL).toBe('upload://notes.md');

      const monitor = dataOf(await call(client, 'monitor_create', { name: 'Fixture', url: site.url('/html'), intervalMinutes: 60 }));
      expect(monitor.id).toMatch(/^mon_/);
      const listed = dataOf(await call(client, 'monitor_list', {}));
      expect(listed.monitors.map((m: Json) => m.id)).toContain(monitor.id);
      const checks = dataOf(await call(client, 'monitor_checks', { monitor_id: monitor.id, limit: 5 }));
      expect(Array.isArray(checks.checks)).toBe(true);

      const watch = dataOf(await call(client, 'mention_watch_create', { name: 'Zebras', keywords: ['zebra'], platforms: ['web'] }));
      const watches = dataOf(await call(client, 'mention_watch_list', {}));
      expect(watches.watches.map((w: Json) => w.id)).toContain(watch.id);
      const mentions = dataOf(await call(client, 'mentions_list', { watch_id: watch.id, limit: 10 }));
      expect(Array.isArray(mentions.mentions)).toBe(true);
    } finally {
      await client.close();
    }
    // Another key sees none of them.
    const other = await httpClient(brokeKey);
    try {
      expect(dataOf(await call(other, 'monitor_list', {})).monitors).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("answers a job with waitSeconds 0 at once with its id", async () => {
    const client = await httpClient();
    try {
      const started = dataOf(await call(client, 'batch_scrape', { urls: [site.url('/html')], waitSeconds: 0 }));
      expect(typeof started.id).toBe('string');
      const ended = dataOf(await call(client, 'batch_status', { job_id: started.id }));
      expect(ended.id).toBe(started.id);
    } finally {
      await client.close();
    }
  });

  it('answers failures as isError results carrying our error code and message, and charges nothing for them', async () => {
    const client = await httpClient();
    try {
      const invalid = await call(client, 'scrape', { url: site.url('/html'), formats: ['nope'] });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toMatch(/^validation_failed: body\.formats/);
      expect((invalid.structuredContent as Json).error.code).toBe('validation_failed');

      const unknown = await call(client, 'crawl_status', { job_id: 'no-such-job' });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/^not_found: /);

      await expect(call(client, 'no_such_tool', {})).rejects.toThrow(/-32602|no tool no_such_tool/);

      // Arguments nested past BODY_MAX_DEPTH are refused before anything walks them.
      const nested = (depth: number): unknown => {
        let deep: unknown = 'x';
        for (let i = 0; i < depth; i += 1) deep = [deep];
        return deep;
      };
      const tooDeep = await call(client, 'scrape', { url: site.url('/html'), headers: nested(200) });
      expect(tooDeep.isError).toBe(true);
      expect(textOf(tooDeep)).toBe('validation_failed: the arguments nest objects and arrays deeper than 64 levels');
      // Far deeper than the SDK's own client can send: the same answer.
      const raw = await fetch(`${svc.base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${API_KEY}` },
        body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"scrape","arguments":{"url":"${site.url('/html')}","headers":${'['.repeat(20_000)}${']'.repeat(20_000)}}}}`,
      });
      expect(raw.status).toBe(200);
      expect(await raw.text()).toContain('validation_failed: the arguments nest objects and arrays deeper than 64 levels');

      const missing = await call(client, 'crawl_status', {});
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toContain('validation_failed: `job_id` is required');
    } finally {
      await client.close();
    }
    const broke = await httpClient(brokeKey);
    try {
      const refused = await call(broke, 'scrape', { url: site.url('/html') });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^insufficient_credits: /);
      expect(await brokeBalance()).toBe(0);
    } finally {
      await broke.close();
    }
  });
});

describe('e2e/mcp over stdio (web-data-service mcp)', () => {
  it('calls a running service given WDS_URL and WDS_API_KEY', async () => {
    const { client, stderr } = await stdioClient({ WDS_URL: svc.base, WDS_API_KEY: API_KEY });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['scrape', 'crawl', 'map', 'search']));
      const scraped = dataOf(await call(client, 'scrape', { url: site.url('/html') }));
      expect(scraped.markdown).toContain('Hello fixture');
      const mapped = dataOf(await call(client, 'map', { url: mapSite.url('/'), limit: 5 }));
      expect(mapped.links).toHaveLength(5);
      const unknown = await call(client, 'monitor_get', { monitor_id: 'no-such-monitor' });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toMatch(/^not_found: /);
      expect(stderr()).toContain(`calling the service at ${svc.base}`);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('with a wrong WDS_API_KEY, every call is an isError result with invalid_api_key', async () => {
    const { client } = await stdioClient({ WDS_URL: svc.base, WDS_API_KEY: 'wds_wrong-key-of-nobody' });
    try {
      const refused = await call(client, 'scrape', { url: site.url('/html') });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^invalid_api_key: /);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('answers service_unreachable when nothing listens at WDS_URL', async () => {
    const { client } = await stdioClient({ WDS_URL: 'http://127.0.0.1:1', WDS_API_KEY: API_KEY });
    try {
      const result = await call(client, 'map', { url: mapSite.url('/') });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/^service_unreachable: could not reach the Web Data Service/);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('without WDS_URL runs the embedded service itself, whose store takes inserts, and stops it on close', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wds-mcp-stdio-'));
    try {
      const { client, stderr } = await stdioClient({ DATA_DIR: dataDir, FETCH_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'info' });
      try {
        const scraped = dataOf(await call(client, 'scrape', { url: site.url('/html'), formats: ['markdown'] }));
        expect(scraped.markdown).toContain('Hello fixture');
        // A crawl writes its pages to the store (chdb inserts) and reads them back.
        const progress: Progress[] = [];
        const crawled = dataOf(
          (await client.callTool({ name: 'crawl', arguments: { url: mapSite.url('/'), ignoreSitemap: true, maxDepth: 1, limit: 4 } }, undefined, {
            timeout: 120_000,
            onprogress: (p) => progress.push(p),
          })) as CallToolResult,
        );
        expect(crawled).toMatchObject({ status: 'completed', completed: 4 });
        expect(crawled.data).toHaveLength(4);
        expectProgress(progress, 4);
        // The cached scrape is read back from the store.
        const cached = dataOf(await call(client, 'scrape', { url: site.url('/html'), formats: ['markdown'] }));
        expect(cached.markdown).toContain('Hello fixture');
        const err = stderr();
        expect(err).toMatch(/embedded service listening on http:\/\/127\.0\.0\.1:\d+/);
        // The service's own log lines went to standard error too.
        expect(err).toContain('"msg":"starting"');
      } finally {
        await client.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);

  it('stops the embedded service when the stdio process is killed outright', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'wds-mcp-kill-'));
    try {
      const { client, stderr, pid } = await stdioClient({ DATA_DIR: dataDir });
      expect(dataOf(await call(client, 'templates', {})).templates.length).toBeGreaterThan(0);
      const base = /embedded service listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr())?.[1] ?? '';
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      process.kill(pid as number, 'SIGKILL');
      // The service sees its IPC channel close and stops: its port stops answering.
      const deadline = Date.now() + 30_000;
      let up = true;
      while (up && Date.now() < deadline) {
        up = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
          () => true,
          () => false,
        );
        if (up) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(up).toBe(false);
      await client.close().catch(() => undefined);
    } finally {
      // The service may still be closing its store as its port goes quiet: removal retries meanwhile.
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
    }
  }, 120_000);
});
