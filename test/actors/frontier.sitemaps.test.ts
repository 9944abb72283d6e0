import { gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { parseSitemap, SITEMAP_MAX_ENTRIES, sitemapText, xmlText } from '../../actors/frontier/sitemaps.js';

const urls = (text: string) => parseSitemap(text).urls.map((u) => u.url);

describe('actors/frontier/sitemaps', () => {
  it('reads a urlset: loc, lastmod, a news title (not an image title), CDATA and entities', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<!-- generated -->
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>https://example.com/a?x=1&amp;y=2</loc><lastmod>2026-01-02</lastmod></url>
  <url>
    <loc><![CDATA[https://example.com/b]]></loc>
    <image:image><image:loc>https://example.com/b.png</image:loc><image:title>Picture</image:title></image:image>
    <news:news><news:title>Big &lt;News&gt; &#8211; today</news:title></news:news>
  </url>
  <url><loc>mailto:x@example.com</loc></url>
</urlset>`;
    const parsed = parseSitemap(xml);
    expect(parsed.kind).toBe('urlset');
    expect(parsed.urls).toEqual([
      { url: 'https://example.com/a?x=1&y=2', lastmod: '2026-01-02' },
      { url: 'https://example.com/b', title: 'Big <News> – today' },
    ]);
    expect(parsed.sitemaps).toEqual([]);
  });

  it('reads a sitemap index (any namespace prefix) as more sitemaps to read', () => {
    const xml = `<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sm:sitemap><sm:loc>https://example.com/s1.xml</sm:loc><sm:lastmod>2026-01-01</sm:lastmod></sm:sitemap>
      <sm:sitemap><sm:loc> https://example.com/s2.xml.gz </sm:loc></sm:sitemap>
      <sm:sitemap><sm:loc>https://example.com/s1.xml</sm:loc></sm:sitemap>
    </sm:sitemapindex>`;
    expect(parseSitemap(xml)).toEqual({ kind: 'index', urls: [], sitemaps: ['https://example.com/s1.xml', 'https://example.com/s2.xml.gz'] });
  });

  it('tolerates malformed XML: unclosed entries, a truncated file, stray markup, no urlset', () => {
    const truncated = `<urlset><url><loc>https://example.com/1</loc></url><url><loc>https://example.com/2</loc><url><loc>https://example.com/3</loc></url><url><loc>https://exa`;
    expect(urls(truncated)).toEqual(['https://example.com/1', 'https://example.com/2', 'https://example.com/3']);
    const stray = `<urlset><p>hello<url><loc>https://example.com/x</loc></url></div><url><loc>not a url</loc></url><url><loc>https://example.com/y</url></urlset>`;
    expect(urls(stray)).toEqual(['https://example.com/x', 'https://example.com/y']);
    expect(urls('<whatever><loc>https://example.com/bare</loc><loc>https://example.com/bare2</loc></whatever>')).toEqual([
      'https://example.com/bare',
      'https://example.com/bare2',
    ]);
    expect(parseSitemap('<html><body>Not found</body></html>')).toEqual({ kind: 'unknown', urls: [], sitemaps: [] });
    expect(parseSitemap('')).toEqual({ kind: 'unknown', urls: [], sitemaps: [] });
  });

  it('reads text sitemaps, RSS and Atom feeds with their titles', () => {
    expect(parseSitemap('https://example.com/a\n\nnot a url\r\nhttps://example.com/b\n')).toEqual({
      kind: 'text',
      urls: [{ url: 'https://example.com/a' }, { url: 'https://example.com/b' }],
      sitemaps: [],
    });
    const rss = `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><link>https://example.com/</link>
      <item><title>First post</title><link>https://example.com/p/1</link></item>
      <item><title><![CDATA[Second & last]]></title><guid>https://example.com/p/2</guid></item></channel></rss>`;
    expect(parseSitemap(rss)).toEqual({
      kind: 'feed',
      urls: [
        { url: 'https://example.com/p/1', title: 'First post' },
        { url: 'https://example.com/p/2', title: 'Second & last' },
      ],
      sitemaps: [],
    });
    const atom = `<feed xmlns="http://www.w3.org/2005/Atom"><title>Feed</title>
      <entry><title>Entry A</title><link rel="self" href="https://example.com/api/a"/><link rel="alternate" href="https://example.com/a"/></entry>
      <entry><title>Entry B</title><link href='https://example.com/b'/></entry></feed>`;
    expect(parseSitemap(atom).urls).toEqual([
      { url: 'https://example.com/a', title: 'Entry A' },
      { url: 'https://example.com/b', title: 'Entry B' },
    ]);
  });

  it(`reads at most ${SITEMAP_MAX_ENTRIES} entries of a file, as sitemaps.org allows one: urlset, index, feed, text, unclosed`, () => {
    const count = SITEMAP_MAX_ENTRIES + 10_000;
    const many = (make: (i: number) => string) => Array.from({ length: count }, (_, i) => make(i)).join('');
    const urlset = parseSitemap(`<urlset>${many((i) => `<url><loc>https://e.com/${i}</loc></url>`)}</urlset>`);
    expect(urlset.urls).toHaveLength(SITEMAP_MAX_ENTRIES);
    expect(urlset.urls.at(-1)).toEqual({ url: `https://e.com/${SITEMAP_MAX_ENTRIES - 1}` });
    expect(parseSitemap(`<sitemapindex>${many((i) => `<sitemap><loc>https://e.com/s${i}.xml</loc></sitemap>`)}</sitemapindex>`).sitemaps).toHaveLength(SITEMAP_MAX_ENTRIES);
    expect(parseSitemap(`<rss><channel>${many((i) => `<item><link>https://e.com/${i}</link></item>`)}</channel></rss>`).urls).toHaveLength(SITEMAP_MAX_ENTRIES);
    expect(parseSitemap(many((i) => `https://e.com/${i}\n`)).urls).toHaveLength(SITEMAP_MAX_ENTRIES);
    // Unclosed entries: each runs to the next opening, the last read to the first one not read.
    const unclosed = parseSitemap(`<urlset>${many((i) => `<url><loc>https://e.com/${i}`)}`);
    expect(unclosed.urls).toHaveLength(SITEMAP_MAX_ENTRIES);
    expect(unclosed.urls.at(-1)).toEqual({ url: `https://e.com/${SITEMAP_MAX_ENTRIES - 1}` });
  });

  it('inflates gzip by its magic bytes, whatever the content type, and decodes the XML encoding', () => {
    const xml = '<?xml version="1.0" encoding="windows-1251"?><urlset><url><loc>https://example.com/привет</loc><news:title>Привет</news:title></url></urlset>';
    const gz = gzipSync(iconv.encode(xml, 'windows-1251'));
    const parsed = parseSitemap(sitemapText(gz, 'application/octet-stream'));
    expect(parsed.urls).toEqual([{ url: 'https://example.com/%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82', title: 'Привет' }]);
    expect(sitemapText(Buffer.from('<urlset/>'), 'application/xml')).toBe('<urlset/>');
  });

  it('reads a truncated gzip stream as far as it inflates', () => {
    const entries = Array.from({ length: 2000 }, (_, i) => `<url><loc>https://example.com/p/${i}</loc></url>`).join('');
    const gz = gzipSync(`<urlset>${entries}</urlset>`);
    const found = urls(sitemapText(gz.subarray(0, Math.floor(gz.length / 2)), 'application/x-gzip'));
    expect(found.length).toBeGreaterThan(100);
    expect(found.length).toBeLessThan(2000);
    expect(found[0]).toBe('https://example.com/p/0');
    expect(found.every((u, i) => u === `https://example.com/p/${i}`)).toBe(true);
  });

  it('stops inflating at maxBytes (a gzip bomb is cut, not read whole)', () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
    expect(sitemapText(bomb, null, 1024 * 1024).length).toBeLessThanOrEqual(1024 * 1024);
  });

  it('xmlText drops tags, decodes numeric and named entities and collapses whitespace', () => {
    expect(xmlText('  a &amp; b <b>c</b>\n &#x41;&#66; &unknown; ')).toBe('a & b c AB &unknown;');
  });

  // Hostile sitemaps: each input made the regex it names scan to the end again from every
  // opening (quadratic: well past a minute at these sizes); the results are those it gave.
  describe('hostile markup is read in one pass', () => {
    it('text with a long run of `<` and no `>` (`<[^>]*>`)', () => {
      const xml = `<urlset><url><loc>https://example.com/a</loc><news:title>x${'<!'.repeat(150_000)}</news:title></url></urlset>`;
      expect(parseSitemap(xml).urls).toEqual([{ url: 'https://example.com/a', title: `x${'<!'.repeat(150_000)}` }]);
    });

    it('openings with no `>` after them (`<url(?:\\s[^>]*)?>`)', () => {
      expect(parseSitemap(`<urlset>${'<url '.repeat(100_000)}`)).toEqual({ kind: 'urlset', urls: [], sitemaps: [] });
      const xml = `<urlset><url><loc>https://example.com/a</loc>${'<title '.repeat(80_000)}</url></urlset>`;
      expect(parseSitemap(xml).urls).toEqual([{ url: 'https://example.com/a' }]);
    });

    it('a truncated entry ending in a run of `</` (`<\\/[^>]*>\\s*$`)', () => {
      expect(parseSitemap(`<urlset><url><loc>https://example.com/a</loc>${'</'.repeat(150_000)}`).urls).toEqual([{ url: 'https://example.com/a' }]);
    });

    it('unclosed image blocks (`<image:image>[\\s\\S]*?</image:image>`)', () => {
      const xml = `<urlset><url><loc>https://example.com/a</loc><news:title>T</news:title>${'<image:image>'.repeat(80_000)}</url></urlset>`;
      expect(parseSitemap(xml).urls).toEqual([{ url: 'https://example.com/a', title: 'T' }]);
    });

    it('atom links with no `>` after them (`<link\\b([^>]*)>`)', () => {
      expect(parseSitemap(`<feed><entry><link href="https://example.com/a"/>${'<link '.repeat(80_000)}`).urls).toEqual([{ url: 'https://example.com/a' }]);
    });

    it('unclosed declarations before the root (the first 64 KiB only: half a second before)', () => {
      for (const opening of ['<?', '<!--']) {
        const xml = `${opening.repeat(Math.floor(60_000 / opening.length))}<urlset><url><loc>https://example.com/a</loc></url></urlset>`;
        expect(parseSitemap(xml)).toEqual({ kind: 'urlset', urls: [{ url: 'https://example.com/a' }], sitemaps: [] });
      }
      expect(parseSitemap('<!DOCTYPE'.repeat(8_000))).toEqual({ kind: 'unknown', urls: [], sitemaps: [] });
    });

    it('media blocks, declarations and closing tags are read as before', () => {
      const xml = `<?xml version="1.0"?><!-- a <urlset> --><!DOCTYPE x><urlset>
  <url><loc>https://example.com/a</loc><image:image><image:title>Picture</image:title></image:image><video:video><video:title>Film</video:title></VIDEO:video ><news:title>News</news:title></url>
  <url><loc>https://example.com/b</loc><video:video><video:title>Film</video:title>
</urlset>`;
      expect(parseSitemap(xml).urls).toEqual([{ url: 'https://example.com/a', title: 'News' }, { url: 'https://example.com/b', title: 'Film' }]);
    });
  });
});
