/**
 * bench/quick.ts (`npm run bench:quick`) runs every bench: its scenario list is held to the
 * files of bench/ that emit a result line, so a new bench cannot be left out. Nothing is run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { QUICK, QUICK_SHARED, type Line } from '../../bench/quick.js';

const benchDir = fileURLToPath(new URL('../../bench/', import.meta.url));

/** Files of bench/ (not its servers/) that write a result line with lib.ts `emit`. */
function emittingFiles(): string[] {
  return readdirSync(benchDir)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && f !== 'lib.ts')
    .filter((f) => /(^|[^.\w])emit\(/m.test(readFileSync(`${benchDir}${f}`, 'utf8')))
    .sort();
}

describe('bench/quick', () => {
  it('finds the benches it is checked against', () => {
    expect(emittingFiles()).toEqual(expect.arrayContaining(['gateway.ts', 'scrape.ts', 'crawl.ts', 'mentions.ts']));
  });

  it('has a scenario for every bench file that emits a result, and none for a file that does not', () => {
    expect(QUICK.map((s) => s.file).sort()).toEqual(emittingFiles());
  });

  it('names each file once and sets only BENCH_* sizes', () => {
    const files = QUICK.map((s) => s.file);
    expect(new Set(files).size).toBe(files.length);
    for (const s of QUICK) for (const name of Object.keys(s.env)) expect(name).toMatch(/^BENCH_/);
  });

  it("sets only size variables each file's source reads (or bench/lib.ts's shared ones)", () => {
    const lib = readFileSync(`${benchDir}lib.ts`, 'utf8');
    for (const name of Object.keys(QUICK_SHARED)) expect(lib, `lib.ts reads ${name}`).toContain(name);
    for (const s of QUICK) {
      const source = readFileSync(`${benchDir}${s.file}`, 'utf8');
      for (const name of Object.keys(s.env)) {
        if (name in QUICK_SHARED) continue;
        expect(source, `${s.file} reads ${name}`).toContain(name);
      }
    }
  });

  it("reads a skipped file's lines as skipped, not as a failure", () => {
    const skippedLine: Line = { bench: 'scrape', skipped: 'corpus not found under /nowhere' };
    const scrape = QUICK.find((s) => s.file === 'scrape.ts');
    expect(scrape?.headlines([skippedLine])).toEqual([expect.objectContaining({ name: 'scrape', met: null, skipped: 'corpus not found under /nowhere' })]);
  });

  it('reads a target met and a target missed', () => {
    const gateway = QUICK.find((s) => s.file === 'gateway.ts');
    const lines: Line[] = [
      { bench: 'gateway', scenario: 'templates', ratio: 0.9, target_ratio: 0.8 },
      { bench: 'gateway', scenario: 'crawl-422', ratio: 0.9, target_ratio: 1 },
      { bench: 'gateway', summary: true, meets_target: false },
    ];
    expect(gateway?.headlines(lines).map((h) => [h.name, h.met])).toEqual([
      ['gateway templates', true],
      ['gateway crawl-422', false],
    ]);
  });
});
