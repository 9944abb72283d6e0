/**
 * No regular expression of the service backtracks past linear time (the standard: no
 * backtracking regex on outside input). A pattern such as `/\.+$/` is quadratic: on a long
 * inner run of dots the engine tries the run from each of its characters before it fails at
 * the run's end, and 80,000 dots held a thread for 6 s. Every pattern of the service's source
 * (test/helpers/regex-patterns.ts: literals, `RegExp`s of constant strings, and those its modules
 * build while they load) has recheck's verdict recorded in test/regex-verdicts.json. One that
 * recheck finds super-linear, or cannot decide, is allowed only when ALLOWED lists it with the
 * bound on what it reads; a `RegExp` built inside a function from something else is allowed only
 * when BUILT lists it with what it is built from. An entry that names nothing found fails too.
 *
 * Patterns supplied by callers (a crawl's include paths) run on RE2 (pipeline/runtime/linear-regex.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { HTTP_URL_PATTERN } from '../schemas/api/common.js';
import { keyOf, RECHECK_VERSION, readPatterns, readRecorded, servicePatterns, unrecorded, verdict, verdicts, type Construction, type Pattern } from './helpers/regex-patterns.js';

/**
 * A super-linear pattern that stays, where it stays: its file, its key (`/source/flags`, flags
 * without g and y), and the bound on what it reads there. The same pattern in another file
 * needs its own entry.
 */
interface Allowed {
  readonly file: string;
  readonly key: string;
  readonly why: string;
}

const ALLOWED: readonly Allowed[] = [
  // Outside input, but short: cut (or checked) just before the pattern runs.
  { file: 'pipeline/intel/signals.ts', key: '/\\.+$/', why: 'name servers from RDAP cut to 255 characters (rdap-answer.ts), DNS names at most 255 bytes, ~1,020 characters escaped (dns.ts)' },
  { file: 'actors/parser/page-data/rules/contact.ts', key: '/\\.+$/', why: 'a candidate address is at most 318 characters: 64 before and 254 after its @ (the loops just above)' },
  { file: 'actors/parser/main-content/clean.ts', key: '/[:.!?…›»]+$/', why: 'run only when the text is at most 60 characters, checked in the same expression' },
  {
    file: 'actors/parser/main-content/patterns.ts',
    key: '/^[\\s(|,–-]*(?:(?:(?:mo|di|mi|do|fr|sa|so|mon|tue|wed|thu|fri|sat|sun)[a-z]*|(?:segunda|terça|terca|quarta|quinta|sexta)(?:-feira)?|sábado|domingo|lunes|martes|miércoles|jueves|viernes)\\.?,?\\s*)?(?:\\d{1,4}[./-]\\s?\\d{1,2}[./-]\\s?\\d{2,4}|\\d{1,2}\\.?\\s+[a-zäéû]+\\.?\\s+\\d{4}|\\d{1,2}\\s+de\\s+[a-zçé]+\\s+de\\s+\\d{4}|[a-zäéû]+\\.?\\s+\\d{1,2},?\\s+\\d{4}|\\d{1,2}:\\d{2})(?:[\\s,|–-]+(?:um\\s+|às\\s+|a las\\s+|at\\s+)?\\d{1,2}[:.]\\d{2}(?:\\s*(?:uhr|h|am|pm|a\\.m\\.|p\\.m\\.))?(?:\\s+(?:[ecmp][sd]?t|gmt|utc|bst|cet|cest))?)?[\\s)|,–-]*$/i',
    why: 'DATE_LINE runs on text of at most 80 characters (lines.ts) and on a sentence under 100 visible characters, about 200 in all (expand.ts)',
  },
  { file: 'actors/parser/main-content/patterns.ts', key: '/\\b(?:sign up|subscribe|register)\\b[^!?]{0,80}\\b(?:newsletters?|youtube channel)\\b/i', why: 'NEWSLETTER_PROMPT: each attempt reads at most ~100 characters past its start ({0,80}), and it runs on a credit line of at most MAX_CREDIT characters (lines.ts)' },
  { file: 'pipeline/intel/site/company-text.ts', key: "/^(\\p{Lu}[\\p{L} .'-]{1,40}),?\\s+([A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2})$/u", why: 'a line of the page cut to MAX_LINE (160) characters' },
  { file: 'pipeline/intel/site/company-text.ts', key: '/\\s*[,|·•]\\s*/', why: 'a line of the page cut to MAX_LINE (160) characters' },
  { file: 'pipeline/intel/site/company-text.ts', key: '/(\\d[\\d.,]{0,9})\\s*(?:[-–]|to|bis)\\s*(\\d[\\d.,]{0,9})\\+?\\s*$|(\\d[\\d.,]{0,9})\\s*\\+?\\s*$/', why: 'the text read is at most 24 characters (cut just above)' },
  { file: 'pipeline/intel/site/company.ts', key: '/\\s+[|–—:·-]\\s+/', why: "the title's whitespace is collapsed first (html.ts), so each \\s+ matches one character" },
  { file: 'pipeline/structured/text.ts', key: '/[.,]+$/', why: 'the text is cut to 200 characters just before' },
  { file: 'pipeline/structured/text.ts', key: '/(\\d+(?:[.,]\\d+)?) ?(?:hours?|hrs?|h|std\\.?|stunden?)(?![a-z])/i', why: 'a duration read from text cut to 100 characters' },
  { file: 'pipeline/structured/text.ts', key: '/(\\d+) ?(?:minutes?|mins?|m|minuten?)(?![a-z])/i', why: 'a duration read from text cut to 100 characters' },
  // Outside input of any length, but every attempt ends where it starts to fail.
  { file: 'actors/frontier/sitemaps.ts', key: '/<[^>]*>/', why: "run only on the text up to its last '>' (throughLastGt), so every '<' finds its '>'" },
  { file: 'actors/frontier/sitemaps.ts', key: '/<(?:[\\w.-]+:)?link\\b([^>]*)>/i', why: "run only on the text up to its last '>' (throughLastGt)" },
  { file: 'actors/parser/formats/clean.ts', key: '/url\\(\\s*(?:["\']\\s*)?data:[^)]*\\)/i', why: "run only on the style up to its last ')', so every url(data: finds its ')'" },
  { file: 'pipeline/runtime/net/addresses.ts', key: '/%.*$/', why: "only on an address isIP accepted or the resolver returned: one '%' and no line break, so the first attempt matches (guard.ts, agents.ts)" },
  // Not outside input.
  { file: 'gateway/mcp/stdio.ts', key: '/\\/+$/', why: "the operator's own --url / WDS_URL" },
  { file: 'cli/client.ts', key: '/\\/+$/', why: "the operator's own --url / WDS_URL" },
  { file: 'pipeline/runtime/store/code-pages.ts', key: '/^([0-9a-f]+)-([0-9a-f]+) (\\S{4}) \\S+ \\S+ \\S+\\s*(.*)$/', why: "a line of the process's own /proc/self/smaps" },
  { file: 'infra/codegen/generate-types.ts', key: '/\\s*\\n\\s*/', why: "code generation over the repository's own schema docs; never run by the service" },
];

/** A `RegExp` built in a function from something not constant: its file, the argument as written, and why it is safe. */
interface Built {
  readonly file: string;
  readonly argument: string;
  readonly why: string;
}

const BUILT: readonly Built[] = [
  {
    file: 'actors/frontier/sitemaps.ts',
    argument: '`<(?:[\\\\w.-]+:)?${tag}(?:\\\\s[^>]*)?>`',
    why: "an opening tag, tag one of the file's own element names (url, loc, title, lastmod, entry, item, link, guid), run on the text up to its last '>' (throughLastGt): every attempt ends at a '>'",
  },
  {
    file: 'actors/frontier/sitemaps.ts',
    argument: '`</(?:[\\\\w.-]+:)?${tag}\\\\s*>`',
    why: "a closing tag, tag one of the file's own element names; linear (recheck: safe for each)",
  },
  {
    file: 'actors/parser/page-data/rules/date-text.ts',
    argument: 'p.source',
    why: "the global copy of each of the file's own literal patterns, made once as the module loads; the literals are checked",
  },
  {
    file: 'pipeline/search/index/tokenize.ts',
    argument: 'RUN_AT',
    why: 'a copy of the literal RUN_AT (a sticky character-class run), checked as a literal, so that each call has its own lastIndex',
  },
  {
    file: 'pipeline/search/index/tokenize.ts',
    argument: 'WORD_AT',
    why: 'a copy of the literal WORD_AT (one character class, sticky), checked as a literal',
  },
  {
    file: 'infra/codegen/gen-clickhouse-cluster.ts',
    argument: '`\\\\b${SOURCE_DB}\\\\.(\\\\w+)`',
    why: "code generation over the repository's own migrations, with a constant database name; never run by the service",
  },
];

describe('regular expressions', () => {
  let found: Awaited<ReturnType<typeof servicePatterns>>;
  beforeAll(async () => {
    found = await servicePatterns();
  }, 120_000);

  it('reads literals and constructions, and recheck finds a quadratic trim and a nested repeat', async () => {
    const { literals, constructions } = readPatterns(
      'scratch.ts',
      "const a = /\\.+$/g; const b = new RegExp('(a+)+b', 'i'); const c = new RegExp(a.source);\nfunction f(t: string) { return new RegExp(`^${t}`); }",
    );
    expect(literals.map((p) => keyOf(p))).toEqual(['/\\.+$/', '/(a+)+b/i']);
    expect(constructions.map((c) => [c.argument, c.perCall])).toEqual([
      ['a.source', false],
      ['`^${t}`', true],
    ]);
    expect(await verdict(literals[0] as Pattern)).toBe('vulnerable (polynomial 2)');
    expect(await verdict(literals[1] as Pattern)).toBe('vulnerable (exponential)');
    expect(await verdict({ source: '^[a-z]+(?:\\.[a-z]+)*$', flags: '' })).toBe('safe');
  }, 60_000);

  it("finds the source it is meant to check, a pattern a module builds as it loads, and the schemas' patterns", () => {
    const { patterns, files } = found;
    expect(files).toBeGreaterThan(300);
    expect(patterns.length).toBeGreaterThan(200);
    // score.ts builds its word patterns from the sources of patterns.ts's (the `g` flag added).
    expect(patterns.some((p) => p.file.startsWith('built while'))).toBe(true);
    expect(patterns.some((p) => p.file.startsWith('schema of') && p.source === HTTP_URL_PATTERN && p.flags === 'u')).toBe(true);
  });

  it('has a verdict recorded for every pattern, under the recheck installed, and none for a pattern gone', async () => {
    const { patterns, keys } = found;
    const recorded = readRecorded();
    expect(recorded.recheck).toBe(RECHECK_VERSION);
    const missing = unrecorded(patterns, recorded.verdicts);
    // Checked here, so that the failure says what recheck thinks; recorded with `node --import tsx test/helpers/regex-patterns.ts --write`.
    const said = await verdicts(missing);
    expect(missing.map((p) => `${p.file}:${p.line}: ${keyOf(p)} has no recorded verdict (recheck: ${said.get(keyOf(p))})`)).toEqual([]);
    expect(Object.keys(recorded.verdicts).filter((key) => !keys.has(key))).toEqual([]);
  }, 240_000);

  it('every pattern is linear, or allowed where it is with the bound on what it reads', () => {
    const { patterns } = found;
    const { verdicts: recorded } = readRecorded();
    const superLinear = patterns.filter((p) => recorded[keyOf(p)] !== undefined && recorded[keyOf(p)] !== 'safe');
    const allows = (p: Pattern) => ALLOWED.some((a) => a.file === p.file && a.key === keyOf(p));
    const offences = superLinear.filter((p) => !allows(p)).map((p) => `${p.file}:${p.line}: ${keyOf(p)} is ${recorded[keyOf(p)]}`);
    expect(offences.sort()).toEqual([]);
    const stale = ALLOWED.filter((a) => !superLinear.some((p) => p.file === a.file && keyOf(p) === a.key));
    expect(stale.map((a) => `${a.file}: ${a.key} is allowed, and is gone or linear now`)).toEqual([]);
  });

  it('every RegExp built per call is listed with what it is built from', async () => {
    const { constructions } = found;
    const perCall = constructions.filter((c) => c.perCall);
    const listed = (c: Construction) => BUILT.some((b) => b.file === c.file && b.argument === c.argument);
    expect(perCall.filter((c) => !listed(c)).map((c) => `${c.file}:${c.line}: RegExp(${c.argument})`)).toEqual([]);
    expect(BUILT.filter((b) => !perCall.some((c) => c.file === b.file && c.argument === b.argument)).map((b) => `${b.file}: ${b.argument}`)).toEqual([]);
  });
});
