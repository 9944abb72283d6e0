/**
 * README.md documents two tables whose source of truth is code: the settings
 * (pipeline/service/settings.ts SETTINGS) and the error codes (schemas/errors.ts ERRORS). These tests
 * fail when README and code disagree.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../pipeline/service/config.js';
import { ERRORS } from '../../schemas/errors.js';
import { REPO_ROOT } from '../helpers/process.js';

const README = join(REPO_ROOT, 'README.md');

function readme(): string {
  if (!existsSync(README)) throw new Error('README.md is missing at the repository root');
  return readFileSync(README, 'utf8');
}

/** The text under `## <title>` up to the next heading of level 1 or 2. */
function section(text: string, title: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (start < 0) throw new Error(`README.md has no "## ${title}" section`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((l) => /^#{1,2} /.test(l));
  return (end < 0 ? rest : rest.slice(0, end)).join('\n');
}

/** Cells of a markdown table row, without the outer pipes; `\|` inside a cell is kept. */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/** The first table of a section: its header cells and its body rows as cells. */
function table(text: string): { header: string[]; rows: string[][] } {
  const rows = text.split('\n').filter((l) => l.trim().startsWith('|'));
  const [head, divider, ...body] = rows;
  if (!head || !divider || !/^\|?[\s:|-]+\|?$/.test(divider.trim())) throw new Error('no markdown table found');
  return { header: cells(head), rows: body.map(cells) };
}

/** The value a Default cell states: the first `code span` if any, else the cell's text. */
function stated(cell: string): string {
  const code = /`([^`]*)`/.exec(cell);
  return (code ? (code[1] as string) : cell.replace(/[*_]/g, '')).trim();
}

const UNSET = /^(|-|–|—|none|unset|not set|\(none\)|\(unset\)|\(not set\))$/i;

function matchesDefault(cell: string, value: string | number | boolean | null): boolean {
  const text = stated(cell);
  if (value === null) return UNSET.test(text) || UNSET.test(cell.replace(/[`*_]/g, '').trim());
  if (typeof value === 'number') return text.replace(/[,_\s]/g, '') === String(value);
  return text === String(value);
}

describe('README.md', () => {
  describe('## Configuration', () => {
    it('lists exactly the settings of pipeline/service/settings.ts, each with its default', () => {
      const { header, rows } = table(section(readme(), 'Configuration'));
      const defaultColumn = header.findIndex((h) => /default/i.test(h));
      expect(defaultColumn, `no Default column in ${JSON.stringify(header)}`).toBeGreaterThan(0);

      const documented = rows
        .map((r) => ({ env: /^`([A-Z][A-Z0-9_]*)`$/.exec(r[0] ?? '')?.[1], cells: r }))
        .filter((r): r is { env: string; cells: string[] } => r.env !== undefined);
      expect(documented.length, 'rows must start with | `ENV_NAME` |').toBe(rows.length);

      const names = documented.map((r) => r.env);
      expect(new Set(names).size, `duplicate rows: ${names.join(', ')}`).toBe(names.length);
      expect([...names].sort()).toEqual(Object.values(SETTINGS).map((s) => s.env).sort());

      const wrong = documented
        .map(({ env, cells: row }) => {
          const spec = Object.values(SETTINGS).find((s) => s.env === env);
          const cell = row[defaultColumn] ?? '';
          return spec && !matchesDefault(cell, spec.default) ? `${env}: README says "${cell}", code says ${JSON.stringify(spec.default)}` : null;
        })
        .filter((x): x is string => x !== null);
      expect(wrong).toEqual([]);
    });
  });

  describe('## Error codes', () => {
    it('lists exactly the codes of schemas/errors.ts with their HTTP status', () => {
      const { header, rows } = table(section(readme(), 'Error codes'));
      const documented = rows.map((r) => ({
        code: /^`([a-z_]+)`$/.exec(r[0] ?? '')?.[1],
        status: Number((r[1] ?? '').replace(/`/g, '').trim()),
        row: r,
      }));
      expect(
        documented.filter((d) => d.code === undefined || !Number.isInteger(d.status)),
        'rows must start with | `code` | status |',
      ).toEqual([]);
      const codes = documented.map((d) => d.code as string);
      expect(new Set(codes).size, `duplicate rows: ${codes.join(', ')}`).toBe(codes.length);
      expect([...codes].sort()).toEqual(Object.keys(ERRORS).sort());
      expect(Object.fromEntries(documented.map((d) => [d.code, d.status]))).toEqual(
        Object.fromEntries(Object.entries(ERRORS).map(([code, spec]) => [code, spec.status])),
      );
      // A Retriable column, when there is one, says yes/no as the table does.
      const retriableColumn = header.findIndex((h) => /retriable/i.test(h));
      if (retriableColumn > 0) {
        expect(
          Object.fromEntries(documented.map((d) => [d.code, /^(yes|true)$/i.test((d.row[retriableColumn] ?? '').replace(/`/g, ''))])),
        ).toEqual(Object.fromEntries(Object.entries(ERRORS).map(([code, spec]) => [code, spec.retriable])));
      }
    });
  });

  describe('the checks themselves', () => {
    const sample = [
      '# Title',
      '## Configuration',
      'Text.',
      '',
      '| Variable | Default | Description |',
      '|---|---|---|',
      '| `PORT` | `3002` | The port. |',
      '| `API_KEY` | — | A key. |',
      '| `BODY_LIMIT_BYTES` | `2097152` (2 MiB) | Size. |',
      '## Next',
      '| not | this |',
    ].join('\n');

    it('reads the first table of a section only', () => {
      const { header, rows } = table(section(sample, 'Configuration'));
      expect(header).toEqual(['Variable', 'Default', 'Description']);
      expect(rows.map((r) => r[0])).toEqual(['`PORT`', '`API_KEY`', '`BODY_LIMIT_BYTES`']);
    });

    it('compares defaults by value', () => {
      expect(matchesDefault('`3002`', 3002)).toBe(true);
      expect(matchesDefault('`3003`', 3002)).toBe(false);
      expect(matchesDefault('`2097152` (2 MiB)', 2097152)).toBe(true);
      expect(matchesDefault('—', null)).toBe(true);
      expect(matchesDefault('`abc`', null)).toBe(false);
      expect(matchesDefault('`false`', false)).toBe(true);
      expect(matchesDefault('`./data`', './data')).toBe(true);
    });
  });
});
