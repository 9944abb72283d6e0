/**
 * Extraction quality of the page rules (actors/parser/page-data/rules): how often what they
 * read from the visible page agrees with what the same page's own JSON-LD says, on pages
 * where the markup has been removed first.
 *
 * For every corpus page that carries JSON-LD (trafilatura-eval's 990 pages, cache/ then
 * eval/, and mozilla/readability's test pages, from `../shared/corpus/` or `CORPUS_DIR`):
 *   truth     the JSON-LD, parsed here (tolerant: HTML comments, CDATA, control characters
 *             and trailing commas are forgiven; arrays and `@graph` flattened; `@id`
 *             references resolved), its first Article-family thing (Article, NewsArticle and
 *             its kinds, BlogPosting, Report, TechArticle, ScholarlyArticle,
 *             SocialMediaPosting…): `headline` (else `name`), `author` names, `datePublished`,
 *             `description`;
 *   input     the page with ALL markup stripped — every `<script type=application/ld+json>`,
 *             every `<meta>`, and the attributes itemscope, itemtype, itemprop, itemid,
 *             itemref, vocab, typeof, property, resource, prefix — serialized and loaded again
 *             as the parser loads pages, so the rules never see the truth;
 *   scores    type: the rules' guess is Article (none is a miss, a Product guess a wrong
 *             find); headline: normalized text equal (exact) and token F1 >= 0.8 (fuzzy);
 *             author: any truth name equal to a found one, case and whitespace aside;
 *             datePublished: the same calendar date (a page's local date and the markup's
 *             UTC one can differ by a day: counted a miss); description: token F1 >= 0.5,
 *             and the mean F1. The truth is what the site wrote in its markup: an
 *             organisation as author, an SEO headline or description unlike the visible
 *             one, count as misses too, so 1.0 is out of reach.
 * Per field: pages with truth, found (the rules gave a value), correct, accuracy
 * (correct / with truth), precision (correct / found). Every page is in `all`; the held-out
 * split (position % 5 === 0 in its corpus: trafilatura's evaldata order, readability's sorted
 * folders) was never looked at while tuning the rules; the rest is `tuning`.
 *
 * Also printed: how many pages carry each JSON-LD type (a Product/Recipe/Organization line
 * says whether the corpus has enough of them to score: it has 4 Product pages, so only the
 * Article family is scored), and the rules' speed (ms per page, parsing not counted).
 * Prints one JSON line per split and field and a table on stderr. Run it alone with
 * `npx tsx bench/extract-quality.ts`; without the corpus it prints one line and exits 0.
 * BENCH_EXTRACT_QUALITY_PAGES caps the pages read from each corpus (default all).
 */
import { load } from 'cheerio';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Element } from 'domhandler';
import { loadHtml } from '../actors/parser/formats/load-html.js';
import { readPageFacts } from '../actors/parser/page-data/rules/index.js';
import type { Thing, ThingValue } from '../pipeline/structured/types.js';
import { corpusDir, readHtml, readabilityPages, trafilaturaPages } from './corpus.js';
import { emit, positiveInteger } from './lib.js';

/** Pages read from each corpus (BENCH_EXTRACT_QUALITY_PAGES, default all): the first ones, so the held-out split keeps its share. */
const MAX_PAGES = positiveInteger('BENCH_EXTRACT_QUALITY_PAGES', Number.MAX_SAFE_INTEGER);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Types counted as the Article family (schema.org Article and its descendants). */
const ARTICLE_TYPES = new Set([
  'article', 'newsarticle', 'analysisnewsarticle', 'askpublicnewsarticle', 'backgroundnewsarticle', 'opinionnewsarticle',
  'reportagenewsarticle', 'reviewnewsarticle', 'blogposting', 'liveblogposting', 'socialmediaposting',
  'discussionforumposting', 'report', 'techarticle', 'apireference', 'scholarlyarticle', 'medicalscholarlyarticle',
  'satiricalarticle', 'advertisercontentarticle',
]);
/** Types whose page counts are reported to see whether they could be scored (>= 20 pages). */
const OTHER_TYPES = ['Product', 'Recipe', 'Organization', 'LocalBusiness', 'Event', 'Person', 'WebPage'];
const MIN_PAGES_TO_SCORE = 20;
const READABILITY_URL = 'http://fakehost/test/page.html';

// ---------------------------------------------------------------- truth: JSON-LD

const LD_SCRIPT = /<script\b[^>]{0,500}?application\/ld\+json[^>]{0,200}>([\s\S]*?)<\/script\s*>/gi;

/** JSON.parse, then again with the usual breakage of hand-written JSON-LD forgiven. */
function tolerantParse(raw: string): Json | undefined {
  const attempts = [
    raw,
    raw
      .replace(/^\s*(?:<!--|\/\/\s*<!\[CDATA\[|<!\[CDATA\[)/, '')
      .replace(/(?:-->|\/\/\s*\]\]>|\]\]>)\s*$/, '')
      .replace(/[\u0000-\u001f]+/g, ' ')
      .replace(/,\s*([}\]])/g, '$1'),
  ];
  for (const text of attempts) {
    try {
      return JSON.parse(text) as Json;
    } catch {
      // next attempt
    }
  }
  return undefined;
}

const isObject = (v: Json | undefined): v is JsonObject => !!v && typeof v === 'object' && !Array.isArray(v);
const list = (v: Json | undefined): Json[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
const typesOf = (node: JsonObject): string[] =>
  list(node['@type']).filter((t): t is string => typeof t === 'string').map((t) => t.replace(/^https?:\/\/schema\.org\//i, ''));

/** Every object of the page's JSON-LD blocks: top level, arrays and `@graph` flattened. */
export function jsonLdNodes(html: string): JsonObject[] {
  const out: JsonObject[] = [];
  const add = (v: Json | undefined) => {
    for (const item of list(v)) {
      if (!isObject(item)) continue;
      out.push(item);
      if (item['@graph'] !== undefined) add(item['@graph']);
    }
  };
  for (const m of html.matchAll(LD_SCRIPT)) add(tolerantParse(m[1] ?? ''));
  return out;
}

const decode = (text: string): string => load(`<p>${text}</p>`)('p').text();
const textValue = (v: Json | undefined): string | null => {
  for (const item of list(v)) {
    if (typeof item === 'string' && item.trim()) return decode(item).replace(/\s+/g, ' ').trim();
    if (isObject(item) && typeof item['@value'] === 'string') return decode(item['@value']).trim();
  }
  return null;
};

export interface ArticleTruth {
  readonly headline: string | null;
  readonly authors: readonly string[];
  readonly datePublished: string | null;
  readonly description: string | null;
}

function authorNames(v: Json | undefined, byId: ReadonlyMap<string, JsonObject>): string[] {
  const names: string[] = [];
  for (const item of list(v)) {
    if (typeof item === 'string') names.push(decode(item).trim());
    else if (isObject(item)) {
      const node = typeof item['@id'] === 'string' && item.name === undefined ? (byId.get(item['@id']) ?? item) : item;
      const name = textValue(node.name);
      if (name) names.push(name);
    }
  }
  return names.filter(Boolean);
}

export function articleTruth(nodes: readonly JsonObject[]): ArticleTruth | null {
  const byId = new Map<string, JsonObject>();
  for (const n of nodes) if (typeof n['@id'] === 'string') byId.set(n['@id'], n);
  const article = nodes.find((n) => typesOf(n).some((t) => ARTICLE_TYPES.has(t.toLowerCase())));
  if (!article) return null;
  const date = textValue(article.datePublished);
  return {
    headline: textValue(article.headline) ?? textValue(article.name),
    authors: authorNames(article.author, byId),
    datePublished: date && /^\d{4}-\d{2}-\d{2}/.test(date) ? date.slice(0, 10) : null,
    description: textValue(article.description),
  };
}

// ---------------------------------------------------------------- input: markup stripped

const MARKUP_ATTRIBUTES = ['itemscope', 'itemtype', 'itemprop', 'itemid', 'itemref', 'vocab', 'typeof', 'property', 'resource', 'prefix'];

/** The page with every kind of structured markup removed (see the file comment). */
export function stripMarkup(html: string): string {
  const $ = loadHtml(html);
  $('script').filter((_, el) => /ld\+json/i.test((el as Element).attribs.type ?? '')).remove();
  $('meta').remove();
  $('*').each((_, el) => {
    const attribs = (el as Element).attribs;
    for (const name of MARKUP_ATTRIBUTES) if (name in attribs) delete attribs[name];
  });
  return $.html();
}

// ---------------------------------------------------------------- scoring

const normalize = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[\u2018\u2019\u201a\u201b`´]/g, "'")
    .replace(/[\u201c\u201d\u201e\u00ab\u00bb]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();

function tokens(text: string): string[] {
  const out: string[] = [];
  for (const t of normalize(text).split(/[^\p{L}\p{N}]+/u)) {
    if (!t) continue;
    if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(t)) out.push(...t);
    else out.push(t);
  }
  return out;
}

/** Token F1 of two texts (bag of words). */
export function tokenF1(actual: string, expected: string): number {
  const a = tokens(actual);
  const e = tokens(expected);
  if (!a.length || !e.length) return 0;
  const counts = new Map<string, number>();
  for (const t of e) counts.set(t, (counts.get(t) ?? 0) + 1);
  let overlap = 0;
  for (const t of a) {
    const n = counts.get(t) ?? 0;
    if (n > 0) {
      overlap += 1;
      counts.set(t, n - 1);
    }
  }
  if (!overlap) return 0;
  const p = overlap / a.length;
  const r = overlap / e.length;
  return (2 * p * r) / (p + r);
}

const firstText = (thing: Thing, name: string): string | null => {
  const v = thing.props[name]?.[0];
  return typeof v === 'string' ? v : null;
};
const personNames = (values: readonly ThingValue[] | undefined): string[] =>
  (values ?? []).flatMap((v) => (typeof v === 'object' ? (v.props.name ?? []).filter((n): n is string => typeof n === 'string') : typeof v === 'string' ? [v] : []));
const nameKey = (name: string): string => name.toLowerCase().replace(/\s+/g, ' ').trim();

type Field = 'type' | 'headline' | 'headline_fuzzy' | 'author' | 'datePublished' | 'description';
const FIELDS: readonly Field[] = ['type', 'headline', 'headline_fuzzy', 'author', 'datePublished', 'description'];

interface Tally {
  withTruth: number;
  found: number;
  correct: number;
  f1Sum: number;
}

interface PageScore {
  readonly field: Field;
  readonly truth: boolean;
  readonly found: boolean;
  readonly correct: boolean;
  readonly f1?: number;
}

function scoreArticle(truth: ArticleTruth, got: Thing): PageScore[] {
  const headline = firstText(got, 'headline');
  const f1 = truth.headline && headline ? tokenF1(headline, truth.headline) : 0;
  const names = personNames(got.props.author).map(nameKey);
  const date = firstText(got, 'datePublished');
  const description = firstText(got, 'description');
  const dF1 = truth.description && description ? tokenF1(description, truth.description) : 0;
  return [
    { field: 'type', truth: true, found: got.types.length > 0, correct: got.types.includes('Article') },
    { field: 'headline', truth: !!truth.headline, found: !!headline, correct: !!truth.headline && !!headline && normalize(headline) === normalize(truth.headline) },
    { field: 'headline_fuzzy', truth: !!truth.headline, found: !!headline, correct: f1 >= 0.8, f1 },
    { field: 'author', truth: truth.authors.length > 0, found: names.length > 0, correct: truth.authors.some((a) => names.includes(nameKey(a))) },
    { field: 'datePublished', truth: !!truth.datePublished, found: !!date, correct: !!date && !!truth.datePublished && date.slice(0, 10) === truth.datePublished },
    { field: 'description', truth: !!truth.description, found: !!description, correct: dF1 >= 0.5, f1: dF1 },
  ];
}

// ---------------------------------------------------------------- run

export interface CorpusPage {
  readonly corpus: string;
  readonly position: number;
  readonly url: string;
  readonly path: string;
}

export function corpusPages(): CorpusPage[] | null {
  const t = trafilaturaPages()?.slice(0, MAX_PAGES) ?? null;
  const r = readabilityPages()?.slice(0, MAX_PAGES) ?? null;
  if (!t && !r) return null;
  return [
    ...(t ?? []).map((p) => ({ corpus: 'trafilatura-eval', position: p.index, url: p.url, path: p.path })),
    ...(r ?? []).map((p, i) => ({ corpus: 'readability', position: i, url: READABILITY_URL, path: p.sourcePath })),
  ];
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;

function main(): void {
  const pages = corpusPages();
  if (!pages) {
    emit({ bench: 'extract-quality', skipped: `corpus not found under ${corpusDir()}` });
    return;
  }
  const splits = ['all', 'held-out', 'tuning'] as const;
  const tallies = new Map<string, Tally>();
  const tally = (split: string, field: Field): Tally => {
    const key = `${split}/${field}`;
    let t = tallies.get(key);
    if (!t) tallies.set(key, (t = { withTruth: 0, found: 0, correct: 0, f1Sum: 0 }));
    return t;
  };
  const typeCounts = new Map<string, number>();
  const articlePages = { all: 0, 'held-out': 0, tuning: 0 };
  let withJsonLd = 0;
  let rulesMs = 0;
  for (const page of pages) {
    const html = readHtml(page.path);
    const nodes = jsonLdNodes(html);
    if (!nodes.length) continue;
    withJsonLd += 1;
    for (const t of new Set(nodes.flatMap(typesOf))) typeCounts.set(t, (typeCounts.get(t) ?? 0) + 1);
    const truth = articleTruth(nodes);
    if (!truth) continue;
    const $ = loadHtml(stripMarkup(html));
    const start = performance.now();
    const got = readPageFacts($, page.url);
    rulesMs += performance.now() - start;
    const split = page.position % 5 === 0 ? 'held-out' : 'tuning';
    for (const s of ['all', split] as const) articlePages[s] += 1;
    for (const score of scoreArticle(truth, got)) {
      if (!score.truth) continue;
      for (const s of ['all', split]) {
        const t = tally(s, score.field);
        t.withTruth += 1;
        if (score.found) t.found += 1;
        if (score.correct) t.correct += 1;
        t.f1Sum += score.f1 ?? 0;
      }
    }
  }
  const counts = Object.fromEntries([...typeCounts].sort((a, b) => b[1] - a[1]).slice(0, 25));
  emit({ bench: 'extract-quality', scenario: 'truth-types', pages: pages.length, pages_with_json_ld: withJsonLd, article_pages: articlePages.all, type_pages: counts });
  for (const type of OTHER_TYPES) {
    const n = typeCounts.get(type) ?? 0;
    const reason = type !== 'Product' ? 'only Article and Product are scored' : n < MIN_PAGES_TO_SCORE ? `fewer than ${MIN_PAGES_TO_SCORE} pages` : 'no visible truth to compare yet';
    emit({ bench: 'extract-quality', template: type.toLowerCase(), pages_with_truth: n, scored: false, reason });
  }
  const rows: string[] = [];
  for (const split of splits) {
    for (const field of FIELDS) {
      const t = tally(split, field);
      const line = {
        bench: 'extract-quality',
        template: 'article',
        split,
        field,
        pages: articlePages[split],
        with_truth: t.withTruth,
        found: t.found,
        correct: t.correct,
        accuracy: round3(t.correct / (t.withTruth || 1)),
        precision: round3(t.correct / (t.found || 1)),
        ...(field === 'description' || field === 'headline_fuzzy' ? { mean_f1: round3(t.f1Sum / (t.withTruth || 1)) } : {}),
      };
      emit(line);
      rows.push(`${split.padEnd(9)} ${field.padEnd(15)} ${String(t.withTruth).padStart(5)} ${String(t.found).padStart(6)} ${String(t.correct).padStart(8)} ${line.accuracy.toFixed(3).padStart(9)} ${line.precision.toFixed(3).padStart(10)}${line.mean_f1 !== undefined ? `  mean F1 ${line.mean_f1.toFixed(3)}` : ''}`);
    }
  }
  emit({ bench: 'extract-quality', scenario: 'speed', pages: articlePages.all, pages_per_s: round3(articlePages.all / (rulesMs / 1000 || 1)), ms_per_page: round3(rulesMs / (articlePages.all || 1)) });
  process.stderr.write(`extract-quality: page rules vs the page's own JSON-LD (markup stripped), ${articlePages.all} Article pages\n`);
  process.stderr.write(`split     field           truth  found  correct  accuracy  precision\n${rows.join('\n')}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
