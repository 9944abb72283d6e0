/**
 * pipeline/pages/changes.ts and changes-diff.ts, the pure part: the change status of a page
 * against its previous snapshot (order matters, layout noise does not), the git-diff output
 * (unified text and the parse-diff shape, line numbers checked by hand and by applying the
 * patch), the json field diff, and the bound on large, very different pages.
 */
import { applyPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { MAX_EDIT_LINES, jsonEqual, unmatchedLines } from '../../pipeline/pages/changes-diff.js';
import {
  comparePages,
  compareSnapshots,
  normalizeMarkdown,
  WARNING_DIFF_TOO_LARGE,
  WARNING_JSON_UNAVAILABLE,
  type PageSnapshot,
} from '../../pipeline/pages/changes.js';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const T1 = Date.parse('2025-01-02T12:30:00.250Z');

function snap(markdown: string, options: { at?: number; statusCode?: number; json?: Record<string, unknown> | null } = {}): PageSnapshot {
  return { scrapedAt: options.at ?? T1, statusCode: options.statusCode ?? 200, markdown, json: options.json ?? null };
}

const PAGE = '# Prices\n\nThe basic plan costs 10 EUR.\n\nThe pro plan costs 20 EUR.\n\nContact us.\n';

describe('pipeline/pages/changes: status', () => {
  it('is new on a first scrape, with no previous time and no diff even when modes ask for one', () => {
    const tracking = compareSnapshots(null, snap(PAGE, { json: { a: 1 } }), ['git-diff', 'json']);
    expect(tracking).toEqual({ previousScrapeAt: null, changeStatus: 'new', visibility: 'visible' });
  });

  it('is same for the same markdown, and gives the previous scrape time as ISO', () => {
    const tracking = compareSnapshots(snap(PAGE, { at: T0 }), snap(PAGE), ['git-diff', 'json']);
    expect(tracking).toEqual({ previousScrapeAt: '2025-01-01T00:00:00.000Z', changeStatus: 'same', visibility: 'visible' });
  });

  it('is same when only whitespace, line endings, blank lines and decorative images changed', () => {
    const noisy = [
      '',
      '# Prices   ',
      '\r\n\r\n',
      'The  basic\tplan costs\u00a010 EUR.',
      '![](https://t.example.com/pixel.gif?ts=171234)',
      '',
      '',
      '',
      'The pro plan costs 20 EUR.\t',
      '',
      'Contact us.',
      '',
      '',
    ].join('\r\n');
    expect(normalizeMarkdown(noisy)).toBe(normalizeMarkdown(PAGE));
    expect(compareSnapshots(snap(PAGE, { at: T0 }), snap(noisy), ['git-diff']).changeStatus).toBe('same');
  });

  it('keeps what carries meaning: indentation, an image with alt text, a changed word', () => {
    expect(normalizeMarkdown('a\n    code\n')).not.toBe(normalizeMarkdown('a\ncode\n'));
    const withLogo = (src: string) => `${PAGE}\n![Logo](${src})\n`;
    expect(compareSnapshots(snap(withLogo('https://x.example/a.png'), { at: T0 }), snap(withLogo('https://x.example/b.png')), []).changeStatus).toBe('changed');
    expect(compareSnapshots(snap(PAGE, { at: T0 }), snap(PAGE.replace('10 EUR', '12 EUR')), []).changeStatus).toBe('changed');
    expect(normalizeMarkdown('')).toBe('');
    expect(normalizeMarkdown('\n\n  \n')).toBe('');
  });

  it('is changed when a paragraph moved: the same lines in another order', () => {
    const moved = '# Prices\n\nThe pro plan costs 20 EUR.\n\nThe basic plan costs 10 EUR.\n\nContact us.\n';
    const sorted = (text: string) => text.split('\n').sort().join('\n');
    expect(sorted(moved)).toBe(sorted(PAGE));
    const tracking = compareSnapshots(snap(PAGE, { at: T0 }), snap(moved), ['git-diff']);
    expect(tracking.changeStatus).toBe('changed');
    const changes = tracking.diff?.json.files[0]?.chunks.flatMap((c) => c.changes) ?? [];
    const dels = changes.filter((c) => c.type === 'del').map((c) => c.content);
    const adds = changes.filter((c) => c.type === 'add').map((c) => c.content);
    expect(dels.length).toBeGreaterThan(0);
    expect(adds.length).toBeGreaterThan(0);
    // The line that moved is deleted at its old place and added at its new one.
    const movedLine = dels.map((d) => d.slice(1)).find((line) => adds.includes(`+${line}`) && line !== '');
    expect(movedLine).toMatch(/plan costs/);
  });

  it('is removed, and hidden, when the page answers 404 or 410, with or without a history', () => {
    for (const statusCode of [404, 410]) {
      expect(compareSnapshots(snap(PAGE, { at: T0 }), snap('Not found', { statusCode }), ['git-diff', 'json'])).toEqual({
        previousScrapeAt: '2025-01-01T00:00:00.000Z',
        changeStatus: 'removed',
        visibility: 'hidden',
      });
    }
    expect(compareSnapshots(null, snap('Not found', { statusCode: 404 }), [])).toEqual({ previousScrapeAt: null, changeStatus: 'removed', visibility: 'hidden' });
    // A page that comes back is changed, even when its text is the error page's text.
    expect(compareSnapshots(snap(PAGE, { at: T0, statusCode: 404 }), snap(PAGE), []).changeStatus).toBe('changed');
    // Other error codes are compared like any page.
    expect(compareSnapshots(snap(PAGE, { at: T0 }), snap(PAGE, { statusCode: 500 }), []).changeStatus).toBe('same');
  });
});

describe('pipeline/pages/changes: git-diff', () => {
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`);
  const before = `${lines(12).join('\n')}\n`;
  // A line inserted at the top, line 2 rewritten, line 10 removed.
  const after = `${['line 0', 'line 1', 'line two', ...lines(12).slice(2, 9), ...lines(12).slice(10)].join('\n')}\n`;

  it('writes a unified diff with ISO headers and 3 lines of context that applies to the previous text', () => {
    const tracking = compareSnapshots(snap(before, { at: T0 }), snap(after), ['git-diff']);
    expect(tracking.changeStatus).toBe('changed');
    expect(tracking.json).toBeUndefined();
    expect(tracking.diff?.text).toBe(
      [
        '--- previous\t2025-01-01T00:00:00.000Z',
        '+++ current\t2025-01-02T12:30:00.250Z',
        '@@ -1,5 +1,6 @@',
        '+line 0',
        ' line 1',
        '-line 2',
        '+line two',
        ' line 3',
        ' line 4',
        ' line 5',
        '@@ -7,6 +8,5 @@',
        ' line 7',
        ' line 8',
        ' line 9',
        '-line 10',
        ' line 11',
        ' line 12',
        '',
      ].join('\n'),
    );
    expect(applyPatch(before, tracking.diff?.text ?? '')).toBe(after);
  });

  it('gives the same hunks in the parse-diff shape: add/del with ln, normal with ln1/ln2', () => {
    const tracking = compareSnapshots(snap(before, { at: T0 }), snap(after), ['git-diff']);
    const files = tracking.diff?.json.files ?? [];
    expect(files).toHaveLength(1);
    expect(files[0]?.from).toBe('previous');
    expect(files[0]?.to).toBe('current');
    expect(files[0]?.chunks.map((c) => c.content)).toEqual(['@@ -1,5 +1,6 @@', '@@ -7,6 +8,5 @@']);
    expect(files[0]?.chunks[0]?.changes).toEqual([
      { type: 'add', add: true, ln: 1, content: '+line 0' },
      { type: 'normal', normal: true, ln1: 1, ln2: 2, content: ' line 1' },
      { type: 'del', del: true, ln: 2, content: '-line 2' },
      { type: 'add', add: true, ln: 3, content: '+line two' },
      { type: 'normal', normal: true, ln1: 3, ln2: 4, content: ' line 3' },
      { type: 'normal', normal: true, ln1: 4, ln2: 5, content: ' line 4' },
      { type: 'normal', normal: true, ln1: 5, ln2: 6, content: ' line 5' },
    ]);
    expect(files[0]?.chunks[1]?.changes).toEqual([
      { type: 'normal', normal: true, ln1: 7, ln2: 8, content: ' line 7' },
      { type: 'normal', normal: true, ln1: 8, ln2: 9, content: ' line 8' },
      { type: 'normal', normal: true, ln1: 9, ln2: 10, content: ' line 9' },
      { type: 'del', del: true, ln: 10, content: '-line 10' },
      { type: 'normal', normal: true, ln1: 11, ln2: 11, content: ' line 11' },
      { type: 'normal', normal: true, ln1: 12, ln2: 12, content: ' line 12' },
    ]);
  });

  it('diffs the normalized texts, so whitespace noise does not show as a change', () => {
    const tracking = compareSnapshots(snap('a  b\n\n\n\nc\n', { at: T0 }), snap('a b   \n\nC\n'), ['git-diff']);
    expect(tracking.diff?.text.split('\n').slice(2)).toEqual(['@@ -1,3 +1,3 @@', ' a b', ' ', '-c', '+C', '']);
  });

  it('runs only when the status is changed and the mode was asked for', () => {
    expect(compareSnapshots(snap(before, { at: T0 }), snap(after), []).diff).toBeUndefined();
    expect(compareSnapshots(snap(before, { at: T0 }), snap(after), ['json']).diff).toBeUndefined();
    expect(compareSnapshots(snap(before, { at: T0 }), snap(before), ['git-diff']).diff).toBeUndefined();
  });

  it('gives up on two 200 KB pages that differ everywhere, still answering changed', () => {
    const page = (side: string) => {
      const out: string[] = [];
      for (let i = 0, size = 0; size < 200_000; i++) {
        const line = `${side} paragraph ${i}: ${((i * 7919) % 104729).toString(36)} words words words`;
        out.push(line, '');
        size += line.length + 2;
      }
      return out.join('\n');
    };
    const previous = page('before');
    const current = page('after');
    expect(previous.length).toBeGreaterThanOrEqual(200_000);
    const { tracking, warnings } = comparePages(snap(previous, { at: T0 }), snap(current), ['git-diff']);
    expect(tracking.changeStatus).toBe('changed');
    expect(tracking.diff?.json.files).toEqual([{ from: 'previous', to: 'current', chunks: [] }]);
    const text = tracking.diff?.text.split('\n') ?? [];
    expect(text[0]).toBe('--- previous\t2025-01-01T00:00:00.000Z');
    expect(text[1]).toBe('+++ current\t2025-01-02T12:30:00.250Z');
    expect(text[2]).toContain(`more than ${MAX_EDIT_LINES} lines changed`);
    expect(warnings).toEqual([WARNING_DIFF_TOO_LARGE]);
  });

  it('gives up on a 200 KB page whose halves swapped: no line is new, but too many moved', () => {
    const paragraphs = Array.from({ length: 3600 }, (_, i) => `paragraph ${i} with some words in it and a few more words`);
    const previous = paragraphs.join('\n\n');
    const current = [...paragraphs.slice(1800), ...paragraphs.slice(0, 1800)].join('\n\n');
    expect(previous.length).toBeGreaterThanOrEqual(200_000);
    expect(unmatchedLines(normalizeMarkdown(previous), normalizeMarkdown(current))).toBe(0);
    const { tracking, warnings } = comparePages(snap(previous, { at: T0 }), snap(current), ['git-diff']);
    expect(tracking.changeStatus).toBe('changed');
    expect(tracking.diff?.json.files[0]?.chunks).toEqual([]);
    expect(warnings).toEqual([WARNING_DIFF_TOO_LARGE]);
  });

  it('counts the lines one text has and the other lacks, as multisets', () => {
    expect(unmatchedLines('a\nb\nb\n', 'b\na\nb\n')).toBe(0);
    expect(unmatchedLines('a\nb\nb\n', 'a\nb\nc\n')).toBe(2);
    expect(unmatchedLines('', 'x\ny\n')).toBe(2);
  });

  it('still diffs a 200 KB page where a few lines changed', () => {
    const body = Array.from({ length: 4000 }, (_, i) => `paragraph ${i} with some words in it and a few more words`).join('\n\n');
    const edited = body.replace('paragraph 2000 with', 'paragraph 2000 without').replace('paragraph 3999 with', 'paragraph 3999 WITH');
    const { tracking, warnings } = comparePages(snap(body, { at: T0 }), snap(edited), ['git-diff']);
    expect(warnings).toEqual([]);
    const chunks = tracking.diff?.json.files[0]?.chunks ?? [];
    expect(chunks).toHaveLength(2);
    const dels = chunks.flatMap((c) => c.changes).filter((c) => c.type === 'del');
    expect(dels.map((c) => [c.ln, c.content])).toEqual([
      [4001, '-paragraph 2000 with some words in it and a few more words'],
      [7999, '-paragraph 3999 with some words in it and a few more words'],
    ]);
  });
});

describe('pipeline/pages/changes: json mode', () => {
  const previousJson = { price: 10, title: 'Basic', tags: ['a', 'b'], gone: 'x', nested: { a: 1, b: [1, 2] } };
  const currentJson = { price: 12, title: 'Basic', tags: ['b', 'a'], added: true, nested: { b: [1, 2], a: 1 } };

  it('reports the top-level fields that differ: changed, added (previous null) and removed (current null)', () => {
    const tracking = compareSnapshots(snap(PAGE, { at: T0, json: previousJson }), snap(`${PAGE}\nNew line.\n`, { json: currentJson }), ['json']);
    expect(tracking.changeStatus).toBe('changed');
    expect(tracking.diff).toBeUndefined();
    expect(tracking.json).toEqual({
      price: { previous: 10, current: 12 },
      tags: { previous: ['a', 'b'], current: ['b', 'a'] },
      gone: { previous: 'x', current: null },
      added: { previous: null, current: true },
    });
  });

  it('is an empty object when the page changed but its json did not; absent when the page is the same', () => {
    expect(compareSnapshots(snap(PAGE, { at: T0, json: previousJson }), snap(`${PAGE}\nMore.\n`, { json: { ...previousJson } }), ['json']).json).toEqual({});
    expect(compareSnapshots(snap(PAGE, { at: T0, json: previousJson }), snap(PAGE, { json: currentJson }), ['json']).json).toBeUndefined();
  });

  it('is omitted with a warning when either snapshot has no json', () => {
    const changed = `${PAGE}\nMore.\n`;
    for (const [a, b] of [
      [null, currentJson],
      [previousJson, null],
    ] as const) {
      const { tracking, warnings } = comparePages(snap(PAGE, { at: T0, json: a }), snap(changed, { json: b }), ['json', 'git-diff']);
      expect(tracking.json).toBeUndefined();
      expect(tracking.diff).toBeDefined();
      expect(warnings).toEqual([WARNING_JSON_UNAVAILABLE]);
    }
  });

  it('compares JSON values deeply: objects by key in any order, arrays in order', () => {
    expect(jsonEqual({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 1 })).toBe(false);
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual(1, '1')).toBe(false);
  });
});
