/**
 * README.md is the first page, not the reference: at most 250 lines, and every reference it
 * points to exists. Every relative markdown link in README.md, docs/**\/*.md and
 * bench/README.md points to a file (or folder) that exists and, with a `#fragment` into a
 * markdown file, to a heading there; every page of docs/ can be reached from README.md by
 * following links.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/process.js';

const README_MAX_LINES = 250;

/** Markdown files under `dir` (repository-relative), recursively. */
function markdownUnder(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return markdownUnder(path);
    return e.name.endsWith('.md') ? [path] : [];
  });
}

const PAGES = ['README.md', 'bench/README.md', ...markdownUnder('docs')];

function read(path: string): string {
  return readFileSync(join(REPO_ROOT, path), 'utf8');
}

/** The text without fenced code blocks (a `#` line there is no heading). */
function withoutFences(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The text without fenced code blocks and inline code spans (their brackets are not links). */
function prose(text: string): string {
  return withoutFences(text).replace(/`[^`\n]*`/g, '');
}

/** The targets of `[text](target)` links in markdown text, in order. */
function links(text: string): string[] {
  return [...prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown text's headings (a repeated one gets -1, -2, … as on GitHub). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutFences(text).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(m[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** What is wrong with the relative links of `page` (a repository-relative path whose text is `text`). */
function brokenLinks(page: string, text: string, exists: (path: string) => boolean, textOf: (path: string) => string): string[] {
  return links(text).flatMap((target) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return []; // https:, mailto: …
    const [pathPart = '', fragment] = target.split('#', 2);
    const path = pathPart === '' ? page : normalize(join(dirname(page), decodeURIComponent(pathPart)));
    if (path.startsWith('..')) return [`${page}: ${target} leaves the repository`];
    if (!exists(path)) return [`${page}: ${target} (${path} does not exist)`];
    if (fragment !== undefined && path.endsWith('.md') && !anchors(pathPart === '' ? text : textOf(path)).has(fragment)) return [`${page}: ${target} (no heading #${fragment} in ${path})`];
    return [];
  });
}

const onDisk = (path: string) => existsSync(join(REPO_ROOT, path));

/** The repository-relative markdown files a page links to. */
function linkedPages(page: string): string[] {
  return links(read(page))
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'))
    .map((t) => normalize(join(dirname(page), decodeURIComponent(t.split('#')[0] as string))))
    .filter((p) => onDisk(p) && statSync(join(REPO_ROOT, p)).isFile() && p.endsWith('.md'));
}

describe('README.md', () => {
  const readme = read('README.md');

  it(`is at most ${README_MAX_LINES} lines`, () => {
    const lines = readme.endsWith('\n') ? readme.slice(0, -1).split('\n').length : readme.split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('points to each reference, and each exists', () => {
    const targets = links(readme).map((t) => t.split('#')[0] as string);
    for (const reference of [
      'docs/api/README.md',
      'docs/api/page-reading.md',
      'docs/api/extraction.md',
      'docs/api/search.md',
      'docs/api/monitors.md',
      'docs/api/mentions.md',
      'docs/api/social.md',
      'docs/configuration.md',
      'docs/errors.md',
      'docs/webhooks.md',
      'docs/keys-and-credits.md',
      'docs/distributed.md',
      'docs/architecture.md',
      'bench/README.md',
    ]) {
      expect(targets, reference).toContain(reference);
    }
    const local = targets.filter((t) => t.startsWith('docs/') || t === 'bench/README.md');
    expect(local.filter((t) => !onDisk(t))).toEqual([]);
  });

  it('says every operation is served, and when one answers 501', () => {
    expect(readme).toMatch(/Every one of the 46 operations is served/);
    expect(readme).toMatch(/501 not_implemented/);
    expect(readme).not.toMatch(/not served yet/i);
  });
});

describe('links between the docs', () => {
  it('every relative link in README.md, docs/**/*.md and bench/README.md points to a file that exists (and a heading that exists)', () => {
    expect(PAGES).toContain('docs/configuration.md');
    expect(PAGES.flatMap((page) => brokenLinks(page, read(page), onDisk, read))).toEqual([]);
  });

  it('every page of docs/ can be reached from README.md', () => {
    const reached = new Set<string>(['README.md']);
    const queue = ['README.md'];
    while (queue.length) for (const next of linkedPages(queue.shift() as string)) if (!reached.has(next)) (reached.add(next), queue.push(next));
    expect(markdownUnder('docs').filter((p) => !reached.has(p))).toEqual([]);
    expect(reached.has('bench/README.md')).toBe(true);
  });

  describe('the checks themselves', () => {
    const files: Record<string, string> = {
      'docs/a.md': '# A\n\n## Two words\n\nSee [b](b.md), [b\'s part](b.md#part-one), [web](https://example.com/x.md) and `[not](a link.md)`.\n\n```sh\n# not a heading\n[nor](this.md)\n```\n',
      'docs/b.md': '# B\n\n## Part one\n\n## Part one\n\nBack to [the top](#b), [a](a.md#two-words), [the second](#part-one-1).\n',
    };
    const exists = (p: string) => p in files;
    const textOf = (p: string) => files[p] ?? '';

    it('finds links outside code only, and GitHub anchors', () => {
      expect(links(files['docs/a.md'] as string)).toEqual(['b.md', 'b.md#part-one', 'https://example.com/x.md']);
      expect([...anchors(files['docs/b.md'] as string)]).toEqual(['b', 'part-one', 'part-one-1']);
      expect(slug('Mentions (`bench/mentions.ts`)')).toBe('mentions-benchmentionsts');
    });

    it('accepts links that resolve', () => {
      for (const [page, text] of Object.entries(files)) expect(brokenLinks(page, text, exists, textOf)).toEqual([]);
    });

    it('reports a missing file, a missing heading and a path out of the repository', () => {
      const text = 'See [gone](gone.md), [b](b.md#part-two), [up](../../x.md) and [here](#nowhere).';
      expect(brokenLinks('docs/a.md', `# A\n\n${text}`, exists, textOf)).toEqual([
        'docs/a.md: gone.md (docs/gone.md does not exist)',
        'docs/a.md: b.md#part-two (no heading #part-two in docs/b.md)',
        'docs/a.md: ../../x.md leaves the repository',
        'docs/a.md: #nowhere (no heading #nowhere in docs/a.md)',
      ]);
    });
  });
});
