/**
 * pipeline/search/index: the tokenizer, the rows a page becomes, snippets and filters (no
 * engine), then the index in a real store on both drivers — chdb in this process (embedded
 * mode) and @clickhouse/client over HTTP to chdb's ClickHouse interface in its own process
 * (distributed mode): the 0005, 0008 and 0009 migrations, BM25 ranking, per-key visibility, one result per
 * URL, stale postings, lang and time filters, paging, snippets, hostile query text, and the
 * parser writing the index next to `pages`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handlePageFetched } from '../../actors/parser/index.js';
import { ServiceError } from '../../pipeline/clients/service-http.js';
import { SAMPLE_EVENTS } from '../../infra/codegen/event-samples.js';
import { BatchWriter, createStore, type Store } from '../../pipeline/runtime/store/index.js';
import { scrapeRequestFields } from '../../pipeline/pages/scrape-request.js';
import {
  BM25_B,
  BM25_K1,
  LocalIndexProvider,
  corpusStats,
  flushSearchRows,
  indexStats,
  statsFor,
  eachTerm,
  indexRows,
  pageIndexFacts,
  pageSearchRows,
  queryTerms,
  rangeStartMs,
  rank,
  snippetOf,
  tokenize,
  unappliedFilters,
  urlHash,
  type IndexedPage,
} from '../../pipeline/search/index/index.js';
import { migrationsDir, splitStatements } from '../../pipeline/runtime/store/migration-files.js';
import { markdownText } from '../../pipeline/search/index/text.js';
import { MAX_TERMS, TEXT_LIMIT } from '../../pipeline/search/index/rows.js';
import type { SearchQuery, SerpPage } from '../../pipeline/clients/web-search.js';
import type { EventValue } from '../../schemas/events/index.js';
import { chdbAvailable, clickhouseHttpStore, quietLog, tempDir } from '../helpers/clickhouse.js';
import { parserRuntime } from '../helpers/events.js';

const hasChdb = await chdbAvailable();

const NOW = Date.parse('2025-06-15T12:00:00.000Z');
const HOUR = 3_600_000;

/** A page fetched fresh an hour before NOW, as the parser receives it, for `markdown`. */
function freshPage(tenant: string, url: string, statusCode: number, html: string): EventValue<'PageFetched'> {
  return {
    ...SAMPLE_EVENTS.PageFetched,
    tenant,
    url,
    finalUrl: url,
    jobId: null,
    statusCode,
    body: Buffer.from(html),
    headers: { 'content-type': 'text/html' },
    contentType: 'text/html',
    requestedAtMs: NOW - HOUR,
    fetchedAtMs: NOW - HOUR + 500,
    source: 'fresh',
    extras: '{}',
    options: JSON.stringify({ formats: ['markdown'] }),
    cacheKey: scrapeRequestFields({ formats: ['markdown'] }).cacheKey,
    bodySha256: '',
  };
}
const DAY = 24 * HOUR;

function query(text: string, extra: Partial<SearchQuery> = {}): SearchQuery {
  return { query: text, num: 10, page: 1, lang: null, country: null, location: null, tbs: null, timeRange: null, filter: null, device: 'desktop', ...extra };
}

function indexed(url: string, extra: Partial<IndexedPage> = {}): IndexedPage {
  return { tenant: 'key-a', url, shareable: true, fetchedAtMs: NOW - HOUR, title: '', description: '', text: '', lang: 'en', publishedAtMs: null, ...extra };
}

/** `n` filler words that no test searches for. */
const filler = (n: number, seed = 'filler') => Array.from({ length: n }, (_, i) => `${seed}${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + ((i * 7) % 26))}`).join(' ');

describe('pipeline/search/index tokenize', () => {
  it('folds Unicode: NFKC, lower case, diacritics, special letters', () => {
    expect(tokenize('Café NAÏVE Ｆｕｌｌ ﬁne Straße Øre Œuvre Łódź')).toEqual(['cafe', 'naive', 'full', 'fine', 'strasse', 'ore', 'oeuvre', 'lodz']);
    expect(tokenize('Ελληνικά ΚΕΊΜΕΝΟ кириллица')).toEqual(['ελληνικα', 'κειμενο', 'кириллица']);
  });

  it('splits Chinese and Japanese runs into bigrams, keeps a lone character', () => {
    expect(tokenize('東京都 に tokyo東京')).toEqual(['東京', '京都', 'に', 'tokyo', '東京']);
  });

  it('drops stop words of en/de/fr/es and one-letter words, keeps digits', () => {
    expect(tokenize('The cat and the hat')).toEqual(['cat', 'hat']);
    expect(tokenize('Der Hund und die Katze für uns')).toEqual(['hund', 'katze', 'uns']);
    expect(tokenize("Le chat et l'homme dans la maison")).toEqual(['chat', 'homme', 'maison']);
    expect(tokenize('El perro y los gatos con unos amigos')).toEqual(['perro', 'gato', 'amigo']);
    expect(tokenize('a b 7 x 42')).toEqual(['7', '42']);
  });

  it('stops walking the terms when the callback returns true', () => {
    const seen: string[] = [];
    eachTerm('alpha beta gamma delta', (term) => {
      seen.push(term);
      return term === 'beta';
    });
    expect(seen).toEqual(['alpha', 'beta']);
  });

  it('applies the light plural rule and cuts terms at 40 characters', () => {
    expect(tokenize('pages cities boxes classes status analysis bus gas watches')).toEqual(['page', 'city', 'box', 'class', 'status', 'analysis', 'bus', 'gas', 'watch']);
    const long = 'x'.repeat(60);
    expect(tokenize(long)).toEqual(['x'.repeat(40)]);
  });

  it('finds the runs of letters, marks and digits as the pattern does, with their offsets, however a run mixes scripts', () => {
    // The reference: every run of the pattern, each folded on its own (a run alone is one run).
    const byPattern = (text: string) =>
      [...text.matchAll(/[\p{L}\p{M}\p{N}]+/gu)].flatMap((m) => tokenize(m[0]).map((term) => [term, m.index, m.index + m[0].length]));
    const scanned = (text: string) => {
      const out: [string, number, number][] = [];
      eachTerm(text, (term, start, end) => {
        out.push([term, start, end]);
      });
      return out;
    };
    const fixed = [
      'don’t stop—Café’s “naïve” e\u0301clair, 𝐁𝐨𝐥𝐝 words and 😀 emoji',
      'tokyo東京 東京tokyo abc٣٤def x\u0301y ABCé éABC a\ud800b c\udc00d 𝟙𝟚 ＡＢＣ',
      'MIXED caseWords,with;punctuation... and_underscores—and-hyphens 42nd 3.14',
    ];
    for (const text of fixed) expect(scanned(text)).toEqual(byPattern(text));
    // Seeded random strings over ASCII, separators, accented and CJK letters, marks, astral letters and lone surrogates.
    const pool = ['a', 'Z', 'q', '7', ' ', '.', '-', "'", '’', 'é', 'ß', 'Ω', 'ж', '東', 'に', '\u0301', '٣', '𝐀', '😀', '\ud800', '\udc00', '\u00a0', 'ﬁ'];
    let seed = 20261130;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let i = 0; i < 400; i += 1) {
      let text = '';
      const length = next() % 40;
      for (let j = 0; j < length; j += 1) text += pool[next() % pool.length];
      expect(scanned(text), JSON.stringify(text)).toEqual(byPattern(text));
    }
  });

  it('treats punctuation, quotes, SQL and regex characters as separators', () => {
    expect(tokenize(`Robert'); DROP TABLE students;-- .*+?[(\\{x:String}`)).toEqual(['robert', 'drop', 'table', 'student', 'string']);
    expect(queryTerms('page pages PAGE Pagés')).toEqual(['page']);
    expect(queryTerms('the and of')).toEqual([]);
  });
});

describe('pipeline/search/index rows', () => {
  it('weights title terms 3×, description terms 2×, text terms 1×; doc_len is the weighted length', () => {
    const { doc, terms } = indexRows(indexed('https://example.com/a', { title: 'Kettle', description: 'Kettle guide', text: 'kettle water water', lang: 'en_US', publishedAtMs: NOW - DAY }));
    expect(terms).toEqual({
      url_hash: urlHash('https://example.com/a'),
      tenant: 'key-a',
      shareable: 1,
      fetched_at: NOW - HOUR,
      doc_len: 3 + 4 + 3,
      lang: 'en-us',
      dated_at: (NOW - DAY) / 1000,
      terms: ['kettle', 'guide', 'water'],
      tfs: [3 + 2 + 1, 2, 2],
    });
    expect(doc).toMatchObject({ url_hash: terms.url_hash, tenant: 'key-a', url: 'https://example.com/a', shareable: 1, lang: 'en-us', doc_len: 10, published_at: NOW - DAY, fetched_at: NOW - HOUR });
    expect(urlHash('https://example.com/a')).toMatch(/^\d+$/);
  });

  it('dates a page without a believable publication time by its fetch time', () => {
    for (const publishedAtMs of [null, -5, Date.UTC(2150, 0, 1)]) {
      const { doc, terms } = indexRows(indexed('https://example.com/d', { publishedAtMs }));
      expect(doc.published_at).toBeNull();
      expect(terms.dated_at).toBe(Math.floor((NOW - HOUR) / 1000));
    }
  });

  it(`keeps at most ${MAX_TERMS} terms (all title terms) and reads the first ${TEXT_LIMIT} characters`, () => {
    const many = Array.from({ length: 2000 }, (_, i) => `w${i}z`).join(' ');
    const { terms } = indexRows(indexed('https://example.com/many', { title: 'Zanzibar', text: `${many} w5z w5z`, shareable: false }));
    const list = terms.terms as string[];
    expect(list).toHaveLength(MAX_TERMS);
    expect(list[0]).toBe('zanzibar');
    expect((terms.tfs as number[])[list.indexOf('w5z')]).toBe(3);
    expect(terms.shareable).toBe(0);
    const beyond = indexRows(indexed('https://example.com/long', { text: `${'word '.repeat(TEXT_LIMIT / 5)}faraway` }));
    expect(beyond.terms.terms).toEqual(['word']);
  });

  it('reads a scrape document: metadata, markdown without its syntax, else html without tags', () => {
    const facts = pageIndexFacts({
      markdown: '# Heading\n\nSee [the docs](https://example.com/x/y) and ![logo](https://example.com/logo.png) **bold** text.',
      metadata: { title: 'Doc title', description: 'About it', language: 'de_DE', publishedTime: '2024-02-03T04:05:06Z', statusCode: 200 },
    });
    expect(facts).toEqual({ title: 'Doc title', description: 'About it', lang: 'de-de', publishedAtMs: Date.parse('2024-02-03T04:05:06Z'), text: 'Heading See the docs and bold text.' });
    const html = pageIndexFacts({ html: '<div><script>var x = "<p>";</script><style>p{}</style><p>Fish &amp; chips</p><!-- note --><p>two&nbsp;words</p></div>', metadata: { ogTitle: 'OG', 'article:published_time': 'bad date' } });
    expect(html).toEqual({ title: 'OG', description: '', lang: '', publishedAtMs: null, text: 'Fish & chips two words' });
  });

  it('finds markdown links, images and autolinks in one scan over a crafted page (the bounded patterns redid 2,500 characters from every `[`)', () => {
    // 6,000,000 characters of `![` runs, each closed by `](` and 200 characters without `)`:
    // every `[` is a start the old patterns followed 500 + 2,000 characters from (over a
    // minute here); the scan looks at each character once. A real link after it still reads.
    const block = `${'!['.repeat(250)}](${'b'.repeat(200)}`;
    const page = block.repeat(Math.ceil(6_000_000 / block.length)).slice(0, 6_000_000);
    expect(markdownText(`${page}\n[end](https://example.com/) <https://example.com/x> ![logo](l.png)`)).toBe(`${page} end`);
    const autolinks = '<http:'.repeat(1_000_000);
    expect(markdownText(`${autolinks}\n<https://example.com/a>`)).toBe(autolinks);
  });

  it('indexes a fetched HTML or text page below 400 under its normalized URL, fetch time and shareable flag', () => {
    const fetched = { tenant: 'key-a', url: 'HTTPS://Example.COM:443/p#frag', statusCode: 200, contentType: 'text/html; charset=utf-8', requestedAtMs: 1_000, fetchedAtMs: 2_000, cacheKey: '' };
    const document = { markdown: 'hello world', metadata: { title: 'T', contentType: 'text/html; charset=utf-8' } };
    expect(pageSearchRows(fetched, document, {})?.doc).toMatchObject({ url: 'https://example.com/p', fetched_at: 1_000, shareable: 1 });
    expect(pageSearchRows({ ...fetched, requestedAtMs: 0 }, document, { headers: { cookie: 'a=1' } })?.doc).toMatchObject({ fetched_at: 2_000, shareable: 0 });
    expect(pageSearchRows({ ...fetched, statusCode: 404 }, document, {})).toBeNull();
    expect(pageSearchRows({ ...fetched, contentType: 'application/pdf' }, { ...document, metadata: { contentType: 'application/pdf' } }, {})).toBeNull();
    expect(pageSearchRows({ ...fetched, contentType: '' }, document, {})).not.toBeNull();
  });
});

describe('pipeline/search/index snippets and filters', () => {
  it('cuts ~200 characters around the first query term, matching folded forms', () => {
    const text = `${filler(120)} Le Café du Coin serves coffee. ${filler(120, 'after')}`;
    const snippet = snippetOf(text, '', new Set(['cafe']));
    expect(snippet).toContain('Café du Coin');
    expect(snippet.startsWith('… ')).toBe(true);
    expect(snippet.endsWith(' …')).toBe(true);
    expect(snippet.length).toBeLessThanOrEqual(250);
    expect(snippetOf('', 'Only a description.', new Set(['x']))).toBe('Only a description.');
    expect(snippetOf(`${filler(100)}`, '', new Set(['absent'])).startsWith('filler')).toBe(true);
  });

  it('lists what it cannot apply; computes time ranges', () => {
    expect(unappliedFilters(query('x', { country: 'de', location: 'Berlin', filter: 'site:x', tbs: 'sbd:1', lang: 'english' }))).toEqual(['lang', 'country', 'location', 'filter', 'tbs']);
    expect(unappliedFilters(query('x', { lang: 'pt-BR', tbs: 'qdr:d', timeRange: 'd' }))).toEqual([]);
    expect(rangeStartMs('h', NOW)).toBe(NOW - HOUR);
    expect(rangeStartMs('w', NOW)).toBe(NOW - 7 * DAY);
    expect(new Date(rangeStartMs('m', NOW)).toISOString()).toBe('2025-05-15T12:00:00.000Z');
    expect(new Date(rangeStartMs('y', NOW)).toISOString()).toBe('2024-06-15T12:00:00.000Z');
  });

  it('fails with a ServiceError timeout when the store does not answer in time, and on abort', async () => {
    const stuck = { query: () => new Promise(() => {}) } as unknown as Store;
    const provider = new LocalIndexProvider(stuck);
    const timedOut = provider.search(query('kettle'), { tenant: 'k', timeoutMs: 30, signal: new AbortController().signal });
    await expect(timedOut).rejects.toBeInstanceOf(ServiceError);
    await expect(timedOut).rejects.toMatchObject({ kind: 'timeout', service: 'local' });
    const abort = new AbortController();
    const aborted = provider.search(query('kettle'), { tenant: 'k', timeoutMs: 10_000, signal: abort.signal });
    abort.abort(new Error('client went away'));
    await expect(aborted).rejects.toThrow('client went away');
  });

  it('answers a query without index terms with an empty page, without asking the store', async () => {
    const unused = { query: () => Promise.reject(new Error('no store')) } as unknown as Store;
    const page = await new LocalIndexProvider(unused).search(query('the . , ?'), { tenant: 'k', timeoutMs: 1000, signal: new AbortController().signal });
    expect(page).toMatchObject({ provider: 'local', organic: [], totalResults: 0, hasMore: false });
  });
});

function storeSuite(name: string, open: () => Promise<{ store: Store; cleanup: () => Promise<void> }>) {
  describe.skipIf(!hasChdb)(name, () => {
    let store: Store;
    let cleanup: () => Promise<void> = async () => {};
    let provider: LocalIndexProvider;

    beforeAll(async () => {
      ({ store, cleanup } = await open());
      await store.migrate();
      provider = new LocalIndexProvider(store, { now: () => NOW, statsTtlMs: 0 });
    });

    afterAll(async () => {
      await store?.close();
      await cleanup();
    });

    async function put(...pages: IndexedPage[]): Promise<void> {
      const rows = pages.map(indexRows);
      await store.insert('search_docs', rows.map((r) => r.doc));
      await store.insert('search_page_terms', rows.map((r) => r.terms));
    }

    const search = (tenant: string, q: SearchQuery): Promise<SerpPage> => provider.search(q, { tenant, timeoutMs: 20_000, signal: new AbortController().signal });
    const urls = (page: SerpPage) => page.organic.map((r) => r.url);

    it('creates the index tables through the 0005, 0008 and 0009 migrations; postings, lengths and shown fields arrive through views', async () => {
      const [recorded] = await store.query<{ name: string }>('SELECT name FROM schema_migrations FINAL WHERE version = 5');
      expect(recorded?.name).toBe('0005_search_index');
      const tables = await store.query<{ name: string; engine: string; sorting_key: string }>(
        "SELECT name, engine, sorting_key FROM system.tables WHERE database = currentDatabase() AND name LIKE 'search_%' ORDER BY name",
      );
      expect(tables).toEqual([
        { name: 'search_docs', engine: 'ReplacingMergeTree', sorting_key: 'url_hash, tenant' },
        { name: 'search_docs_lengths', engine: 'MaterializedView', sorting_key: '' },
        { name: 'search_docs_shown', engine: 'MaterializedView', sorting_key: '' },
        { name: 'search_lengths', engine: 'ReplacingMergeTree', sorting_key: 'url_hash, tenant' },
        { name: 'search_page_terms', engine: 'Null', sorting_key: '' },
        { name: 'search_page_terms_postings', engine: 'MaterializedView', sorting_key: '' },
        { name: 'search_postings', engine: 'ReplacingMergeTree', sorting_key: 'term, url_hash, tenant' },
        { name: 'search_shown', engine: 'ReplacingMergeTree', sorting_key: 'url_hash, tenant' },
      ]);
      const page = indexed('https://view.example/p', { title: 'Viewed', text: 'viewed twice', lang: 'de', publishedAtMs: NOW - DAY });
      await put(page);
      const postings = await store.query('SELECT term, toString(url_hash) AS hash, tenant, shareable, tf, doc_len, lang, toUnixTimestamp(dated_at) AS dated FROM search_postings WHERE url_hash = {h:UInt64} ORDER BY term', { h: BigInt(urlHash(page.url)) });
      const common = { hash: urlHash(page.url), tenant: 'key-a', shareable: 1, doc_len: 3 + 2, lang: 'de', dated: (NOW - DAY) / 1000 };
      expect(postings).toEqual([
        { term: 'twice', tf: 1, ...common },
        { term: 'viewed', tf: 3 + 1, ...common },
      ]);
      const lengths = await store.query('SELECT tenant, shareable, doc_len FROM search_lengths WHERE url_hash = {h:UInt64}', { h: BigInt(urlHash(page.url)) });
      expect(lengths).toEqual([{ tenant: 'key-a', shareable: 1, doc_len: 3 + 2 }]);
      const shown = await store.query('SELECT tenant, shown FROM search_shown WHERE url_hash = {h:UInt64}', { h: BigInt(urlHash(page.url)) });
      expect(shown).toEqual([{ tenant: 'key-a', shown: ['1', page.url, 'Viewed', '', 'viewed twice', String(NOW - DAY)] }]);
    });

    it('0008 fills search_lengths with the copies search_docs held before it', async () => {
      const [before] = await store.query<{ n: string }>('SELECT count() AS n FROM search_lengths FINAL');
      await store.command('TRUNCATE TABLE search_lengths');
      const page = indexed('https://backfill.example/p', { tenant: 'key-old', shareable: false, text: filler(6) });
      await store.insert('search_docs', [indexRows(page).doc]);
      await store.command('TRUNCATE TABLE search_lengths');
      const statements = splitStatements(readFileSync(join(migrationsDir(), '0008_search_reads.sql'), 'utf8'));
      for (const statement of statements) await store.command(statement);
      const [after] = await store.query<{ n: string }>('SELECT count() AS n FROM search_lengths FINAL');
      expect(Number(after?.n)).toBe(Number(before?.n) + 1);
      for (const statement of statements) await store.command(statement);
      const [again] = await store.query<{ n: string }>('SELECT count() AS n FROM search_lengths FINAL');
      expect(again?.n).toBe(after?.n);
      expect(statsFor(await indexStats(store), 'key-old').docs - statsFor(await indexStats(store), 'key-nobody').docs).toBe(1);
    });

    it('0009 fills search_shown with the copies search_docs held before it, and a search shows them', async () => {
      const page = indexed('https://backfill.example/shown', { title: 'Ravenquill archive', text: `ravenquill ${filler(6)}` });
      await put(page);
      await store.command('TRUNCATE TABLE search_shown');
      const statements = splitStatements(readFileSync(join(migrationsDir(), '0009_search_shown.sql'), 'utf8'));
      for (const statement of statements) await store.command(statement);
      const [after] = await store.query<{ n: string }>('SELECT count() AS n FROM search_shown FINAL');
      const [docs] = await store.query<{ n: string }>('SELECT count() AS n FROM search_docs FINAL');
      expect(Number(after?.n)).toBeGreaterThan(0);
      expect(after?.n).toBe(docs?.n);
      for (const statement of statements) await store.command(statement);
      const [again] = await store.query<{ n: string }>('SELECT count() AS n FROM search_shown FINAL');
      expect(again?.n).toBe(after?.n);
      const found = await search('key-a', query('ravenquill'));
      expect(found.organic).toHaveLength(1);
      expect(found.organic[0]).toMatchObject({ url: page.url, title: 'Ravenquill archive', date: null });
      expect(found.organic[0]?.snippet).toContain('ravenquill');
    });

    it('ranks a title match above a body match', async () => {
      await put(
        indexed('https://rank.example/body', { title: 'Garden notes', text: `quillfeather ${filler(40)}` }),
        indexed('https://rank.example/title', { title: 'Quillfeather', text: filler(40) }),
      );
      const page = await search('key-a', query('quillfeather'));
      expect(urls(page)).toEqual(['https://rank.example/title', 'https://rank.example/body']);
      expect(page).toMatchObject({ provider: 'local', totalResults: 2, hasMore: false, unapplied: [] });
      expect(page.organic[0]).toMatchObject({ position: 1, title: 'Quillfeather', displayedUrl: 'rank.example › title' });
    });

    it('ranks a page with the rarer term above pages with the common one, and both terms above either', async () => {
      const common = Array.from({ length: 6 }, (_, i) => indexed(`https://rarity.example/common-${i}`, { text: `plinthcommon ${filler(30)}` }));
      await put(
        ...common,
        indexed('https://rarity.example/rare', { text: `glimrare ${filler(30)}` }),
        indexed('https://rarity.example/both', { text: `glimrare plinthcommon ${filler(29)}` }),
      );
      const page = await search('key-a', query('plinthcommon glimrare'));
      expect(urls(page).slice(0, 2)).toEqual(['https://rarity.example/both', 'https://rarity.example/rare']);
      expect(page.totalResults).toBe(8);
    });

    it("never shows one key's unshared pages to another; shared ones are everyone's", async () => {
      await put(
        indexed('https://vis.example/private', { tenant: 'key-b', shareable: false, title: 'secretvault private' }),
        indexed('https://vis.example/shared', { tenant: 'key-b', shareable: true, title: 'secretvault shared' }),
      );
      const forA = await search('key-a', query('secretvault private'));
      expect(urls(forA)).toEqual(['https://vis.example/shared']);
      expect(forA.totalResults).toBe(1);
      const forB = await search('key-b', query('secretvault private'));
      expect(urls(forB)).toEqual(['https://vis.example/private', 'https://vis.example/shared']);
    });

    it('returns one result per URL, preferring the caller its own copy', async () => {
      const url = 'https://dedupe.example/page';
      await put(
        indexed(url, { tenant: 'key-a', shareable: false, title: 'duplicatum own copy' }),
        indexed(url, { tenant: 'key-b', shareable: true, title: 'duplicatum duplicatum shared copy' }),
        indexed(url, { tenant: 'key-c', shareable: true, title: 'duplicatum another shared copy' }),
      );
      const forA = await search('key-a', query('duplicatum'));
      expect(forA.organic.map((r) => r.title)).toEqual(['duplicatum own copy']);
      expect(forA.totalResults).toBe(1);
      const forD = await search('key-d', query('duplicatum'));
      expect(forD.organic.map((r) => r.title)).toEqual(['duplicatum duplicatum shared copy']);
    });

    it('asks for more candidates when copies of one URL fill the first round', async () => {
      const popular = Array.from({ length: 12 }, (_, i) => indexed('https://crowd.example/popular', { tenant: `key-crowd-${i}`, title: 'crowdword crowdword' }));
      const others = Array.from({ length: 3 }, (_, i) => indexed(`https://crowd.example/other-${i}`, { tenant: 'key-b', text: `crowdword ${filler(10 + i)}` }));
      await put(...popular, ...others);
      const page = await search('key-a', query('crowdword', { num: 3 }));
      expect(urls(page)).toEqual(['https://crowd.example/popular', 'https://crowd.example/other-0', 'https://crowd.example/other-1']);
      expect(page).toMatchObject({ totalResults: 4, hasMore: true });
    });

    it('scores only the newest copy of a page: terms the page lost do not match', async () => {
      const url = 'https://stale.example/page';
      await put(indexed(url, { fetchedAtMs: NOW - 2 * HOUR, title: 'Old title', text: 'obsoleteword keptword' }));
      expect(urls(await search('key-a', query('obsoleteword')))).toEqual([url]);
      await put(indexed(url, { fetchedAtMs: NOW - HOUR, title: 'New title', text: 'replacementword keptword' }));
      expect(await search('key-a', query('obsoleteword'))).toMatchObject({ organic: [], totalResults: 0 });
      expect((await search('key-a', query('keptword'))).organic.map((r) => r.title)).toEqual(['New title']);
      await store.command('OPTIMIZE TABLE search_docs FINAL');
      await store.command('OPTIMIZE TABLE search_postings FINAL');
      expect(await search('key-a', query('obsoleteword'))).toMatchObject({ organic: [], totalResults: 0 });
      expect((await search('key-a', query('replacementword keptword'))).organic.map((r) => r.title)).toEqual(['New title']);
    });

    it('hides a page from other keys once its newest copy is not shareable', async () => {
      const url = 'https://unshared.example/page';
      await put(indexed(url, { tenant: 'key-b', fetchedAtMs: NOW - 2 * HOUR, title: 'withdrawnword' }));
      expect(urls(await search('key-a', query('withdrawnword')))).toEqual([url]);
      await put(indexed(url, { tenant: 'key-b', fetchedAtMs: NOW - HOUR, shareable: false, title: 'withdrawnword' }));
      expect(urls(await search('key-a', query('withdrawnword')))).toEqual([]);
      expect(urls(await search('key-b', query('withdrawnword')))).toEqual([url]);
    });

    it('filters by language: a tag matches itself and its subtags', async () => {
      await put(
        indexed('https://lang.example/en-us', { lang: 'en-US', title: 'linguaword' }),
        indexed('https://lang.example/de', { lang: 'de', title: 'linguaword' }),
        indexed('https://lang.example/none', { lang: '', title: 'linguaword' }),
        indexed('https://lang.example/english', { lang: 'eng', title: 'linguaword' }),
      );
      const sorted = async (lang: string | null) => urls(await search('key-a', query('linguaword', { lang }))).sort();
      expect(await sorted('en')).toEqual(['https://lang.example/en-us']);
      expect(await sorted('EN_us')).toEqual(['https://lang.example/en-us']);
      expect(await sorted('de')).toEqual(['https://lang.example/de']);
      expect(await sorted(null)).toHaveLength(4);
      const unreadable = await search('key-a', query('linguaword', { lang: 'english' }));
      expect(unreadable.unapplied).toEqual(['lang']);
      expect(unreadable.organic).toHaveLength(4);
    });

    it('filters by time: the publication time when known, else the fetch time', async () => {
      await put(
        indexed('https://time.example/published-2d', { publishedAtMs: NOW - 2 * DAY, fetchedAtMs: NOW - HOUR, title: 'chronoword' }),
        indexed('https://time.example/fetched-2h', { publishedAtMs: null, fetchedAtMs: NOW - 2 * HOUR, title: 'chronoword' }),
        indexed('https://time.example/published-2y', { publishedAtMs: NOW - 800 * DAY, fetchedAtMs: NOW - HOUR, title: 'chronoword' }),
      );
      const within = async (range: 'd' | 'w' | 'y' | null) =>
        urls(await search('key-a', query('chronoword', range ? { tbs: `qdr:${range}`, timeRange: range } : {}))).sort();
      expect(await within('d')).toEqual(['https://time.example/fetched-2h']);
      expect(await within('w')).toEqual(['https://time.example/fetched-2h', 'https://time.example/published-2d']);
      expect(await within('y')).toEqual(['https://time.example/fetched-2h', 'https://time.example/published-2d']);
      expect(await within(null)).toHaveLength(3);
      const dated = (await search('key-a', query('chronoword'))).organic.find((r) => r.url.endsWith('published-2d'));
      expect(dated?.date).toBe(new Date(NOW - 2 * DAY).toISOString());
      expect((await search('key-a', query('chronoword'))).organic.find((r) => r.url.endsWith('fetched-2h'))?.date).toBeNull();
    });

    it('scores each copy with BM25 as written: idf · tf · (k1 + 1) / (tf + k1 · (1 − b + b · dl / avgdl))', async () => {
      await put(
        indexed('https://bm25.example/both', { title: 'okapiterm', text: `okapiterm okapiother ${filler(12)}` }),
        indexed('https://bm25.example/one', { text: `okapiterm ${filler(30)}` }),
      );
      const stats = await corpusStats(store, 'key-a');
      const ranking = await rank(store, { tenant: 'key-a', terms: ['okapiterm', 'okapiother'], lang: '', sinceMs: 0, offset: 0, limit: 10 }, stats);
      const idf = (df: number) => Math.log(1 + (stats.docs - df + 0.5) / (df + 0.5));
      const part = (tf: number, dl: number) => (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * dl) / stats.avgDocLen));
      const [both, one] = ranking.hits;
      expect(both?.doc.url).toBe('https://bm25.example/both');
      expect(both?.score).toBeCloseTo(idf(2) * part(3 + 1, 3 + 14) + idf(1) * part(1, 3 + 14), 9);
      expect(one?.doc.url).toBe('https://bm25.example/one');
      expect(one?.score).toBeCloseTo(idf(2) * part(1, 31), 9);
    });

    it("reads every key's N and avgdl at once: the shared copies plus the key's own unshared ones", async () => {
      const url = 'https://stats.example/page';
      await put(
        indexed(url, { tenant: 'key-stats', shareable: false, fetchedAtMs: NOW - 2 * HOUR, text: filler(5) }),
        indexed(url, { tenant: 'key-stats', shareable: false, fetchedAtMs: NOW - HOUR, text: filler(50) }),
        indexed('https://stats.example/once-shared', { tenant: 'key-stats', shareable: true, fetchedAtMs: NOW - 2 * HOUR, text: filler(7) }),
        indexed('https://stats.example/once-shared', { tenant: 'key-stats', shareable: false, fetchedAtMs: NOW - HOUR, text: filler(9) }),
      );
      const perKey = async (tenant: string) => {
        const [row] = await store.query<{ docs: string; avg: number }>('SELECT count() AS docs, avg(doc_len) AS avg FROM search_docs FINAL WHERE tenant = {tenant:String} OR shareable = 1', { tenant });
        return { docs: Number(row?.docs), avgDocLen: Number(row?.avg) };
      };
      const all = await indexStats(store);
      for (const tenant of ['key-a', 'key-b', 'key-stats', 'key-nobody']) {
        const expected = await perKey(tenant);
        expect(statsFor(all, tenant), tenant).toEqual({ docs: expected.docs, avgDocLen: expect.closeTo(expected.avgDocLen, 9) });
      }
      expect(statsFor(all, 'key-stats').docs - statsFor(all, 'key-nobody').docs).toBe(2);
    });

    it('scores a one-term query with the same BM25, df counted before the filters', async () => {
      await put(
        indexed('https://bm25-one.example/en', { lang: 'en', text: `soloterm soloterm ${filler(20)}` }),
        indexed('https://bm25-one.example/de-1', { lang: 'de', text: `soloterm ${filler(10)}` }),
        indexed('https://bm25-one.example/de-2', { lang: 'de', text: `soloterm ${filler(40)}` }),
      );
      const stats = await corpusStats(store, 'key-a');
      const idf = Math.log(1 + (stats.docs - 3 + 0.5) / (3 + 0.5));
      const part = (tf: number, dl: number) => (tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * dl) / stats.avgDocLen));
      const ask = (lang: string) => rank(store, { tenant: 'key-a', terms: ['soloterm'], lang, sinceMs: 0, offset: 0, limit: 10 }, stats);
      const all = await ask('');
      expect(all.hits.map((h) => h.doc.url)).toEqual(['https://bm25-one.example/en', 'https://bm25-one.example/de-1', 'https://bm25-one.example/de-2']);
      expect(all.hits.map((h) => h.score)).toEqual([expect.closeTo(idf * part(2, 22), 9), expect.closeTo(idf * part(1, 11), 9), expect.closeTo(idf * part(1, 41), 9)]);
      expect(all.total).toBe(3);
      const english = await ask('en');
      expect(english.hits.map((h) => [h.doc.url, h.score])).toEqual([['https://bm25-one.example/en', expect.closeTo(idf * part(2, 22), 9)]]);
      expect(english.total).toBe(1);
    });

    it('applies the language and time filters together', async () => {
      await put(
        indexed('https://both-filters.example/en-recent', { lang: 'en-GB', fetchedAtMs: NOW - HOUR, title: 'bifilterword' }),
        indexed('https://both-filters.example/en-old', { lang: 'en', fetchedAtMs: NOW - 30 * DAY, title: 'bifilterword' }),
        indexed('https://both-filters.example/de-recent', { lang: 'de', fetchedAtMs: NOW - HOUR, title: 'bifilterword' }),
      );
      const page = await search('key-a', query('bifilterword', { lang: 'en', tbs: 'qdr:d', timeRange: 'd' }));
      expect(urls(page)).toEqual(['https://both-filters.example/en-recent']);
      expect(page.totalResults).toBe(1);
    });

    it('pages through the ranking with positions, hasMore and the total', async () => {
      await put(...Array.from({ length: 7 }, (_, i) => indexed(`https://paging.example/${i}`, { text: `${'pagerword '.repeat(7 - i)}${filler(20)}` })));
      const all = await search('key-a', query('pagerword'));
      expect(urls(all)).toEqual(Array.from({ length: 7 }, (_, i) => `https://paging.example/${i}`));
      const pages = await Promise.all([1, 2, 3, 4].map((page) => search('key-a', query('pagerword', { num: 3, page }))));
      expect(pages.map((p) => p.organic.map((r) => r.position))).toEqual([[1, 2, 3], [4, 5, 6], [7], []]);
      expect(pages.map((p) => p.hasMore)).toEqual([true, true, false, false]);
      expect(pages.map((p) => p.totalResults)).toEqual([7, 7, 7, 7]);
      expect(pages.flatMap(urls)).toEqual(urls(all));
    });

    it('cuts the snippet around the first query term of the stored text', async () => {
      await put(indexed('https://snippet.example/cafe', { title: 'Coin', text: `${filler(100)} Le Café du Coin serves coffee. ${filler(100, 'after')}` }));
      const [hit] = (await search('key-a', query('cafe'))).organic;
      expect(hit?.snippet).toContain('Le Café du Coin serves coffee.');
      expect(hit?.snippet.length).toBeLessThanOrEqual(250);
    });

    it('reads hostile query text as words: quotes, SQL, placeholders and regex characters', async () => {
      await put(indexed('https://hostile.example/bobby', { title: 'Little Bobby Tables', text: 'robert drop table students' }));
      for (const text of [`Robert'); DROP TABLE students;--`, "{terms:Array(String)} ' \\' \\", '.*+?[(^$|\\d', '"unterminated', 'ünïcødé 🙂 \u0000']) {
        const page = await search('key-a', query(text));
        expect(page.provider).toBe('local');
      }
      expect(urls(await search('key-a', query(`Robert'); DROP TABLE students;--`)))[0]).toBe('https://hostile.example/bobby');
      const [count] = await store.query<{ n: string }>('SELECT count() AS n FROM search_docs');
      expect(Number(count?.n)).toBeGreaterThan(0);
    });

    it('is written by the parser next to `pages` for a fresh HTML page, not for an error page', async () => {
      const writer = new BatchWriter(store, { maxRows: 1000, maxDelayMs: 5 }, quietLog);
      const html = '<!doctype html><html lang="en"><title>Parsed kettle page</title><body><main><h1>Kettles</h1><p>A parserword kettle boils water.</p></main></body></html>';
      const fetched = (url: string, statusCode: number) => freshPage('key-parser', url, statusCode, html);
      try {
        expect((await handlePageFetched(fetched('https://parser.example/kettle', 200), parserRuntime(writer))).kind).toBe('ack');
        expect((await handlePageFetched(fetched('https://parser.example/missing', 404), parserRuntime(writer))).kind).toBe('ack');
      } finally {
        await writer.close();
      }
      const page = await search('key-parser', query('parserword kettles', { lang: 'en' }));
      expect(page.organic).toEqual([
        { position: 1, title: 'Parsed kettle page', url: 'https://parser.example/kettle', displayedUrl: 'parser.example › kettle', snippet: 'Kettles A parserword kettle boils water.', date: null },
      ]);
      const [stored] = await store.query<{ n: string }>("SELECT count() AS n FROM pages WHERE tenant = 'key-parser'");
      expect(Number(stored?.n)).toBe(2);
    });

    it('queues the parser\'s index rows in lazy batches, which a search in the same process writes first', async () => {
      const writer = new BatchWriter(store, { maxRows: 1000, maxDelayMs: 5 }, quietLog);
      const flushing = new LocalIndexProvider(store, { now: () => NOW, statsTtlMs: 0, beforeRead: () => flushSearchRows(writer) });
      const url = 'https://parser.example/lazy';
      const page = freshPage('key-lazy', url, 200, '<!doctype html><html lang="en"><title>Lazy teapot page</title><body><main><p>A lazyword teapot.</p></main></body></html>');
      try {
        expect((await handlePageFetched(page, parserRuntime(writer))).kind).toBe('ack');
        // The page is stored; its index rows wait for their batch (SEARCH_WRITE_DELAY_MS).
        expect(writer.pending('search_page_terms')).toBe(1);
        const found = await flushing.search(query('lazyword teapot'), { tenant: 'key-lazy', timeoutMs: 20_000, signal: new AbortController().signal });
        expect(found.organic.map((r) => r.url)).toEqual([url]);
        expect(writer.pending('search_page_terms')).toBe(0);
      } finally {
        await writer.close();
      }
    });
  });
}

storeSuite('pipeline/search/index store (chdb in-process)', async () => {
  const dir = tempDir('search-chdb');
  const store = await createStore({ kind: 'chdb', dataDir: dir.path }, quietLog);
  return { store, cleanup: async () => dir.remove() };
});

storeSuite('pipeline/search/index store (ClickHouse HTTP served by chdb)', async () => clickhouseHttpStore('search-chdb-http'));
