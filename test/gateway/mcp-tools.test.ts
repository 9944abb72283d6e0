/**
 * The MCP tools (gateway/mcp/tools.ts) without a service: each tool's input schema is a JSON
 * Schema an MCP client can compile, generated from its operation's schemas under the API's
 * field names; a call's arguments become the operation's path, query and body; docs/mcp.md
 * lists every tool.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../schemas/api/operations.js';
import { requestFor, ToolInputError, TOOLS, type Tool } from '../../gateway/mcp/tools.js';
import { REPO_ROOT } from '../helpers/process.js';

const tool = (name: string): Tool => {
  const found = TOOLS.find((t) => t.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
};

describe('gateway/mcp/tools', () => {
  it('names each tool once, each for an operation of the contract', () => {
    const names = TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z_]{1,63}$/);
    const ids = new Set<string>(OPERATIONS.map((op) => op.id));
    for (const t of TOOLS) expect(ids.has(t.operation)).toBe(true);
    expect(TOOLS.filter((t) => t.operation.startsWith('leads')).map((t) => t.name)).toEqual(['leads_sources', 'find_leads', 'leads_status', 'leads_cancel']);
  });

  it('gives every tool an object input schema that compiles, its required fields among its properties', () => {
    const ajv = new Ajv({ strict: false, logger: false });
    for (const t of TOOLS) {
      expect(t.inputSchema.type, t.name).toBe('object');
      for (const r of t.inputSchema.required ?? []) expect(Object.keys(t.inputSchema.properties), `${t.name}: ${r}`).toContain(r);
      expect(() => ajv.compile(t.inputSchema), t.name).not.toThrow();
      // Plain JSON: no TypeBox symbol survives the listing.
      expect(JSON.parse(JSON.stringify(t.inputSchema))).toEqual(t.inputSchema);
    }
  });

  it("takes the operation's own fields: the body's, the query's and the path's", () => {
    const ajv = new Ajv({ strict: false, logger: false });
    const scrape = ajv.compile(tool('scrape').inputSchema);
    expect(scrape({ url: 'https://example.com/', formats: ['markdown'] })).toBe(true);
    expect(scrape({ formats: ['markdown'] })).toBe(false);
    expect(Object.keys(tool('mentions_list').inputSchema.properties)).toEqual(['watch_id', 'category', 'platform', 'status', 'since', 'cursor', 'limit']);
    expect(tool('monitor_run').inputSchema).toMatchObject({ required: ['monitor_id'], additionalProperties: false });
    expect(tool('crawl').inputSchema.properties.waitSeconds).toMatchObject({ type: 'integer', minimum: 0, maximum: 600 });
    expect(tool('scrape').inputSchema.properties.waitSeconds).toBeUndefined();
  });

  it('makes a call one request: path parameters encoded into the path, the query into the query string, the rest as the JSON body', () => {
    expect(requestFor(tool('crawl_pages'), { job_id: 'a/b c', cursor: 'xyz', limit: 3 })).toEqual({
      method: 'GET',
      url: '/v1/crawl/a%2Fb%20c/pages?cursor=xyz&limit=3',
      headers: {},
    });
    const crawl = requestFor(tool('crawl'), { url: 'https://example.com/', limit: 5, waitSeconds: 10 });
    expect(crawl).toMatchObject({ method: 'POST', url: '/v1/crawl', headers: { 'content-type': 'application/json' } });
    expect(JSON.parse(crawl.body as string)).toEqual({ url: 'https://example.com/', limit: 5 });
    const social = requestFor(tool('social'), { platform: 'hackernews', endpoint: 'item', id: '1' });
    expect(social.url).toBe('/v1/social/hackernews/item');
    expect(JSON.parse(social.body as string)).toEqual({ id: '1' });
    // A field the operation does not take is left in the body for the API to refuse (422).
    expect(JSON.parse(requestFor(tool('map'), { url: 'https://example.com/', nope: 1 }).body as string)).toEqual({ url: 'https://example.com/', nope: 1 });
  });

  it('refuses a missing path parameter, and a field an operation without a body does not take', () => {
    expect(() => requestFor(tool('crawl_status'), {})).toThrow(ToolInputError);
    expect(() => requestFor(tool('crawl_status'), { job_id: '' })).toThrow(/`job_id` is required/);
    expect(() => requestFor(tool('monitor_list'), { limit: 5 })).toThrow(/`limit`: not an input of monitor_list/);
  });

  it("sends parse's file as the multipart upload POST /v1/parse takes, text or base64", () => {
    const text = requestFor(tool('parse'), { file: { name: 'notes.md', content: '# Hi\n', contentType: 'text/markdown' } });
    expect(text).toMatchObject({ method: 'POST', url: '/v1/parse' });
    const boundary = /boundary=(\S+)$/.exec(text.headers['content-type'] ?? '')?.[1] ?? '';
    expect(boundary).not.toBe('');
    const body = (text.body as Buffer).toString('utf8');
    expect(body).toBe(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.md"\r\nContent-Type: text/markdown\r\n\r\n# Hi\n\r\n--${boundary}--\r\n`);
    const pdfBytes = Buffer.from('%PDF-1.4 \u0000\u00ff binary', 'latin1');
    const binary = requestFor(tool('parse'), { file: { name: 'a"b.pdf', content: pdfBytes.toString('base64'), encoding: 'base64', contentType: 'application/pdf' } });
    const raw = binary.body as Buffer;
    expect(raw.includes(pdfBytes)).toBe(true);
    expect(raw.toString('latin1')).toContain('filename="a_b.pdf"');
    expect(() => requestFor(tool('parse'), { file: { name: 'x.txt' } })).toThrow(/file\.content/);
    expect(() => requestFor(tool('parse'), {})).toThrow(/`file` is required/);
  });

  it('docs/mcp.md lists every tool with its operation', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/mcp.md'), 'utf8');
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| `([A-Z]+) ([^`]+)` \|/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    const expected = TOOLS.map((t) => {
      const op = OPERATIONS.find((o) => o.id === t.operation)!;
      return `${t.name} ${op.method} ${op.path}`;
    });
    expect(rows).toEqual(expected);
  });
});
