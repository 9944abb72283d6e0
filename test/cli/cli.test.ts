/**
 * The command line in-process (cli/index.ts `runCli`) against a stand-in for the service: a
 * local HTTP server that records each request and answers envelopes. What it checks is the
 * command line's own work: the request each command makes from its arguments and generated
 * flags, `--help` with examples on every command, every operation reachable from a command,
 * the exit code of each kind of failure, and what `-o DIR` writes (CSV with attribution
 * notices, page files whose paths stay inside DIR). test/e2e/cli.test.ts runs it against the
 * real service, in a terminal and with pipes.
 */
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { exitCodeOf } from '../../cli/client.js';
import { COMMANDS, GROUPS } from '../../cli/commands.js';
import { runCli, type CliHost } from '../../cli/index.js';
import { pageFilePath, toCsv } from '../../cli/output.js';
import { createProgress } from '../../cli/progress.js';
import { OPERATIONS } from '../../schemas/api/operations.js';

interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  body: string;
}

let server: http.Server;
let base = '';
const seen: Seen[] = [];
let answer: (req: Seen) => { status: number; body: unknown } = () => ({ status: 200, body: { success: true, data: {} } });
const dirs: string[] = [];

const host: CliHost = {
  version: '0.0.0-test',
  script: 'main.ts',
  serve: () => Promise.reject(new Error('not in this test')),
  mcp: () => Promise.reject(new Error('not in this test')),
  environment: { url: undefined, apiKey: undefined, env: {} },
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('latin1').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, body };
      seen.push(s);
      const { status, body: out } = answer(s);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

afterEach(() => {
  seen.length = 0;
  vi.restoreAllMocks();
});

/** Runs the command line in this process; what it wrote. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const text = (chunk: string | Uint8Array) => (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += text(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += text(chunk)), true));
  try {
    const code = await runCli(args, host);
    return { code, out, err };
  } finally {
    vi.restoreAllMocks();
  }
}

const svc = ['--url', '', '--key', 'wds_test-key'];
const withService = (...args: string[]) => cli(...args, ...svc.map((a) => a || base));
const ok = (data: unknown) => ({ status: 200, body: { success: true, data } });

describe('cli/index: requests', () => {
  it('builds the body from the positional argument and the flags generated from the schema', async () => {
    answer = () => ok({ id: 'crawl_1', url: 'x' });
    const r = await withService('crawl', 'https://example.com', '--limit', '3', '--no-ignore-sitemap', '--include-paths', '^/a', '--include-paths', '^/b{1,2}', '--deduplicate-similar-urls', '--scrape-options', '{"formats":["links"]}', '--no-wait');
    expect(r.code, r.err).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/crawl', auth: 'Bearer wds_test-key' });
    expect(JSON.parse(seen[0]!.body)).toEqual({
      url: 'https://example.com',
      limit: 3,
      ignoreSitemap: false,
      includePaths: ['^/a', '^/b{1,2}'],
      deduplicateSimilarURLs: true,
      scrapeOptions: { formats: ['links'] },
    });
    expect(JSON.parse(r.out)).toEqual({ id: 'crawl_1', url: 'x' });
  });

  it('takes format names comma-separated or as JSON objects, and --data under the flags', async () => {
    answer = () => ok({ markdown: '# Hi' });
    await withService('scrape', 'https://example.com', '--formats', 'markdown,links', '--formats', '{"type":"json","template":"article"}', '--data', '{"onlyMainContent":false,"formats":["html"]}');
    expect(JSON.parse(seen[0]!.body)).toEqual({ url: 'https://example.com', onlyMainContent: false, formats: ['markdown', 'links', { type: 'json', template: 'article' }] });
  });

  it('puts path parameters in the path and the rest of a GET in the query', async () => {
    answer = () => ok({ mentions: [] });
    await withService('mentions', 'list', '--watch-id', 'wat_1', '--category', 'complaint', '--limit', '5');
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/v1/mentions?watch_id=wat_1&category=complaint&limit=5' });
    answer = () => ok({ id: 'mon_1' });
    await withService('monitor', 'run', 'mon/1');
    expect(seen[1]).toMatchObject({ method: 'POST', url: '/v1/monitor/mon%2F1/run' });
  });
});

describe('cli/run: uploads and raw bytes', () => {
  it('parse sends the file as the multipart upload', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wds-cli-unit-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'notes.md'), '# Field notes\n');
    answer = () => ok({ markdown: '# Field notes', metadata: { sourceURL: 'upload://notes.md' } });
    const r = await withService('parse', join(dir, 'notes.md'));
    expect(r.code, r.err).toBe(0);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/parse' });
    expect(seen[0]!.body).toMatch(/Content-Disposition: form-data; name="file"; filename="notes.md"\r\n[\s\S]*# Field notes\n/);
    const missing = await withService('parse', join(dir, 'nope.pdf'));
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('cannot read');
  });

  it('fetch writes the bytes as they came', async () => {
    answer = () => ({ status: 200, body: 'raw-bytes' });
    const r = await withService('fetch', 'https://example.com/a.bin');
    expect(r.code).toBe(0);
    expect(seen[0]!.url).toBe(`/v1/fetch?url=${encodeURIComponent('https://example.com/a.bin')}`);
    expect(r.out).toBe('"raw-bytes"');
  });
});

describe('cli/commands: help and coverage', () => {
  const all = [...COMMANDS.map((c) => [c.name]), ...GROUPS.flatMap((g) => g.commands.map((c) => [g.name, c.name]))];

  it.each(all)('%s %s --help shows usage and examples, exit 0', async (...names: string[]) => {
    const words = names.filter((n) => typeof n === 'string');
    const r = await cli(...words, '--help');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Usage: web-data-service ${words.join(' ')}`);
    expect(r.out).toMatch(new RegExp(`Examples:\\n  \\$ web-data-service ${words.join(' ')}( |\\n)`));
  });

  it('serve --help and keys --help show their usage without starting anything', async () => {
    const serve = await cli('serve', '--help');
    expect(serve.code).toBe(0);
    expect(serve.out).toContain('Usage: web-data-service serve [options]');
    expect(serve.out).toContain('$ web-data-service serve --role fetcher');
    const keys = await cli('keys', '--help');
    expect(keys.code).toBe(0);
    expect(keys.out).toContain('create --name NAME [--credits N|unlimited]');
  });

  it('lists every command, the exit codes, keys, serve and mcp in the top help', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    for (const name of [...COMMANDS.map((c) => c.name), ...GROUPS.map((g) => g.name), 'keys', 'serve', 'mcp']) expect(r.out).toMatch(new RegExp(`^  ${name} `, 'm'));
    expect(r.out).toContain('3  partial');
  });

  it('reaches every operation but those the job commands call for themselves and the unauthenticated source offer', () => {
    const reached = new Set([...COMMANDS, ...GROUPS.flatMap((g) => g.commands)].map((c) => c.operation));
    const left = OPERATIONS.map((o) => o.id).filter((id) => !reached.has(id));
    // crawlPages/batchPages: read by crawl and batch when the job ends; watchTestUnsaved: `watch test` of a saved watch covers the operation's use from a terminal.
    expect(left.sort()).toEqual(['batchPages', 'crawlPages', 'source', 'watchTestUnsaved']);
  });
});

describe('cli/client: exit codes', () => {
  it('maps envelope codes by their status: 2 bad input, 4 refused, 5 unavailable, 1 otherwise', () => {
    expect(exitCodeOf('validation_failed', 422)).toBe(2);
    expect(exitCodeOf('not_found', 404)).toBe(2);
    expect(exitCodeOf('insufficient_credits', 402)).toBe(4);
    expect(exitCodeOf('url_blocked', 403)).toBe(4);
    expect(exitCodeOf('rate_limited', 429)).toBe(4);
    expect(exitCodeOf('service_unavailable', 503)).toBe(5);
    expect(exitCodeOf('not_implemented', 501)).toBe(5);
    expect(exitCodeOf('upstream_error', 502)).toBe(1);
  });

  it('answers a 422 detail as bad input, an unknown flag as bad input, a missing key with --url as bad input', async () => {
    answer = () => ({ status: 422, body: { detail: [{ loc: ['body', 'url'], msg: 'must be a URL', type: 'url_invalid' }] } });
    const bad = await withService('map', 'nope');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('validation_failed: body.url: must be a URL');
    expect((await withService('map', 'https://example.com', '--frobnicate')).code).toBe(2);
    const noKey = await cli('map', 'https://example.com', '--url', base);
    expect(noKey.code).toBe(2);
    expect(noKey.err).toContain('a key is required');
  });
});

describe('cli/output: files', () => {
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'wds-cli-unit-'));
    dirs.push(d);
    return d;
  };

  it('writes a finished leads run as CSV with its attribution notices beside it', async () => {
    const dir = tempDir();
    answer = () =>
      ok({
        id: 'leads_1',
        status: 'completed',
        partial: false,
        limit: 2,
        leads: [
          { id: 'osm:1', name: 'Dent, "Smile"', address: { street: '1 Rue', locality: 'Lyon' }, phone: '+33 1', sources: ['osm'] },
          { id: 'osm:2', name: '=HYPERLINK("x")', address: null, phone: null, sources: ['osm', 'sirene'] },
        ],
        summary: { attribution: [{ source: 'osm', text: '© OpenStreetMap contributors', license: 'ODbL-1.0', url: 'https://www.openstreetmap.org/copyright' }] },
      });
    const r = await withService('leads-status', 'leads_1', '--wait', '-o', dir);
    expect(r.code, r.err).toBe(0);
    const csv = readFileSync(join(dir, 'leads.csv'), 'utf8').split('\r\n');
    expect(csv[0]).toBe('id,name,address.street,address.locality,phone,sources');
    expect(csv[1]).toBe('osm:1,"Dent, ""Smile""",1 Rue,Lyon,+33 1,osm');
    expect(csv[2]).toBe(`osm:2,"'=HYPERLINK(""x"")",,,,osm; sirene`);
    expect(readFileSync(join(dir, 'leads.ATTRIBUTION.txt'), 'utf8')).toContain('© OpenStreetMap contributors (ODbL-1.0) https://www.openstreetmap.org/copyright');
    expect(r.err).toContain('attribution: © OpenStreetMap contributors');
  });

  it('derives page paths from URLs that stay inside the directory', () => {
    const dir = resolve(tempDir());
    expect(pageFilePath(dir, 'https://example.com/')).toBe(join(dir, 'example.com/index.md'));
    expect(pageFilePath(dir, 'https://example.com/docs/intro.html')).toBe(join(dir, 'example.com/docs/intro.md'));
    expect(pageFilePath(dir, 'http://localhost:8080/a/b/')).toBe(join(dir, 'localhost_8080/a/b/index.md'));
    for (const url of ['https://example.com/a/%2e%2e/%2e%2e/%2e%2e/etc/passwd', 'https://example.com/..%2F..%2Fetc', 'https://example.com/%2Fetc%2Fpasswd', 'not a url/../../x']) {
      const file = pageFilePath(dir, url);
      expect(file.startsWith(`${dir}/`), url).toBe(true);
      expect(file.split('/').includes('..'), url).toBe(false);
    }
    expect(pageFilePath(dir, 'https://example.com/s?q=1')).not.toBe(pageFilePath(dir, 'https://example.com/s?q=2'));
  });

  it('writes a scrape with -o as its page file and nothing on standard output', async () => {
    const dir = tempDir();
    answer = () => ok({ markdown: '# Hello', metadata: { sourceURL: 'https://example.com/hello', title: 'Hello' } });
    const r = await withService('scrape', 'https://example.com/hello', '-o', dir);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(readFileSync(join(dir, 'example.com/hello.md'), 'utf8')).toBe('---\nurl: "https://example.com/hello"\ntitle: "Hello"\n---\n\n# Hello\n');
    expect(existsSync(join(dir, 'scrape.json'))).toBe(false);
  });

  it('writes an answer that is neither a page nor a table as DIR/<operation>.json', async () => {
    const dir = tempDir();
    answer = () => ok({ monitors: [{ id: 'mon_1', name: 'Pricing' }] });
    const r = await withService('monitor', 'list', '-o', dir);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'monitorList.json'), 'utf8'))).toEqual({ monitors: [{ id: 'mon_1', name: 'Pricing' }] });
    expect(r.err).toContain('monitorList.json');
  });

  it('quotes CSV cells with commas, quotes and line breaks, and formulas as text', () => {
    expect(toCsv([{ a: 'x,y', b: 'say "hi"', c: 'two\nlines' }])).toBe('a,b,c\r\n"x,y","say ""hi""","two\nlines"\r\n');
    // Formulas are quoted as text; numbers and phone numbers are not.
    expect(toCsv([{ n: '-4.5', p: '+1 (555) 010-2000', f: '+SUM(A1)', g: '@cmd' }])).toBe("n,p,f,g\r\n-4.5,+1 (555) 010-2000,'+SUM(A1),'@cmd\r\n");
  });
});

describe('cli/progress', () => {
  it('prints a plain line each time a count changes when not on a terminal, rate and ETA from the clock given', () => {
    let now = 1_000_000;
    let text = '';
    const stream = { write: (chunk: string) => ((text += chunk), true) } as unknown as NodeJS.WritableStream;
    const progress = createProgress({ label: 'crawl_1', unit: 'pages', tty: false, stream, now: () => now });
    progress.update({ done: 0, total: 10, errors: 0, status: 'scraping' });
    now += 2_000;
    progress.update({ done: 4, total: 10, errors: 1, status: 'scraping' });
    progress.update({ done: 4, total: 10, errors: 1, status: 'scraping' });
    now += 2_000;
    progress.update({ done: 10, total: 10, errors: 1, status: 'completed' });
    progress.stop();
    expect(text.split('\n')).toEqual([
      'crawl_1: scraping, 0/10 pages, 0.0 pages/s, ETA ?, 0 errors',
      'crawl_1: scraping, 4/10 pages, 2.0 pages/s, ETA 3s, 1 errors',
      'crawl_1: completed, 10/10 pages, 2.5 pages/s, ETA 0s, 1 errors',
      '',
    ]);
  });
});
