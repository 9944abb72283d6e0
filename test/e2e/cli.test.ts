/**
 * The command line (cli/, docs/cli.md) as a person and a script use it, against the service
 * with the production actors in embedded mode and local sites:
 *
 * - in a real pseudo-terminal (util-linux `script`): a crawl draws its progress bar and
 *   finishes it (8/8 pages, completed, the cursor shown again), and `-o DIR` writes one .md
 *   file per page, its path from the page's URL; Ctrl-C on a slow crawl asks whether to
 *   cancel it, and `y` cancels the job (the service says `cancelled`), exit 3; `n` keeps
 *   following it and `q` quits leaving it running (exit 130), as SIGINT does without a terminal;
 * - with pipes: JSON lines on standard output (one page a line), plain progress lines on
 *   standard error, no terminal escapes; WDS_URL and WDS_API_KEY from the environment;
 * - exit codes: 2 for bad input (a usage error, a URL the API refuses as invalid, an unknown
 *   job), 4 refused (a key out of credits, an unknown key), 5 for a service that is not there;
 * - without --url, the embedded service run by the command itself (a child process, the same
 *   code `npm start` runs) scrapes a local page;
 * - `keys` on the running service's DATA_DIR, and `serve` starting the service.
 */
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { spawnTs } from '../helpers/process.js';
import { meteredKey, startEmbedded, type Embedded } from '../helpers/embedded.js';
import { startFixtureSite, type FixtureSite } from '../helpers/fixture-site.js';
import { startMapSite, type MapSite } from '../helpers/map-site.js';

const API_KEY = 'e2e-cli-key-0123456789';

let site: MapSite;
let slow: SlowSite;
let fixture: FixtureSite;
let svc: Embedded;
let brokeKey = '';
let brokeBalance: () => Promise<number | null>;
const dirs: string[] = [];

const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'wds-cli-'));
  dirs.push(dir);
  return dir;
};

function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  return out.sort();
}

interface SlowSite {
  url(path: string): string;
  close(): Promise<void>;
}

/**
 * A start page linking ten pages that answer far later than a test waits (15 s; the Ctrl-C
 * tests take 2-7 s each), so a crawl of it is still running at Ctrl-C. Addressed as 127.0.0.1,
 * another host than the map site's `localhost`, so its pages in flight never hold back the
 * other crawls' per-host slots. Not longer: a cancelled crawl's pages still in flight hold
 * fetcher slots until they answer (and, until the bus ran a partition's keys side by side,
 * held their partitions: the next test's start page waited 44.8 s behind one at 45 s).
 */
const SLOW_PAGE_MS = 15_000;

async function startSlowSite(): Promise<SlowSite> {
  const server = http.createServer((req, res) => {
    const home = req.url === '/';
    const body = home
      ? `<html><head><title>Slow home</title></head><body>${Array.from({ length: 10 }, (_, i) => `<a href="/slow/${i}">page ${i}</a>`).join(' ')}</body></html>`
      : `<html><head><title>Slow ${req.url}</title></head><body><p>Slow page.</p></body></html>`;
    const answer = () => {
      if (!res.destroyed) res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    };
    if (home) answer();
    else setTimeout(answer, SLOW_PAGE_MS).unref();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[/;

beforeAll(async () => {
  [site, slow, fixture] = await Promise.all([
    // Pages a little slow, so the bar is drawn more than once.
    startMapSite({ robots: false, sitemaps: false, delayMs: (path) => (path === '/' ? 0 : 150) }),
    startSlowSite(),
    startFixtureSite(),
  ]);
  svc = await startEmbedded({
    apiKey: API_KEY,
    env: { FETCH_ALLOW_PRIVATE: 'true' },
    before: async (config) => void ({ key: brokeKey, balance: brokeBalance } = await meteredKey(config.dataDir, 0)),
  });
}, 120_000);

afterAll(async () => {
  // The sites first: the slow site's pages still in flight fail at once rather than hold the stop.
  await Promise.all([site?.close(), slow?.close(), fixture?.close()]);
  await svc?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('e2e/cli in a terminal', () => {
  it('crawls a local site with a progress bar drawn and finished, writing one .md file per page with -o', async () => {
    const out = tempDir();
    const run = await runCli(['crawl', site.url('/'), '--ignore-sitemap', '--max-depth', '1', '--limit', '8', '-o', out, '--url', svc.base, '--key', API_KEY], { tty: true });
    expect(run.code, run.stdout).toBe(0);
    const screen = run.stdout;
    // The bar is redrawn in place (cursor to column 1, line erased) and ends full.
    const frames = screen.split('\x1b[1G').filter((f) => /pages \|/.test(f));
    expect(frames.length).toBeGreaterThan(1);
    expect(frames.at(-1)).toMatch(/crawl_\S+ =+ 8\/8 pages \| [\d.]+ pages\/s \| ETA 0s \| 0 errors \| completed/);
    expect(screen).toContain('\x1b[?25h'); // the cursor shown again
    expect(screen).toMatch(/crawl crawl_\S+ completed: 8 pages, written under /);

    const written = files(out);
    expect(written).toHaveLength(8);
    const host = `localhost_${site.port}`;
    expect(written).toContain(`${host}/index.md`);
    expect(written.every((f) => f.startsWith(`${host}/`) && f.endsWith('.md'))).toBe(true);
    const home = readFileSync(join(out, host, 'index.md'), 'utf8');
    expect(home.startsWith(`---\nurl: "${site.url('/')}"\n`)).toBe(true);
    const page = written.find((f) => f.startsWith(`${host}/page/`)) as string;
    expect(readFileSync(join(out, page), 'utf8')).toMatch(/^---\nurl: "http:\/\/localhost:\d+\/page\/\d+"\n/);
  }, 120_000);

  it('shows records as numbered lines and a page as its markdown on a terminal', async () => {
    const env = { WDS_URL: svc.base, WDS_API_KEY: API_KEY };
    const mapped = await runCli(['map', site.url('/'), '--limit', '3'], { tty: true, env });
    expect(mapped.code, mapped.stdout).toBe(0);
    const home = site.url('/').replace(/[.]/g, '\\.');
    expect(mapped.stdout).toMatch(new RegExp(`^  1\\. Map fixture home  ${home}\\r?$`, 'm'));
    expect(mapped.stdout).toMatch(/^3 links\r?$/m);
    const scraped = await runCli(['scrape', fixture.url('/html')], { tty: true, env });
    expect(scraped.code, scraped.stdout).toBe(0);
    expect(scraped.stdout).toMatch(/^# Hello fixture/m);
    expect(scraped.stdout).not.toContain('"markdown"');
  }, 120_000);
});

describe('e2e/cli with pipes', () => {
  it('writes JSON lines, one page a line, and plain progress lines, with WDS_URL and WDS_API_KEY', async () => {
    const run = await runCli(['crawl', site.url('/'), '--ignore-sitemap', '--max-depth', '1', '--limit', '5'], { env: { WDS_URL: svc.base, WDS_API_KEY: API_KEY } });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    const docs = lines.map((l) => JSON.parse(l) as { markdown: string; metadata: { sourceURL: string } });
    expect(docs.map((d) => d.metadata.sourceURL)).toContain(site.url('/'));
    expect(docs.every((d) => typeof d.markdown === 'string')).toBe(true);
    expect(run.stderr).toMatch(/^crawl_\w+: completed, 5\/5 pages, [\d.]+ pages\/s, ETA 0s, 0 errors$/m);
    expect(ESCAPES.test(run.stdout) || ESCAPES.test(run.stderr)).toBe(false);
  }, 120_000);

  it('runs a batch scrape to its end, one JSON line per page', async () => {
    const urls = [site.url('/page/1'), site.url('/page/2'), site.url('/page/3')];
    const run = await runCli(['batch', ...urls, '--url', svc.base, '--key', API_KEY]);
    expect(run.code, run.stderr).toBe(0);
    const docs = run.stdout.trim().split('\n').map((l) => JSON.parse(l) as { metadata: { sourceURL: string } });
    expect(docs.map((d) => d.metadata.sourceURL).sort()).toEqual(urls);
    expect(run.stderr).toMatch(/^batch_\w+: completed, 3\/3 pages, [\d.]+ pages\/s, ETA 0s, 0 errors$/m);
  }, 120_000);

  it('answers a map as one JSON line per link, and a scrape as one line', async () => {
    const env = { WDS_URL: svc.base, WDS_API_KEY: API_KEY };
    const mapped = await runCli(['map', site.url('/'), '--limit', '5'], { env });
    expect(mapped.code, mapped.stderr).toBe(0);
    const links = mapped.stdout.trim().split('\n').map((l) => JSON.parse(l) as { url: string });
    expect(links).toHaveLength(5);
    expect(links[0]?.url).toBe(site.url('/'));
    const scraped = await runCli(['scrape', fixture.url('/html'), '--formats', 'markdown,links'], { env });
    expect(scraped.code, scraped.stderr).toBe(0);
    const doc = JSON.parse(scraped.stdout) as { markdown: string; links: string[] };
    expect(doc.markdown).toContain('Hello fixture');
    expect(Array.isArray(doc.links)).toBe(true);
  }, 120_000);
});

describe('e2e/cli exit codes', () => {
  const env = () => ({ WDS_URL: svc.base, WDS_API_KEY: API_KEY });

  it('exits 2 on bad input: a usage error, an invalid URL, an unknown job', async () => {
    const usage = await runCli(['scrape'], { env: env() });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("missing required argument 'url'");
    const flag = await runCli(['map', site.url('/'), '--limit', 'many'], { env: env() });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--limit takes a number');
    const invalid = await runCli(['scrape', 'not-a-url'], { env: env() });
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/validation_failed: .*url/);
    const unknown = await runCli(['crawl-status', 'crawl_00000000000000000000000000000000'], { env: env() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('not_found');
  }, 120_000);

  it('exits 4 when the request is refused, charging nothing, and 5 when no service answers', async () => {
    const broke = await runCli(['scrape', fixture.url('/html'), '--url', svc.base, '--key', brokeKey]);
    expect(broke.code).toBe(4);
    expect(broke.stderr).toContain('insufficient_credits');
    expect(await brokeBalance()).toBe(0);
    const wrong = await runCli(['scrape', fixture.url('/html'), '--url', svc.base, '--key', 'wds_not-a-key-of-this-service']);
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toContain('invalid_api_key');
    const gone = await runCli(['scrape', fixture.url('/html'), '--url', 'http://127.0.0.1:1', '--key', API_KEY]);
    expect(gone.code).toBe(5);
    expect(gone.stderr).toContain('service_unreachable');
  }, 120_000);
});

describe('e2e/cli without a service URL', () => {
  it('runs the embedded service itself (a child process) and scrapes a local page', async () => {
    const dataDir = tempDir();
    const run = await runCli(['scrape', fixture.url('/html'), '--json'], { env: { DATA_DIR: dataDir, FETCH_ALLOW_PRIVATE: 'true' } });
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as { markdown: string }).markdown).toContain('Hello fixture');
    expect(run.stderr).toContain('starting the embedded service');
  }, 180_000);
});

describe('e2e/cli keys and serve', () => {
  it('manages keys where the service keeps them, as npm run keys does', async () => {
    const created = await runCli(['keys', 'create', '--name', 'cli-made', '--credits', '7'], { env: { DATA_DIR: svc.dataDir, LOG_LEVEL: 'silent' } });
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim().split('\n').at(-1) as string;
    expect(key).toMatch(/^wds_/);
    const listed = await runCli(['keys', 'list'], { env: { DATA_DIR: svc.dataDir, LOG_LEVEL: 'silent' } });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/"cli-made"\t7\tactive/);
    // The running service takes the new key at once.
    const scraped = await runCli(['scrape', fixture.url('/html'), '--url', svc.base, '--key', key]);
    expect(scraped.code, scraped.stderr).toBe(0);
    expect((await runCli(['keys'], { env: { DATA_DIR: svc.dataDir } })).code).toBe(2);
  }, 120_000);

  it('serve starts the service as npm start does', async () => {
    const dataDir = tempDir();
    const served = spawnTs('main.ts', ['serve'], { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', API_KEY: API_KEY });
    try {
      const [, base] = await served.waitFor(/listening on (http:\/\/\S+)/, 120_000);
      const res = await fetch(`${base}/v1/templates`, { headers: { authorization: `Bearer ${API_KEY}` } });
      expect(res.status).toBe(200);
    } finally {
      expect((await served.stop(15_000)).code).toBe(0);
    }
  }, 180_000);
});

const statusOf = async (id: string): Promise<string> =>
  ((await (await fetch(`${svc.base}/v1/crawl/${id}`, { headers: { authorization: `Bearer ${API_KEY}` } })).json()) as { data: { status: string } }).data.status;

// Last: the crawls of the slow site keep pages in flight until the site closes.
describe('e2e/cli Ctrl-C on a crawl', () => {
  it('asks on Ctrl-C whether to cancel the crawl, and cancels it on y', async () => {
    const run = startCli(['crawl', slow.url('/'), '--ignore-sitemap', '--max-depth', '1', '--limit', '20', '--max-concurrency', '1', '--url', svc.base, '--key', API_KEY], { tty: true });
    const [, id] = await run.waitFor(/(crawl_\w+) started/);
    await run.waitFor(/1\/\d+ pages/);
    run.send('\x03');
    await run.waitFor(/Cancel crawl \S+\? \[y\] cancel it/);
    run.send('y\r');
    expect(await run.exited, run.stdout()).toBe(3);
    expect(run.stdout()).toContain(`crawl ${id} cancelled`);
    expect(run.stdout()).toMatch(new RegExp(`crawl ${id} cancelled: 1 page\\b`));
    const status = (await (await fetch(`${svc.base}/v1/crawl/${id}`, { headers: { authorization: `Bearer ${API_KEY}` } })).json()) as { data: { status: string } };
    expect(status.data.status).toBe('cancelled');
  }, 120_000);

  it('keeps following on n, and on q quits leaving the crawl running (exit 130)', async () => {
    const run = startCli(['crawl', slow.url('/'), '--ignore-sitemap', '--max-depth', '1', '--limit', '20', '--max-concurrency', '1', '--url', svc.base, '--key', API_KEY], { tty: true });
    const [, id] = await run.waitFor(/(crawl_\w+) started/);
    await run.waitFor(/1\/\d+ pages/);
    run.send('\x03');
    await run.waitFor(/Cancel crawl \S+\? /);
    run.send('n\r');
    await run.waitFor(/keeps running; following it again/);
    run.send('\x03');
    await run.waitFor(/keeps running; following it again[\s\S]*Cancel crawl \S+\? /);
    run.send('q\r');
    expect(await run.exited, run.stdout()).toBe(130);
    expect(run.stdout()).toContain(`crawl ${id} left running; follow it with \`web-data-service crawl-status ${id} --wait\``);
    expect(await statusOf(id as string)).toBe('scraping');
    await fetch(`${svc.base}/v1/crawl/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${API_KEY}` } });
  }, 120_000);

  it('without a terminal, SIGINT quits leaving the crawl running and says how to cancel it', async () => {
    const run = startCli(['crawl', slow.url('/'), '--ignore-sitemap', '--max-depth', '1', '--limit', '20', '--max-concurrency', '1', '--url', svc.base, '--key', API_KEY]);
    const started = await new Promise<string>((resolve, reject) => {
      const timer = setInterval(() => {
        const m = /(crawl_\w+): scraping, 1\//.exec(run.stderr());
        if (m) {
          clearInterval(timer);
          resolve(m[1] as string);
        }
      }, 50);
      void run.exited.then(() => {
        clearInterval(timer);
        reject(new Error(`exited early: ${run.stderr()}`));
      });
    });
    run.signal('SIGINT');
    expect(await run.exited).toBe(130);
    const id = /crawl (crawl_\w+) left running/.exec(run.stderr())?.[1] as string;
    expect(id.startsWith(started)).toBe(true);
    expect(run.stderr()).toContain(`cancel it with \`web-data-service crawl-cancel ${id}\``);
    expect(await statusOf(id)).toBe('scraping');
    await fetch(`${svc.base}/v1/crawl/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${API_KEY}` } });
  }, 120_000);
});
