/**
 * The reference in docs/ holds two tables whose source of truth is code: the settings
 * (docs/configuration.md "## Settings" against pipeline/service/settings.ts SETTINGS) and the
 * error codes (docs/errors.md "## Error codes" against schemas/errors.ts ERRORS). These tests
 * fail when the docs and the code disagree: a setting or code missing, extra or repeated, a
 * default, status or retriable flag that differs. (They held README.md's tables until the
 * reference moved to docs/.) "the checks themselves" plants each kind of drift and shows the
 * checks report it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../pipeline/service/config.js';
import { ERRORS } from '../../schemas/errors.js';
import { REPO_ROOT } from '../helpers/process.js';

const CONFIGURATION = 'docs/configuration.md';
const ERRORS_DOC = 'docs/errors.md';

function doc(path: string): string {
  const file = join(REPO_ROOT, path);
  if (!existsSync(file)) throw new Error(`${path} is missing`);
  return readFileSync(file, 'utf8');
}

/** The text under `## <title>` up to the next heading of level 1 or 2. */
function section(text: string, title: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (start < 0) throw new Error(`no "## ${title}" section`);
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

/** What a settings table gets wrong against SETTINGS, by kind; every list empty when it is right. */
function settingsDrift(text: string): { malformed: string[]; duplicate: string[]; missing: string[]; extra: string[]; wrongDefault: string[] } {
  const { header, rows } = table(section(text, 'Settings'));
  const defaultColumn = header.findIndex((h) => /default/i.test(h));
  const env = (r: string[]) => /^`([A-Z][A-Z0-9_]*)`$/.exec(r[0] ?? '')?.[1];
  const names = rows.map(env).filter((n): n is string => n !== undefined);
  const code: string[] = Object.values(SETTINGS).map((s) => s.env);
  return {
    malformed: rows.filter((r) => env(r) === undefined).map((r) => r.join(' | ')),
    duplicate: names.filter((n, i) => names.indexOf(n) !== i),
    missing: code.filter((n) => !names.includes(n)),
    extra: names.filter((n) => !code.includes(n)),
    wrongDefault: rows.flatMap((r) => {
      const spec = Object.values(SETTINGS).find((s) => s.env === env(r));
      return spec && !matchesDefault(r[defaultColumn] ?? '', spec.default) ? [spec.env] : [];
    }),
  };
}

/** What an error-code table gets wrong against ERRORS, by kind; every list empty when it is right. */
function errorCodesDrift(text: string): { malformed: string[]; duplicate: string[]; missing: string[]; extra: string[]; wrongStatus: string[]; wrongRetriable: string[] } {
  const { header, rows } = table(section(text, 'Error codes'));
  const retriableColumn = header.findIndex((h) => /retriable/i.test(h));
  const code = (r: string[]) => /^`([a-z_]+)`$/.exec(r[0] ?? '')?.[1];
  const status = (r: string[]) => Number((r[1] ?? '').replace(/`/g, '').trim());
  const codes = rows.map(code).filter((c): c is string => c !== undefined);
  const known = (r: string[]) => (Object.hasOwn(ERRORS, code(r) ?? '') ? ERRORS[code(r) as keyof typeof ERRORS] : undefined);
  return {
    malformed: rows.filter((r) => code(r) === undefined || !Number.isInteger(status(r))).map((r) => r.join(' | ')),
    duplicate: codes.filter((c, i) => codes.indexOf(c) !== i),
    missing: Object.keys(ERRORS).filter((c) => !codes.includes(c)),
    extra: codes.filter((c) => !Object.hasOwn(ERRORS, c)),
    wrongStatus: rows.flatMap((r) => (known(r) && known(r)?.status !== status(r) ? [code(r) as string] : [])),
    wrongRetriable:
      retriableColumn > 0
        ? rows.flatMap((r) => (known(r) && known(r)?.retriable !== /^(yes|true)$/i.test((r[retriableColumn] ?? '').replace(/`/g, '')) ? [code(r) as string] : []))
        : [],
  };
}

/** The settings table's assertions, over a doc's text (docs/configuration.md in the test, planted copies below). */
function checkSettingsTable(text: string): void {
  expect(settingsDrift(text)).toEqual({ malformed: [], duplicate: [], missing: [], extra: [], wrongDefault: [] });
  const { header, rows } = table(section(text, 'Settings'));
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
      return spec && !matchesDefault(cell, spec.default) ? `${env}: ${CONFIGURATION} says "${cell}", code says ${JSON.stringify(spec.default)}` : null;
    })
    .filter((x): x is string => x !== null);
  expect(wrong).toEqual([]);
}

/** The error-code table's assertions, over a doc's text (docs/errors.md in the test, planted copies below). */
function checkErrorCodesTable(text: string): void {
  expect(errorCodesDrift(text)).toEqual({ malformed: [], duplicate: [], missing: [], extra: [], wrongStatus: [], wrongRetriable: [] });
  const { header, rows } = table(section(text, 'Error codes'));
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
}

/** `text` without the table row that starts with `` | `name` | ``. */
function withoutRow(text: string, name: string): string {
  const lines = text.split('\n');
  const kept = lines.filter((l) => !l.startsWith(`| \`${name}\` |`));
  expect(lines.length - kept.length, `one row of ${name}`).toBe(1);
  return kept.join('\n');
}

describe('docs/configuration.md', () => {
  describe('## Settings', () => {
    it('lists exactly the settings of pipeline/service/settings.ts, each with its default', () => {
      checkSettingsTable(doc(CONFIGURATION));
    });
  });
});

describe('docs/errors.md', () => {
  describe('## Error codes', () => {
    it('lists exactly the codes of schemas/errors.ts with their HTTP status', () => {
      checkErrorCodesTable(doc(ERRORS_DOC));
    });
  });
});

describe('the reference tables', () => {
  describe('the checks themselves', () => {
    const sample = [
      '# Title',
      '## Settings',
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
      const { header, rows } = table(section(sample, 'Settings'));
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

    it('report every setting whose row is missing from docs/configuration.md, by name', () => {
      const text = doc(CONFIGURATION);
      for (const { env } of Object.values(SETTINGS)) {
        const planted = withoutRow(text, env);
        expect(settingsDrift(planted).missing, env).toEqual([env]);
        expect(() => checkSettingsTable(planted), env).toThrow();
      }
    });

    it('report a setting documented with another default, twice, or unknown to the code', () => {
      const text = doc(CONFIGURATION);
      const wrongPort = text.replace('| `PORT` | integer | `3002` |', '| `PORT` | integer | `3003` |');
      expect(wrongPort).not.toBe(text);
      expect(settingsDrift(wrongPort).wrongDefault).toEqual(['PORT']);
      expect(() => checkSettingsTable(wrongPort)).toThrow();
      const row = text.split('\n').find((l) => l.startsWith('| `HOST` |')) as string;
      const twice = text.replace(row, `${row}\n${row}`);
      expect(settingsDrift(twice).duplicate).toEqual(['HOST']);
      expect(() => checkSettingsTable(twice)).toThrow();
      const unknown = text.replace(row, `${row}\n| \`NOT_A_SETTING\` | string | (unset) | Nothing. |`);
      expect(settingsDrift(unknown).extra).toEqual(['NOT_A_SETTING']);
      expect(() => checkSettingsTable(unknown)).toThrow();
    });

    it('report every error code whose row is missing from docs/errors.md, by name', () => {
      const text = doc(ERRORS_DOC);
      for (const code of Object.keys(ERRORS)) {
        const planted = withoutRow(text, code);
        expect(errorCodesDrift(planted).missing, code).toEqual([code]);
        expect(() => checkErrorCodesTable(planted), code).toThrow();
      }
    });

    it('report an error code documented with another status or retriable flag', () => {
      const text = doc(ERRORS_DOC);
      const wrongStatus = text.replace('| `not_found` | 404 | no |', '| `not_found` | 410 | no |');
      expect(wrongStatus).not.toBe(text);
      expect(errorCodesDrift(wrongStatus).wrongStatus).toEqual(['not_found']);
      expect(() => checkErrorCodesTable(wrongStatus)).toThrow();
      const wrongRetriable = text.replace('| `rate_limited` | 429 | yes |', '| `rate_limited` | 429 | no |');
      expect(wrongRetriable).not.toBe(text);
      expect(errorCodesDrift(wrongRetriable).wrongRetriable).toEqual(['rate_limited']);
      expect(() => checkErrorCodesTable(wrongRetriable)).toThrow();
    });
  });
});
