/**
 * docs/api/social.md's table of endpoints against the catalog (schemas/api/social.ts
 * SOCIAL_ENDPOINTS): each platform's endpoints, exactly, and each endpoint's inputs by name,
 * `?` marking exactly the optional ones. "the check itself" plants drifts and shows they are
 * reported.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SOCIAL_ENDPOINTS } from '../../schemas/api/social.js';
import { REPO_ROOT } from '../helpers/process.js';

const PAGE = 'docs/api/social.md';

/** `platform/endpoint` → its inputs as the table writes them (`name`, or `name?` when optional). */
function documented(text: string): Map<string, string[]> {
  const rows = text.split('\n').filter((l) => l.startsWith('| '));
  const out = new Map<string, string[]>();
  let platform = '';
  for (const row of rows.slice(1)) {
    const cells = row.slice(1, -1).split('|').map((c) => c.trim());
    if (/^[-: ]+$/.test(cells.join(''))) continue;
    platform = /^`([a-z]+)`$/.exec(cells[0] ?? '')?.[1] ?? platform;
    const endpoint = /^`([a-z]+)`$/.exec(cells[1] ?? '')?.[1] ?? '(none)';
    // The names are the backticked words outside parentheses (which hold values and notes).
    const inputs = [...(cells[2] ?? '').replace(/\([^)]*\)/g, '').matchAll(/`([A-Za-z]+\??)`/g)].map((m) => m[1] as string);
    out.set(`${platform}/${endpoint}`, inputs);
  }
  return out;
}

/** The catalog's inputs in the table's notation. */
function catalog(): Map<string, string[]> {
  return new Map(
    SOCIAL_ENDPOINTS.map((e) => {
      const schema = JSON.parse(JSON.stringify(e.input)) as { properties: Record<string, unknown>; required?: string[] };
      const names = Object.keys(schema.properties).map((n) => (schema.required?.includes(n) ? n : `${n}?`));
      return [`${e.platform}/${e.endpoint}`, names];
    }),
  );
}

function drift(text: string): string[] {
  const doc = documented(text);
  const code = catalog();
  const problems: string[] = [];
  for (const [id, inputs] of code) {
    const written = doc.get(id);
    if (!written) problems.push(`${id}: no row`);
    else if (JSON.stringify([...written].sort()) !== JSON.stringify([...inputs].sort())) problems.push(`${id}: the table says ${written.join(', ')}; the catalog ${inputs.join(', ')}`);
  }
  for (const id of doc.keys()) if (!code.has(id)) problems.push(`${id}: not in the catalog`);
  return problems;
}

const text = readFileSync(join(REPO_ROOT, PAGE), 'utf8');

describe(PAGE, () => {
  it('lists exactly the endpoints of schemas/api/social.ts, each with its inputs', () => {
    expect(documented(text).size).toBe(SOCIAL_ENDPOINTS.length);
    expect(drift(text)).toEqual([]);
  });

  it('the check itself: reports a missing row, an input renamed or made optional, and an endpoint the catalog lacks', () => {
    const subreddit = text.split('\n').find((l) => l.includes('| `subreddit` |')) as string;
    expect(drift(text.replace(`${subreddit}\n`, ''))).toEqual(['reddit/subreddit: no row']);
    expect(drift(text.replace('| `username` | karma, about', '| `user` | karma, about'))).toEqual(['hackernews/user: the table says user; the catalog username']);
    expect(drift(text.replace('`owner`, `repo`, `number`, `limit?`', '`owner`, `repo`, `number?`, `limit?`'))).toEqual(['github/issue: the table says owner, repo, number?, limit?; the catalog owner, repo, number, limit?']);
    const table = text.split('\n').filter((l) => l.startsWith('| ')).join('\n');
    expect(drift(`${table}\n| | \`trending\` | | nothing |`)).toEqual(['web/trending: not in the catalog']);
  });
});
