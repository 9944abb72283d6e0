/**
 * Rendered pages per second, p50/p99 latency and memory per concurrent page: the renderer's
 * warm pool (actors/renderer: one Chromium, a fresh context per render, every connection
 * through the guarded proxy, images and fonts blocked by the page's CDP session with no
 * request route (actors/renderer/policy.ts), the DOM read in an isolated world without
 * Playwright's injected script (actors/renderer/dom.ts), PageFetched built) against a plain
 * Playwright script (one browser, a new page per URL, `page.goto` then `page.content()`,
 * direct connections, nothing else) on the same local pages, at the same concurrency, in
 * one run. Target (issue 5): the pool renders at least as many pages per second as the
 * script (`ratio`).
 *
 * Four runs, all on the same Chromium executable (BENCH_RENDER_CHROMIUM, default the
 * renderer's own default: Debian's headless shell when installed, else its full browser):
 * - `script`: the plain script, what a user writes: `chromium.launch({ executablePath })`
 *   with Playwright's defaults and no argument of ours (as root Playwright already passes
 *   --no-sandbox, so it starts as is). The issue's `ratio` is against this run. A plain
 *   script with a downloaded browser would get Playwright's headless shell too.
 * - `scriptSameFlags`: the same script launched with the renderer's CHROMIUM_ARGS
 *   (actors/renderer/flags.ts: what a container needs, and browser UI features switched off
 *   that cost the full browser processes on every new window). Launch flags are then no
 *   difference between the two sides, so `ratioSameFlags` isolates the pool's own cost.
 * - `pool`: the renderer with the scrape defaults (`blockAssets: true`: the images and the
 *   font are not loaded).
 * - `poolAllAssets`: the renderer with `blockAssets: false` (every byte loaded, as the
 *   scripts do), which shows the pool's own overhead (context options, the guarded proxy and
 *   its check that a connection is the browser's; no request route and no blocking).
 * Both scripts load every byte. A script's `browser.newPage()` opens a new context for each
 * page too (Playwright closes it with the page): both sides pay for a context per page.
 *
 * The pages build their text with a script and carry what real pages carry: three images
 * and a web font.
 *
 * Memory is the proportional set size (PSS, so shared pages count once) of this process's
 * Chromium processes, sampled while the pages are open, minus the idle browser, divided by
 * the concurrency.
 *
 * CPU per page (this process and the browsers) depends less on what else the machine runs
 * than pages/s does; the line carries the load average at the start and the end.
 *
 * Settings (environment): BENCH_RENDER_PAGES pages per measured run (default 60),
 * BENCH_RENDER_CONCURRENCY (default 4), BENCH_RENDER_CHROMIUM the executable,
 * BENCH_ROUNDS rounds (the four runs, their order rotated each round, so load that builds up
 * during a round does not always fall on the same run), median kept.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { crc32, deflateSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { BrowserPool, CHROMIUM_ARGS, defaultChromiumPath, handleRenderRequested } from '../actors/renderer/index.js';
import { createLogger } from '../pipeline/runtime/log.js';
import { NetGuard } from '../pipeline/runtime/net/guard.js';
import { scrapeRequestFields } from '../pipeline/pages/scrape-request.js';
import type { ScrapeOptions } from '../schemas/api/scrape-options.js';
import { TOPICS } from '../schemas/topics.js';
import { emit, SETTINGS } from './lib.js';

const CHROMIUM_PATH = process.env.BENCH_RENDER_CHROMIUM || defaultChromiumPath();
const PAGES = Number(process.env.BENCH_RENDER_PAGES ?? 60);
const CONCURRENCY = Number(process.env.BENCH_RENDER_CONCURRENCY ?? 4);

/** A page that builds its content with a script, like the pages that need a browser. */
function page(i: number): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Page ${i}</title>
<style>@font-face { font-family: F; src: url(/font-${i}.woff2); } body { font-family: F, sans-serif; }</style></head>
<body><img src="/img/${i}-1.png"><img src="/img/${i}-2.png"><img src="/img/${i}-3.png"><main id="m"></main><script>
const m = document.getElementById('m');
for (let k = 0; k < 50; k++) { const p = document.createElement('p'); p.textContent = 'Paragraph ' + k + ' of page ${i}: rendered by script.'; m.append(p); }
</script></body></html>`;
}

/** A PNG of `width`x`height` with a noisy pattern (tens of KB): stands for a page's pictures. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = Buffer.alloc((width * 3 + 1) * height);
  let x = 0x2545f491;
  for (let i = 0; i < rows.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    rows[i] = i % (width * 3 + 1) === 0 ? 0 : (x & 0x3f) + 96;
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

const IMAGE = png(300, 200);

async function startSite(): Promise<{ url: (i: number) => string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/img/')) {
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(IMAGE);
    }
    if (req.url?.startsWith('/font-')) {
      res.writeHead(200, { 'content-type': 'font/woff2' });
      return res.end(Buffer.alloc(30_000));
    }
    const i = Number(/\/p\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page(i));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: (i) => `http://127.0.0.1:${port}/p/${i}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** This process's descendants (the browsers it launched and their children). */
function descendants(): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended while listing
    }
  }
  const ours = new Set<number>([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!ours.has(pid) && ours.has(ppid)) {
        ours.add(pid);
        grew = true;
      }
    }
  }
  ours.delete(process.pid);
  return [...ours];
}

/** PSS in bytes of the browsers' processes (shared pages counted once). */
function chromiumPss(): number {
  let total = 0;
  for (const pid of descendants()) {
    try {
      total += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch {
      // gone
    }
  }
  return total;
}

/**
 * CPU time in ms used so far by this process and the browsers (their exited children
 * included: a browser reaps its renderers, which adds them to its cutime/cstime). Unlike
 * pages/s, it does not depend on what else the machine runs.
 */
function cpuMs(): number {
  const ticks = 100; // USER_HZ on Linux
  let total = 0;
  for (const pid of descendants()) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, cutime, cstime are fields 14-17 (1-based): 11-14 counted from the state field (3).
      for (const i of [11, 12, 13, 14]) total += Number(fields[i] ?? 0);
    } catch {
      // gone
    }
  }
  const own = process.cpuUsage();
  return (total * 1000) / ticks + (own.user + own.system) / 1000;
}

interface RunResult {
  pagesPerSec: number;
  p50Ms: number;
  p99Ms: number;
  memoryPerPageMb: number;
  /** CPU of this process and the browsers per page, in ms. */
  cpuMsPerPage: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Runs `render` over the pages with `CONCURRENCY` workers, sampling memory meanwhile. */
async function measure(render: (url: string) => Promise<void>, url: (i: number) => string, idlePss: number): Promise<RunResult> {
  const latencies: number[] = [];
  let next = 0;
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, chromiumPss());
  }, 250);
  const started = performance.now();
  const cpuBefore = cpuMs();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < PAGES) {
        const i = next++;
        const t = performance.now();
        await render(url(i));
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuMs() - cpuBefore;
  clearInterval(sampler);
  latencies.sort((a, b) => a - b);
  return {
    pagesPerSec: Number((PAGES / seconds).toFixed(2)),
    p50Ms: Math.round(percentile(latencies, 50)),
    p99Ms: Math.round(percentile(latencies, 99)),
    memoryPerPageMb: Number((Math.max(0, peak - idlePss) / CONCURRENCY / 1024 / 1024).toFixed(1)),
    cpuMsPerPage: Math.round(cpu / PAGES),
  };
}

async function poolRun(url: (i: number) => string, options: Record<string, unknown>): Promise<RunResult> {
  const log = createLogger('silent');
  const guard = new NetGuard({ allowPrivate: true });
  const browsers = new BrowserPool({ executablePath: CHROMIUM_PATH, concurrency: CONCURRENCY, guard, log });
  const signal = new AbortController().signal;
  const render = async (target: string) => {
    const now = Date.now();
    const outcome = await handleRenderRequested(
      { requestId: 'bench', tenant: 'bench', jobId: null, url: target, ...scrapeRequestFields(options as ScrapeOptions), replyTo: TOPICS.replies.name, correlationId: 'c', deadlineMs: now + 60_000, createdAtMs: now },
      { browsers, guard, log, maxAttempts: 1 },
      signal,
    );
    if (outcome.kind !== 'ack' || outcome.emit?.[0]?.topic !== 'pageFetched') throw new Error(`render failed: ${JSON.stringify(outcome).slice(0, 300)}`);
  };
  try {
    await render(url(0)); // launches the warm browser
    const idle = chromiumPss();
    return await measure(render, url, idle);
  } finally {
    await browsers.close();
  }
}

/** The plain script: Playwright's defaults (`args` undefined), or launched with `args`. */
async function scriptRun(url: (i: number) => string, args?: readonly string[]): Promise<RunResult> {
  const browser: Browser = await chromium.launch(args ? { executablePath: CHROMIUM_PATH, args: [...args] } : { executablePath: CHROMIUM_PATH });
  const render = async (target: string) => {
    const p = await browser.newPage();
    try {
      await p.goto(target, { waitUntil: 'load' });
      await p.content();
    } finally {
      await p.close();
    }
  };
  try {
    await render(url(0));
    const idle = chromiumPss();
    return await measure(render, url, idle);
  } finally {
    await browser.close();
  }
}

function median(results: RunResult[], key: keyof RunResult): number {
  const sorted = results.map((r) => r[key]).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function summary(results: RunResult[]): RunResult {
  return {
    pagesPerSec: median(results, 'pagesPerSec'),
    p50Ms: median(results, 'p50Ms'),
    p99Ms: median(results, 'p99Ms'),
    memoryPerPageMb: median(results, 'memoryPerPageMb'),
    cpuMsPerPage: median(results, 'cpuMsPerPage'),
  };
}

if (!existsSync(CHROMIUM_PATH)) {
  emit({ bench: 'render', skipped: `no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium-headless-shell or chromium)` });
} else {
  const loadAtStart = Number(loadavg()[0]?.toFixed(1));
  const site = await startSite();
  const pool: RunResult[] = [];
  const poolAllAssets: RunResult[] = [];
  const script: RunResult[] = [];
  const scriptSameFlags: RunResult[] = [];
  try {
    const runs = [
      async () => script.push(await scriptRun(site.url)),
      async () => pool.push(await poolRun(site.url, {})),
      async () => scriptSameFlags.push(await scriptRun(site.url, CHROMIUM_ARGS)),
      async () => poolAllAssets.push(await poolRun(site.url, { blockAssets: false })),
    ];
    for (let round = 0; round < SETTINGS.rounds; round++) {
      for (let k = 0; k < runs.length; k++) await (runs[(round + k) % runs.length] as () => Promise<number>)();
    }
  } finally {
    await site.close();
  }
  const warm = summary(pool);
  const warmAllAssets = summary(poolAllAssets);
  const plain = summary(script);
  const tuned = summary(scriptSameFlags);
  const ratio = (a: RunResult, b: RunResult) => Number((a.pagesPerSec / b.pagesPerSec).toFixed(2));
  emit({
    bench: 'render',
    chromium: CHROMIUM_PATH,
    pages: PAGES,
    concurrency: CONCURRENCY,
    rounds: SETTINGS.rounds,
    pool: warm,
    poolAllAssets: warmAllAssets,
    script: plain,
    scriptSameFlags: tuned,
    ratio: ratio(warm, plain),
    ratioAllAssets: ratio(warmAllAssets, plain),
    ratioSameFlags: ratio(warm, tuned),
    ratioAllAssetsSameFlags: ratio(warmAllAssets, tuned),
    target: 1.0,
    loadAverage: [loadAtStart, Number(loadavg()[0]?.toFixed(1))],
  });
}
