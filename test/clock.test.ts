/**
 * "Now" comes from the injected clock, never from the store's: every time window in the
 * service's SQL binds its bound as a parameter (such as `{sinceMs:Int64}` or `{since:DateTime64(3)}`, from `deps.now()`), so a test
 * that fixes its clock, and CI's runs with the system clock moved ahead (`.ci/run`,
 * test/helpers/dated-suites.ts, test/clock-ahead/clock-ahead.c), see the same windows. DDL (`infra/clickhouse/`, and the
 * `CREATE`/`ALTER` statements that set TTLs) may use the store's clock: a TTL is the store's own
 * business.
 *
 * SQL is read as the TypeScript parser sees it: the text of string and template literals, so
 * `now()` in code (the injected clock) never counts, and `now()` inside SQL always does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { DATED_SUITES } from './helpers/dated-suites.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** ClickHouse's functions that read the server's clock. */
const STORE_CLOCK = /\b(now|now64|nowInBlock|today|yesterday|current_?timestamp|current_?date|localtimestamp|UTCTimestamp)\s*\(/i;
const DDL = /^\s*(CREATE|ALTER|DROP|RENAME)\b/i;

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(join(ROOT, dir))) return out;
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(path, out);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** Each string or template literal's text that reads the store's clock, with its line. */
export function storeClockUses(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const check = (node: ts.Node, literal: string) => {
    if (DDL.test(literal) || !STORE_CLOCK.test(literal)) return;
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    out.push(`${file}:${line}: ${literal.trim().split('\n').find((l) => STORE_CLOCK.test(l))?.trim()}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) check(node, node.text);
    else if (ts.isTemplateExpression(node)) check(node, [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(' '));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

describe('the clock', () => {
  it('no SQL of the service reads the store\'s clock: windows take "now" from the injected clock', () => {
    const files = ['main.ts', ...['pipeline', 'actors', 'gateway'].flatMap((d) => walk(d))];
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((f) => storeClockUses(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(found, `SQL that reads the store's clock:\n${found.join('\n')}`).toEqual([]);
  });

  it('no SQL file of the service reads the store\'s clock (pipeline/dashboard/queries.sql, which analysts also run)', () => {
    const sqlFiles = (dir: string, out: string[] = []): string[] => {
      for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const path = `${dir}/${entry.name}`;
        if (entry.isDirectory()) sqlFiles(path, out);
        else if (entry.name.endsWith('.sql')) out.push(path);
      }
      return out;
    };
    const files = ['pipeline', 'actors', 'gateway'].flatMap((d) => sqlFiles(d));
    expect(files).toContain('pipeline/dashboard/queries.sql');
    const found = files.flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
        .filter(({ line }) => !line.trimStart().startsWith('--') && !DDL.test(line) && STORE_CLOCK.test(line))
        .map(({ line, at }) => `${at}: ${line.trim()}`),
    );
    expect(found, `SQL that reads the store's clock:\n${found.join('\n')}`).toEqual([]);
  });

  it('finds a planted now64(), today() and now() in SQL, and not the clock called in code or DDL', () => {
    const planted = [
      "const a = `SELECT * FROM t WHERE queued_at >= now64(3) - INTERVAL ${days} DAY`;",
      "const b = 'SELECT count() FROM t WHERE day = today()';",
      'const c = `SELECT 1 WHERE at > NOW ()`;',
      "const d = now() - 5; log.info({ ms: Date.now() - d }, 'took');",
      "const e = `ALTER TABLE jobs MODIFY TTL toDateTime(created_at) + INTERVAL 1 DAY`;",
      "const f = `SELECT * FROM t WHERE at >= fromUnixTimestamp64Milli({sinceMs:Int64}) AND x = ${now()}`;",
    ].join('\n');
    expect(storeClockUses('planted.ts', planted).map((l) => l.split(':')[1])).toEqual(['1', '2', '3']);
  });

  it('CI moves the clock ahead for every suite that fixes a date', () => {
    // A suite that pins a calendar date next to code that measures windows from the clock is
    // exactly what the moved-ahead runs exist for: each is listed, and each listed one exists.
    const fixing = walk('test').filter((f) => f.endsWith('.test.ts') && /Date\.UTC\(20\d\d|Date\.parse\('20\d\d/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(fixing.length).toBeGreaterThan(5);
    expect(fixing.filter((f) => !DATED_SUITES.includes(f)), 'suites that fix a date but are not in test/helpers/dated-suites.ts').toEqual([]);
    expect(DATED_SUITES.filter((f) => !existsSync(join(ROOT, f))), 'listed suites that do not exist').toEqual([]);
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    expect(ci).toContain('libclock-ahead.so');
    expect(ci).toMatch(/LD_PRELOAD="\$PWD\/\$lib" CLOCK_AHEAD_DAYS=\$days npx vitest run/);
    expect(ci).toMatch(/for days in 40 400/);
    expect(ci).toContain('test/helpers/dated-suites.ts --list');
  });

  it('the clock-ahead library moves the wall clock of a child process by whole days and leaves its monotonic clock alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'wds-clock-'));
    try {
      const lib = join(dir, 'libclock-ahead.so');
      execFileSync('gcc', ['-O2', '-shared', '-fPIC', '-o', lib, join(ROOT, 'test/clock-ahead/clock-ahead.c'), '-ldl']);
      const probe = 'process.stdout.write(JSON.stringify({ wall: Date.now(), mono: performance.timeOrigin + performance.now(), up: process.uptime(), s: Number(require("child_process").execFileSync("date", ["+%s"]).toString()) }))';
      const read = (days: string) => {
        const before = Date.now();
        const out = JSON.parse(execFileSync(process.execPath, ['-e', probe], { env: { ...process.env, LD_PRELOAD: lib, CLOCK_AHEAD_DAYS: days } }).toString()) as { wall: number; s: number; up: number };
        return { ahead: out.wall - before, aheadS: out.s - Math.floor(before / 1000), up: out.up };
      };
      const DAY = 86_400_000;
      for (const days of [0, 40, 400]) {
        const { ahead, aheadS, up } = read(String(days));
        expect(Math.round(ahead / DAY), `Date.now() under ${days} days ahead`).toBe(days);
        // `date` (a C program, through time() and clock_gettime) moves the same.
        expect(Math.round((aheadS * 1000) / DAY), `date(1) under ${days} days ahead`).toBe(days);
        expect(up, 'process.uptime (monotonic)').toBeLessThan(60);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
