/**
 * Firecrawl's own MCP server (`firecrawl-mcp`, a pinned dev dependency) pointed at the service
 * with FIRECRAWL_API_URL=<service>/firecrawl and the service's key as FIRECRAWL_API_KEY,
 * spawned over stdio and driven by the official MCP SDK's client (issue 32): its scrape, map,
 * crawl (started, polled to the end) and search tools answer with the local site's pages, and
 * a refused option comes back as the tool's error.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedded, type Embedded } from '../helpers/embedded.js';
import { startFakeSearxng, type FakeSearch } from '../helpers/fake-search.js';
import { startFirecrawlSite, type FirecrawlSite } from '../helpers/firecrawl-site.js';

const API_KEY = 'e2e-firecrawl-mcp-key-0123456789';
const require = createRequire(import.meta.url);
const MCP_SERVER = join(dirname(require.resolve('firecrawl-mcp/package.json')), 'dist', 'index.js');

let site: FirecrawlSite;
let searxng: FakeSearch;
let svc: Embedded;
let client: Client;
let stderr = '';

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: Record<string, any> };

/** A tool's answer: its structured content, or its text parsed. */
async function call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; value: any; text: string }> {
  const result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as ToolResult;
  const text = result.content.map((c) => c.text ?? '').join('\n');
  let value: unknown = result.structuredContent;
  if (value === undefined) {
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
  }
  return { isError: result.isError === true, value, text };
}

beforeAll(async () => {
  site = await startFirecrawlSite();
  searxng = await startFakeSearxng({ results: [{ url: site.url('/about'), title: 'About the fixture shop', snippet: 'We sell kettles since 1999.' }] });
  svc = await startEmbedded({ apiKey: API_KEY, env: { FETCH_ALLOW_PRIVATE: 'true', SEARCH_PROVIDERS: 'searxng', SEARXNG_URL: searxng.url } });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_SERVER],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', FIRECRAWL_API_URL: `${svc.base}/firecrawl`, FIRECRAWL_API_KEY: API_KEY },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  client = new Client({ name: 'wds-e2e', version: '1.0.0' });
  await client.connect(transport);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await svc?.stop();
  await Promise.all([site?.close(), searxng?.close()]);
});

describe('e2e/firecrawl-mcp against /firecrawl', () => {
  it('lists the scrape, map, crawl and search tools', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['firecrawl_scrape', 'firecrawl_map', 'firecrawl_crawl', 'firecrawl_check_crawl_status', 'firecrawl_search']));
  });

  it('scrapes a page', async () => {
    const { isError, text } = await call('firecrawl_scrape', { url: site.url('/about'), formats: ['markdown'], maxAge: 0 });
    expect(isError, `${text}\n${stderr}`).toBe(false);
    expect(text).toContain('We sell kettles since 1999');
  }, 120_000);

  it('maps a site', async () => {
    const { isError, text } = await call('firecrawl_map', { url: site.url('/'), search: 'blog' });
    expect(isError, `${text}\n${stderr}`).toBe(false);
    expect(text).toContain(site.url('/blog/one'));
    expect(text).toContain(site.url('/blog/two'));
  }, 120_000);

  it('crawls a site to the end, and reads the crawl\'s status', async () => {
    const { isError, value, text } = await call('firecrawl_crawl', { url: site.url('/'), limit: 5, sitemap: 'skip', scrapeOptions: { formats: ['markdown'] } });
    expect(isError, `${text}\n${stderr}`).toBe(false);
    expect(value.status).toBe('completed');
    expect(value.data.map((d: any) => d.metadata.sourceURL).sort()).toEqual(['/', '/about', '/blog/one', '/blog/two', '/product'].map((p) => site.url(p)).sort());
    const status = await call('firecrawl_check_crawl_status', { id: value.id });
    expect(status.isError, status.text).toBe(false);
    expect(status.value).toMatchObject({ status: 'completed', total: 5, completed: 5 });
  }, 180_000);

  it('searches the web (its default tool-exchange source refused as Firecrawl refuses it, then the web alone)', async () => {
    const { isError, text } = await call('firecrawl_search', { query: 'kettles', limit: 1 });
    expect(isError, `${text}\n${stderr}`).toBe(false);
    expect(text).toContain(site.url('/about'));
    expect(text).toContain('About the fixture shop');
  }, 120_000);

  it('answers a refused option as the tool\'s error', async () => {
    const { isError, text } = await call('firecrawl_crawl', { url: site.url('/'), allowSubdomains: true });
    expect(isError).toBe(true);
    expect(text).toMatch(/firecrawl_crawl.*(allowSubdomains|400)/s);
  }, 60_000);
});
