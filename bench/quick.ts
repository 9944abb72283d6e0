/**
 * `npm run bench:quick`: every scenario file of bench/ at a small size, one after another, each
 * in its own process, in a few minutes in all: a habit for every change, not a measurement to
 * quote (the full runs, `npm run bench` or one file alone, are what bench/README.md quotes).
 *
 * Each file runs with its own size settings made small (`QUICK` below: the BENCH_* variables
 * its header documents) and the shared ones short (BENCH_DURATION_S 1, BENCH_WARMUP_S 0.5,
 * BENCH_PROCESSES 1, BENCH_ROUNDS 1); a variable already set in the environment wins. The JSON
 * lines a file prints are read, and one line per headline figure goes to stdout: the name, the
 * figure, its target and whether it is met (`met`, `NOT met`, `no target`, or `skipped` with
 * the file's reason, e.g. the corpus is absent). Small sizes move the figures: a missed
 * target here says "run the full bench", not "regressed". A progress bar goes to stderr.
 *
 * The exit code is non-zero only when a file fails to run: it exits non-zero, prints no result
 * line, or runs past BENCH_QUICK_TIMEOUT_S (default 150) and is stopped. A missed target is
 * not a failure. `npx tsx bench/quick.ts gateway scrape` runs only the named files.
 *
 * test/bench/quick.test.ts holds `QUICK` to every file of bench/ that emits a result, so a new
 * bench cannot be left out.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type Line = Record<string, unknown>;

/** One figure of a file's output, as the quick run prints it. */
export interface Headline {
  readonly name: string;
  /** The figure as text, e.g. `ratio 0.91` or `F1 0.93 (Readability.js 0.89)`. */
  readonly figure: string;
  /** The target as text (`≥ 1.0`), or null when the bench sets none. */
  readonly target: string | null;
  /** null: no target, or not measured (`skipped`). */
  readonly met: boolean | null;
  readonly skipped?: string;
}

export interface QuickScenario {
  /** The file in bench/. */
  readonly file: string;
  /** Its size settings for the quick run. */
  readonly env: Readonly<Record<string, string>>;
  /** The headline figures of its JSON lines (each file's own shape). */
  readonly headlines: (lines: readonly Line[]) => Headline[];
}

/** The shared settings of bench/lib.ts, made short. */
export const QUICK_SHARED: Readonly<Record<string, string>> = {
  BENCH_DURATION_S: '1',
  BENCH_WARMUP_S: '0.5',
  BENCH_PROCESSES: '1',
  BENCH_ROUNDS: '1',
};

const num = (v: unknown): number => (typeof v === 'number' ? v : Number.NaN);
/** Three significant digits, thousands grouped. */
const fmt = (v: unknown): string => {
  const n = num(v);
  if (!Number.isFinite(n)) return String(v);
  return Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : String(Number(n.toPrecision(3)));
};
/** A target as text: 1 as `1.0`, thousands grouped. */
const fmtTarget = (n: number): string => (Number.isInteger(n) && n < 100 ? n.toFixed(1) : fmt(n));

const atLeast = (name: string, label: string, value: unknown, target: number): Headline => ({
  name,
  figure: `${label} ${fmt(value)}`,
  target: `≥ ${fmtTarget(target)}`,
  met: num(value) >= target,
});

const noTarget = (name: string, figure: string): Headline => ({ name, figure, target: null, met: null });

const skipped = (name: string, reason: unknown): Headline => ({ name, figure: '', target: null, met: null, skipped: String(reason) });

/** The lines of `lines` with `key` equal to `value`. */
const where = (lines: readonly Line[], key: string, value: unknown) => lines.filter((l) => l[key] === value);

/** A file's lines that say it skipped (`{skipped: reason}`) as headlines, then its own headlines unless every line skipped. */
function unlessSkipped(name: string, lines: readonly Line[], headlines: () => Headline[]): Headline[] {
  const part = (l: Line) => (l.scenario ? ` ${String(l.scenario)}` : l.corpus ? ` ${String(l.corpus)}` : '');
  const skips = lines.filter((l) => l.skipped !== undefined).map((l) => skipped(`${name}${part(l)}`, l.skipped));
  return skips.length === lines.length ? skips : [...skips, ...headlines()];
}

/**
 * Every scenario file of bench/, with its small sizes and how its figures are read. Targets are
 * each file's own (its `target*` fields) where it prints them.
 */
export const QUICK: readonly QuickScenario[] = [
  {
    file: 'gateway.ts',
    // Two seconds measured after one of warm-up: with less, the JIT is still at work and the
    // ratios read half what a full run does.
    env: { BENCH_DURATION_S: '2', BENCH_WARMUP_S: '1' },
    headlines: (lines) =>
      lines
        .filter((l) => typeof l.scenario === 'string')
        .map((l) => atLeast(`gateway ${String(l.scenario)}`, 'ratio', l.ratio, num(l.target_ratio) || 0.8)),
  },
  {
    file: 'bus.ts',
    env: { BENCH_BUS_MESSAGES: '600', BENCH_BUS_ROUNDS: '1', BENCH_BUS_CHDB_ROWS: '2000', BENCH_BUS_CHDB_SINGLE: '40' },
    headlines: (lines) =>
      unlessSkipped('bus', lines, () =>
        lines.filter((l) => l.skipped === undefined).map((l) => noTarget(`bus ${String(l.scenario)}`, `ratio ${fmt(l.ratio)}`)),
      ),
  },
  {
    file: 'company.ts',
    env: { BENCH_COMPANY_SITES: '24', BENCH_COMPANY_PRODUCTS: '2000', BENCH_COMPANY_ROUNDS: '2' },
    headlines: (lines) => [
      ...where(lines, 'scenario', 'quality').flatMap((l) =>
        (['emails', 'phones'] as const).map((field) => {
          const f = (l[field] ?? {}) as Line;
          return { name: `company ${field}`, figure: `precision ${fmt(f.precision)}, recall ${fmt(f.recall)}`, target: `precision ≥ ${fmt(l.target_precision)}`, met: num(f.precision) >= num(l.target_precision) };
        }),
      ),
      ...where(lines, 'scenario', 'products').map((l) => atLeast('company products/s', 'ratio', l.ratio, num(l.target_ratio))),
    ],
  },
  {
    file: 'crawl.ts',
    env: { BENCH_CRAWL_PAGES: '300', BENCH_MAP_URLS: '3000', BENCH_CRAWL_STALL_S: '60' },
    headlines: (lines) => [
      ...where(lines, 'bench', 'crawl').map((l) => ({
        name: 'crawl',
        figure: `ratio ${fmt(l.ratio)}, RSS ratio ${fmt(l.rss_ratio)}${l.complete ? '' : ' (incomplete)'}`,
        target: `≥ ${fmt(l.target_ratio)}, RSS ≥ ${fmt(l.target_rss_ratio)}`,
        met: l.meets_target === true,
      })),
      ...where(lines, 'bench', 'map').map((l) => noTarget('map', `ratio ${fmt(l.ratio)}${l.complete ? '' : ' (incomplete)'}`)),
    ],
  },
  {
    file: 'domains.ts',
    env: { BENCH_DOMAINS_NAMES: '100', BENCH_DOMAINS_BASELINE_NAMES: '20' },
    headlines: (lines) =>
      lines.map((l) => ({
        name: 'domains screen',
        figure: `${fmt(l.seconds_per_name)} s a name, ${fmt(l.ratio)}× the one-by-one script${l.agree === true ? '' : ' (verdicts differ)'}`,
        target: `≤ ${fmt(l.target_seconds_per_name)} s a name`,
        met: l.meets_target === true && l.agree === true,
      })),
  },
  {
    file: 'domains-backlinks.ts',
    env: { BENCH_BACKLINKS_EDGES: '300000', BENCH_BACKLINKS_QUERIES: '40', BENCH_BACKLINKS_BATCH: '30000' },
    headlines: (lines) =>
      lines.map((l) => {
        const side = (v: unknown) => v as { p50Ms?: number; p99Ms?: number } | undefined;
        return noTarget(
          'domains backlinks',
          `p50 ${fmt(side(l.backlinks)?.p50Ms)} ms, p99 ${fmt(side(l.backlinks)?.p99Ms)} ms; the raw edges' ${fmt(side(l.baseline)?.p50Ms)} and ${fmt(side(l.baseline)?.p99Ms)} ms (ratio ${fmt(l.ratio)}, p99 ${fmt(l.p99_ratio)})`,
        );
      }),
  },
  {
    file: 'extract.ts',
    env: { BENCH_EXTRACT_PAGES: '40', BENCH_SCRAPE_WARMUP: '8' },
    headlines: (lines) =>
      unlessSkipped('extract', lines, () =>
        lines.map((l) => ({ name: 'extract', figure: `json overhead ${fmt(l.overhead)}`, target: `≤ ${fmt(l.target_overhead)}`, met: l.meets_target === true })),
      ),
  },
  {
    file: 'extract-quality.ts',
    env: { BENCH_EXTRACT_QUALITY_PAGES: '150' },
    headlines: (lines) =>
      unlessSkipped('extract-quality', lines, () =>
        lines
          .filter((l) => l.split === 'held-out' && (l.field === 'headline_fuzzy' || l.field === 'author' || l.field === 'datePublished'))
          .map((l) => noTarget(`extract-quality ${String(l.field)} (held-out)`, `accuracy ${fmt(l.accuracy)}, precision ${fmt(l.precision)}`)),
      ),
  },
  {
    file: 'frontier.ts',
    env: { BENCH_FRONTIER_PAGES: '400', BENCH_FRONTIER_WARMUP: '50' },
    headlines: (lines) =>
      unlessSkipped('frontier', lines, () =>
        lines
          .filter((l) => l.skipped === undefined)
          .map((l) => ({
            name: `frontier ${String(l.scenario)}`,
            figure: `steps a page ${fmt(l.steps_a_page)}, ${fmt(l.pages_per_s)} pages/s one job`,
            target: `steps ≤ ${fmt(l.target_steps_a_page)}`,
            met: l.meets_target === true,
          })),
      ),
  },
  {
    file: 'main-content.ts',
    env: { BENCH_MAIN_CONTENT_PAGES: '40' },
    headlines: (lines) =>
      unlessSkipped('main-content', lines, () => [
        ...lines
          .filter((l) => l.corpus === 'trafilatura-eval' && l.split === 'all')
          .map((l) => noTarget('main-content F1', `F1 ${fmt(l.f1)}, ${fmt(l.f1_ratio)}× Readability.js's`)),
        ...where(lines, 'scenario', 'speed').map((l) => noTarget('main-content speed', `${fmt(l.ratio)}× Readability.js's pages/s`)),
        ...lines.filter((l) => l.corpus === 'readability' && l.skipped === undefined).map((l) => noTarget('main-content readability', `4-gram F1 ${fmt(l.ngram4_f1)} (Readability.js ${fmt(l.readability_js_ngram4_f1)})`)),
      ]),
  },
  {
    file: 'main-content-broad.ts',
    env: { BENCH_MAIN_CONTENT_BROAD_PAGES: '40', BENCH_MAIN_CONTENT_BROAD_BASELINE: '0' },
    headlines: (lines) =>
      lines.map((l) =>
        l.skipped !== undefined
          ? skipped(`main-content ${String(l.benchmark)}`, l.skipped)
          : noTarget(`main-content ${String(l.benchmark)}`, `F1 ${fmt(l.f1)}, ${fmt(l.pages_per_s)} pages/s`),
      ),
  },
  {
    file: 'markdown.ts',
    env: { BENCH_MARKDOWN_PAGES: '80', BENCH_MARKDOWN_WARMUP: '10' },
    headlines: (lines) =>
      unlessSkipped('markdown', lines, () =>
        lines.filter((l) => l.summary !== true && l.skipped === undefined).map((l) => atLeast(`markdown ${String(l.corpus)} ${String(l.scenario)}`, 'ratio', l.ratio, 2)),
      ),
  },
  {
    file: 'mentions.ts',
    // The leave-one-source-out evaluation (a model trained per source, ~45 s) is not a quick figure.
    env: { BENCH_MENTIONS_PASSES: '1', BENCH_MENTIONS_LOSO: '0' },
    headlines: (lines) =>
      lines.flatMap((l) => {
        const targets = (l.targets ?? {}) as { macro_f1?: number; per_second?: number };
        return [atLeast('mentions macro-F1', 'macro-F1', l.macro_f1, targets.macro_f1 ?? 0.75), atLeast('mentions speed', 'mentions/s', l.per_second, targets.per_second ?? 2000)];
      }),
  },
  {
    file: 'monitors.ts',
    env: { BENCH_MONITORS: '40', BENCH_MONITORS_ROUNDS: '2', BENCH_MONITORS_STALL_S: '60', BENCH_MONITORS_STEADY_INTERVAL_S: '10', BENCH_MONITORS_PACED: '20', BENCH_MONITORS_SETTLE_S: '10' },
    headlines: (lines) =>
      lines.map((l) => ({
        name: 'monitors',
        figure: `precision ${fmt(l.precision)}, recall ${fmt(l.recall)}, lateness p99 ${fmt(l.lateness_p99_ms)} ms, check/scrape CPU ${fmt(l.check_cpu_ratio)}× (at the same pace ${fmt(l.check_cpu_ratio_paced)}×)`,
        target: `precision and recall 1, p99 < ${fmt(l.target_lateness_p99_ms)} ms`,
        met: l.meets_target === true,
      })),
  },
  {
    file: 'render.ts',
    env: { BENCH_RENDER_PAGES: '8', BENCH_RENDER_CONCURRENCY: '4' },
    headlines: (lines) =>
      unlessSkipped('render', lines, () => lines.map((l) => atLeast('render', 'ratio', l.ratio, num(l.target) || 1))),
  },
  {
    file: 'scale.ts',
    // The fetcher pool at 1 and 2 processes over a small site: the cluster's start-up (seven
    // processes, about a minute on a busy machine) is most of the time; the idle processes'
    // CPU read over 5 s, not 20 (the whole quick run stays under 5 minutes).
    env: { BENCH_SCALE_PAGES: '60', BENCH_SCALE_HOSTS: '10', BENCH_SCALE_STEPS: '1,2', BENCH_SCALE_SCENARIOS: 'fetchers', BENCH_SCALE_STALL_S: '60', BENCH_SCALE_IDLE_S: '5' },
    headlines: (lines) =>
      where(lines, 'scenario', 'summary').flatMap((l) => [
        ...(l.scaling_efficiency === null ? [] : [atLeast('scale fetchers', 'scaling efficiency', l.scaling_efficiency, 0.8)]),
        ...(l.parser_ratio === null ? [] : [atLeast('scale parsers', 'ratio', l.parser_ratio, 1.7)]),
        ...(l.drain_ratio === null ? [] : [atLeast('scale parsers draining', 'ratio', l.drain_ratio, 1.7)]),
        ...(l.recovery_s === null && l.exactly_once === null
          ? []
          : [{ name: 'scale faults', figure: `recovery ${fmt(l.recovery_s)} s, exactly once ${String(l.exactly_once)}`, target: '≤ 30 s, exactly once', met: l.exactly_once === true && num(l.recovery_s) <= 30 }]),
      ]),
  },
  {
    file: 'scrape.ts',
    env: { BENCH_SCRAPE_PAGES: '60', BENCH_SCRAPE_WARMUP: '8' },
    headlines: (lines) => unlessSkipped('scrape', lines, () => lines.map((l) => atLeast('scrape', 'ratio', l.ratio, num(l.target_ratio)))),
  },
  {
    file: 'search.ts',
    env: { BENCH_SEARCH_PAGES: '3000', BENCH_SEARCH_QUERIES: '40', BENCH_SEARCH_SCAN_QUERIES: '10' },
    headlines: (lines) =>
      unlessSkipped('search', lines, () =>
        lines.map((l) => ({
          name: 'search',
          figure: `queries/s ${fmt(l.qps_ratio)}× the scan's, p99 ${fmt(l.p99_over_baseline_p50)} of its p50`,
          target: `≥ ${fmt(l.target_qps_ratio)}×, p99 < scan p50`,
          met: l.meets_target === true,
        })),
      ),
  },
];

// ---------------------------------------------------------------- running

const dir = fileURLToPath(new URL('.', import.meta.url));
const TIMEOUT_S = Number(process.env.BENCH_QUICK_TIMEOUT_S) || 150;

interface Ran {
  readonly scenario: QuickScenario;
  readonly headlines: Headline[];
  readonly seconds: number;
  /** Why the file failed to run, if it did. */
  readonly failure: string | null;
}

/** The progress bar on stderr: redrawn in place on a terminal, one line per step elsewhere. */
class Progress {
  private timer: NodeJS.Timeout | null = null;
  private readonly began = Date.now();
  constructor(private readonly total: number) {}

  start(index: number, file: string): void {
    const began = Date.now();
    const draw = () => {
      const width = 24;
      const filled = Math.round((index / this.total) * width);
      const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
      const now = Date.now();
      return `[${bar}] ${index + 1}/${this.total} ${file} ${Math.round((now - began) / 1000)} s (${Math.round((now - this.began) / 1000)} s in all)`;
    };
    if (process.stderr.isTTY) {
      process.stderr.write(`\r\x1b[K${draw()}`);
      this.timer = setInterval(() => process.stderr.write(`\r\x1b[K${draw()}`), 1000);
    } else {
      process.stderr.write(`${draw()}\n`);
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
  }
}

/** The file running now. */
let running: ChildProcess | null = null;

function runOne(scenario: QuickScenario): Promise<Ran> {
  const began = Date.now();
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `${dir}${scenario.file}`], {
      env: { ...QUICK_SHARED, ...scenario.env, ...process.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    running = child;
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err = (err + chunk).slice(-8000);
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      // The file's own group: its servers and browsers go with it.
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, TIMEOUT_S * 1000);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      running = null;
      const lines: Line[] = [];
      for (const text of out.split('\n')) {
        if (!text.startsWith('{')) continue;
        try {
          lines.push(JSON.parse(text) as Line);
        } catch {
          // Not one of the bench's lines.
        }
      }
      const seconds = (Date.now() - began) / 1000;
      const tail = err.trim().split('\n').slice(-5).join('\n');
      let failure: string | null = null;
      if (timedOut) failure = `stopped after ${TIMEOUT_S} s (BENCH_QUICK_TIMEOUT_S)`;
      else if (code !== 0) failure = `exited with ${code ?? signal}${tail ? `:\n${tail}` : ''}`;
      else if (!lines.length) failure = `printed no result line${tail ? `:\n${tail}` : ''}`;
      let headlines: Headline[] = [];
      if (!failure) {
        try {
          headlines = scenario.headlines(lines);
          if (!headlines.length) failure = 'printed no line this run reads';
        } catch (error) {
          failure = `its lines could not be read: ${(error as Error).message}`;
        }
      }
      resolveRun({ scenario, headlines, seconds, failure });
    });
  });
}

function verdict(h: Headline): string {
  if (h.skipped !== undefined) return `skipped: ${h.skipped}`;
  if (h.met === null) return 'no target';
  return h.met ? 'met' : 'NOT met';
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).map((a) => (a.endsWith('.ts') ? a : `${a}.ts`));
  const scenarios = wanted.length ? QUICK.filter((s) => wanted.includes(s.file)) : QUICK;
  const unknown = wanted.filter((w) => !QUICK.some((s) => s.file === w));
  if (unknown.length) {
    process.stderr.write(`bench:quick: no scenario ${unknown.join(', ')}\n`);
    process.exit(2);
  }
  const began = Date.now();
  const loadAtStart = loadavg()[0] as number;
  const progress = new Progress(scenarios.length);
  const ran: Ran[] = [];
  // Each file runs in a process group of its own (so a stuck one is stopped with its servers):
  // an interrupt here is passed on to the running group.
  process.once('SIGINT', () => {
    if (running?.pid) {
      try {
        process.kill(-running.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
    }
    process.exit(130);
  });
  for (const [i, scenario] of scenarios.entries()) {
    progress.start(i, scenario.file);
    const r = await runOne(scenario);
    progress.stop();
    ran.push(r);
    const rows = r.failure
      ? [[scenario.file.replace(/\.ts$/, ''), '', '', `FAILED to run (${r.seconds.toFixed(0)} s): ${r.failure}`]]
      : r.headlines.map((h) => [h.name, h.figure, h.target ?? '—', verdict(h)]);
    for (const [name, figure, target, result] of rows) {
      process.stdout.write(`${(name as string).padEnd(42)} ${(figure as string).padEnd(56)} ${(target as string).padEnd(30)} ${result}\n`);
    }
  }
  const failed = ran.filter((r) => r.failure);
  const missed = ran.flatMap((r) => r.headlines).filter((h) => h.met === false).length;
  const seconds = (Date.now() - began) / 1000;
  process.stdout.write(
    `bench:quick: ${scenarios.length} file${scenarios.length === 1 ? '' : 's'} in ${seconds.toFixed(0)} s, load average ${loadAtStart.toFixed(1)} → ${(loadavg()[0] as number).toFixed(1)}; ` +
      `${missed} target${missed === 1 ? '' : 's'} not met at this size; ${failed.length ? `FAILED: ${failed.map((r) => r.scenario.file).join(', ')}` : 'every file ran'}\n`,
  );
  process.exit(failed.length ? 1 : 0);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
