/**
 * actors/parser/document on HTML pages: markdown, cleaned html, links, media, metadata,
 * include/exclude tags, main content, base64 images, charsets, format selection.
 */
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { buildDocument, buildHtmlDocument, otherFormats, resolveOptions, type DocumentOptions } from '../../actors/parser/document/index.js';

const URL_ = 'https://example.com/start';
const FINAL = 'https://example.com/blog/post';

function page(html: string, options: DocumentOptions = {}, contentType = 'text/html; charset=utf-8') {
  return buildDocument({ bytes: Buffer.from(html), contentType, url: URL_, finalUrl: FINAL, statusCode: 200, headers: {} }, options);
}

const PROSE = 'The quick brown fox jumps over the lazy dog while the reader keeps reading. '.repeat(6);

const ARTICLE_PAGE = `<!doctype html><html lang="en"><head><title>Fox news</title></head><body>
<div class="cookie-banner" id="cookie-consent"><p>We use cookies to improve your experience. <button>Accept all cookies</button></p></div>
<header><nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/contact">Contact</a></nav></header>
<main><article><h1>The fox report</h1><p>${PROSE}</p><p class="aside-note">${PROSE}</p></article></main>
<footer><p>Copyright 2026 Example Corp. <a href="/privacy">Privacy policy</a></p></footer>
</body></html>`;

describe('actors/parser/document (HTML)', () => {
  it('writes headings, nested lists, tables, code with its language, absolute links and images', async () => {
    const html = `<html><body><article>
      <h1>Title</h1><h2>Sub <em>title</em></h2>
      <ul><li>One<ul><li>Nested <strong>bold</strong></li></ul></li><li>Two</li></ul>
      <ol start="3"><li>Three</li><li>Four</li></ol>
      <table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a|b</td><td>line<br>two</td></tr><tr><td colspan="2">wide</td></tr></tbody></table>
      <table><tr><td>no</td><td>heading</td></tr><tr><td>1</td><td>2</td></tr></table>
      <pre><code class="language-python">def f():\n    return 1\n\n\n\nprint(f())</code></pre>
      <p>See <a href="../docs/page.html#part" title="Docs">the docs</a>, <a href="https://other.org/x">other</a> and <a href="/empty"></a>.</p>
      <p><img src="/img/fox.png" alt="A fox"></p>
      <p>${PROSE}</p>
    </article></body></html>`;
    const doc = await page(html);
    const md = doc.markdown ?? '';
    expect(md).toContain('# Title\n\n## Sub _title_');
    expect(md).toContain('- One\n  - Nested **bold**\n- Two');
    expect(md).toContain('3. Three\n4. Four');
    expect(md).toContain('| Name | Value |\n| --- | --- |\n| a\\|b | line two |\n| wide | |');
    expect(md).toContain('| no | heading |\n| --- | --- |\n| 1 | 2 |');
    expect(md).toContain('```python\ndef f():\n    return 1\n\n\n\nprint(f())\n```');
    expect(md).toContain('[the docs](https://example.com/docs/page.html#part "Docs")');
    expect(md).toContain('[other](https://other.org/x)');
    expect(md).not.toContain('[](');
    expect(md).toContain('![A fox](https://example.com/img/fox.png)');
    expect(md).not.toMatch(/\n{3,}(?![^`]*```)/);
  });

  it("writes a table in a data table's cell as words of that cell, at any depth, in linear time", async () => {
    const inner = '<table><tr><td>x|y</td><td>z</td></tr><tr><td>1</td><td>2</td></tr></table>';
    const doc = await page(`<body><article><table><tr><th>Name</th><th>Parts</th></tr><tr><td>kit</td><td>${inner}</td></tr></table><p>${PROSE}</p></article></body>`);
    expect(doc.markdown).toContain('| Name | Parts |\n| --- | --- |\n| kit | x\\|y z 1 2 |');
    // 300 tables, each in the last cell of the one around it: each level's pipes were escaped again by the next (276 KB of markdown from 13 KB).
    const deep = `${'<table><tr><td>a</td><td>'.repeat(300)}x${'</td></tr></table>'.repeat(300)}`;
    const md = (await page(`<body>${deep}</body>`, { onlyMainContent: false })).markdown ?? '';
    expect(md.length).toBeLessThan(1_000);
    expect(md).toMatch(/^\| a \| (a ){299}x \|\n\| --- \| --- \|$/);
  });

  it('keeps a link that wraps blocks on one line', async () => {
    const doc = await page(`<body><a href="/card"><h3>Card title</h3><p>Card blurb</p></a><p>${PROSE}</p></body>`, { onlyMainContent: false });
    expect(doc.markdown).toMatch(/^\[Card title Card blurb\]\(https:\/\/example\.com\/card\)/);
  });

  it('writes definition lists as bold terms and their definitions', async () => {
    const doc = await page(`<body><dl><dt>Term</dt><dd>Meaning of it.</dd></dl><p>${PROSE}</p></body>`, { onlyMainContent: false });
    expect(doc.markdown).toMatch(/^\*\*Term\*\*\nMeaning of it\.\n\n/);
  });

  it('keeps one blank line at most between blocks', async () => {
    const doc = await page(`<body><p>a</p><div><br><br></div><div></div><p>b</p><p>${PROSE}</p></body>`, { onlyMainContent: false });
    expect(doc.markdown).toMatch(/^a\n\nb\n\n/);
  });

  it('removes inline base64 images by default, keeping their alt text, and keeps them when asked', async () => {
    const data = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk';
    const html = `<body><article><p>${PROSE}</p><p><img src="${data}" alt="Sales chart"> and <img src="${data}"></p><p><img src="${data}" data-src="/real.jpg" alt="lazy"></p></article></body>`;
    const stripped = await page(html, { formats: ['markdown', 'html'] });
    expect(stripped.markdown).not.toContain('data:');
    expect(stripped.html).not.toContain('data:');
    expect(stripped.markdown).toContain('Sales chart and');
    expect(stripped.markdown).toContain('![lazy](https://example.com/real.jpg)');
    const kept = await page(html, { formats: ['markdown', 'html'], removeBase64Images: false });
    expect(kept.markdown).toContain(`![Sales chart](${data})`);
    expect(kept.html).toContain(data);
  });

  it('drops navigation, footer and cookie banner with onlyMainContent, and keeps them without', async () => {
    const main = await page(ARTICLE_PAGE);
    expect(main.markdown).toContain('# The fox report');
    expect(main.markdown).not.toContain('Accept all cookies');
    expect(main.markdown).not.toContain('About us');
    expect(main.markdown).not.toContain('Copyright 2026');
    const whole = await page(ARTICLE_PAGE, { onlyMainContent: false, formats: ['markdown', 'html'] });
    expect(whole.markdown).toContain('Accept all cookies');
    expect(whole.markdown).toContain('[About us](https://example.com/about)');
    expect(whole.markdown).toContain('Copyright 2026');
    expect(whole.html).toMatch(/^<body>/);
  });

  it('applies excludeTags before reading and includeTags as Firecrawl does', async () => {
    const excluded = await page(ARTICLE_PAGE, { excludeTags: ['.aside-note', 'h1'], formats: ['markdown', 'links'], onlyMainContent: false });
    expect(excluded.markdown).not.toContain('The fox report');
    expect(excluded.markdown?.match(/quick brown fox/g)?.length).toBe(6);
    // includeTags without onlyMainContent: only the matches.
    const only = await page(ARTICLE_PAGE, { includeTags: ['footer', 'h1'], onlyMainContent: false });
    expect(only.markdown).toBe('# The fox report\n\nCopyright 2026 Example Corp. [Privacy policy](https://example.com/privacy)');
    // includeTags with onlyMainContent: kept even outside the main content.
    const kept = await page(ARTICLE_PAGE, { includeTags: ['footer'] });
    expect(kept.markdown).toContain('# The fox report');
    expect(kept.markdown).toContain('Copyright 2026');
    // An invalid selector matches nothing rather than failing the page.
    const bad = await page(ARTICLE_PAGE, { excludeTags: ['[[['], onlyMainContent: false });
    expect(bad.markdown).toContain('The fox report');
  });

  it('reads metadata: title, description, language, canonical, Open Graph, Twitter, favicon', async () => {
    const html = `<html lang="de-CH"><head><title> A  title </title><base href="https://cdn.example.com/base/">
      <meta name="description" content="Short description"><meta name="keywords" content="a, b">
      <meta name="author" content="Ada"><meta property="article:published_time" content="2026-01-02T03:04:05Z">
      <link rel="canonical" href="/canonical"><link rel="shortcut icon" href="favicon.ico">
      <meta property="og:title" content="OG title"><meta property="og:image" content="/og.png"><meta name="og:site_name" content="Site">
      <meta property="og:locale:alternate" content="fr_FR"><meta property="og:locale:alternate" content="it_IT">
      <meta name="twitter:card" content="summary_large_image"><meta name="twitter:title" content="TW title"><meta property="twitter:image" content="tw.png">
      </head><body><p>${PROSE}</p></body></html>`;
    const doc = await page(html, { formats: ['links'] });
    expect(doc.metadata).toEqual({
      title: 'A title',
      description: 'Short description',
      keywords: 'a, b',
      author: 'Ada',
      publishedTime: '2026-01-02T03:04:05Z',
      ogTitle: 'OG title',
      ogImage: 'https://cdn.example.com/og.png',
      ogSiteName: 'Site',
      ogLocaleAlternate: ['fr_FR', 'it_IT'],
      twitterCard: 'summary_large_image',
      twitterTitle: 'TW title',
      twitterImage: 'https://cdn.example.com/base/tw.png',
      language: 'de-CH',
      canonical: 'https://cdn.example.com/canonical',
      favicon: 'https://cdn.example.com/base/favicon.ico',
      statusCode: 200,
      contentType: 'text/html; charset=utf-8',
      sourceURL: URL_,
      url: FINAL,
    });
  });

  it('lists links from the whole page: absolute, http(s) only, no fragments, deduplicated, in order', async () => {
    const html = `<body><nav><a href="/">Home</a><a href="/a#top">A</a></nav><article><p>${PROSE}
      <a href="/a">again</a> <a href="b?x=1#frag">B</a> <a href="mailto:x@y.z">mail</a> <a href="javascript:void(0)">js</a>
      <a href="#local">local</a> <a href="https://user:pw@other.org/p">other</a> <a href="//cdn.example.net/c">proto-relative</a></p></article>
      <footer><a href="/privacy">Privacy</a></footer></body>`;
    const doc = await page(html, { formats: ['links'] });
    expect(doc).toEqual({
      links: [
        'https://example.com/',
        'https://example.com/a',
        'https://example.com/blog/b?x=1',
        'https://other.org/p',
        'https://cdn.example.net/c',
        'https://example.com/privacy',
      ],
      metadata: expect.objectContaining({ url: FINAL }),
    });
  });

  it('lists media: images, video, audio, embeds, absolute, without inline data', async () => {
    const html = `<body><img src="/a.png" alt=" Alpha "><img src="data:image/gif;base64,R0lGOD" alt="inline">
      <img srcset="/s-1x.jpg 1x, /s-2x.jpg 2x" alt="set"><img src="/a.png">
      <video src="/v.mp4" title="Clip"><source src="/v.webm"></video><audio><source src="https://cdn.example.com/s.mp3"></audio>
      <iframe src="https://www.youtube.com/embed/abc"></iframe><iframe src="https://ads.example.com/frame"></iframe></body>`;
    const doc = await page(html, { formats: ['media'] });
    expect(doc.media).toEqual([
      { type: 'image', url: 'https://example.com/a.png', alt: 'Alpha' },
      { type: 'image', url: 'https://example.com/s-2x.jpg', alt: 'set' },
      { type: 'video', url: 'https://example.com/v.mp4', alt: 'Clip' },
      { type: 'video', url: 'https://example.com/v.webm', alt: 'Clip' },
      { type: 'audio', url: 'https://cdn.example.com/s.mp3' },
      { type: 'video', url: 'https://www.youtube.com/embed/abc' },
    ]);
  });

  it('decodes a windows-1251 page from the header charset and from <meta charset>', async () => {
    const html = `<html><head><meta charset="windows-1251"><title>Привет, мир</title></head><body><p>Съешь же ещё этих мягких французских булок. ${PROSE}</p></body></html>`;
    const bytes = iconv.encode(html, 'windows-1251');
    const input = { bytes, url: URL_, finalUrl: FINAL, statusCode: 200, headers: {} };
    for (const contentType of ['text/html; charset=windows-1251', 'text/html']) {
      const doc = await buildDocument({ ...input, contentType }, { formats: ['markdown', 'rawHtml'] });
      expect(doc.metadata.title).toBe('Привет, мир');
      expect(doc.markdown).toContain('Съешь же ещё этих мягких французских булок.');
      expect(doc.rawHtml).toContain('<title>Привет, мир</title>');
    }
  });

  it('returns only the formats asked for, and names the ones it does not serve', async () => {
    const doc = await page(ARTICLE_PAGE, { formats: ['html', 'rawHtml', { type: 'json', prompt: 'x' }, 'screenshot'] });
    expect(Object.keys(doc)).toEqual(['html', 'rawHtml', 'metadata']);
    expect(doc.html).not.toContain('<script');
    expect(doc.rawHtml).toBe(ARTICLE_PAGE);
    expect(Object.keys(await page(ARTICLE_PAGE))).toEqual(['markdown', 'metadata']);
    expect(otherFormats(['markdown', 'summary', { type: 'changeTracking' }, 'summary'])).toEqual(['summary', 'changeTracking']);
  });

  it('cleans the html: no scripts, styles or comments; absolute URLs', async () => {
    const html = `<body><script>alert(1)</script><style>p{}</style><article><!-- hidden --><p>${PROSE} <a href="rel">r</a><img src="i.png" srcset="i-2x.png 2x"></p><noscript>no js</noscript></article></body>`;
    const doc = await page(html, { formats: ['html'], onlyMainContent: false });
    expect(doc.html).not.toMatch(/<script|<style|<!--|noscript/);
    expect(doc.html).toContain('href="https://example.com/blog/rel"');
    expect(doc.html).toContain('srcset="https://example.com/blog/i-2x.png 2x"');
  });

  it('can be called in a loop (synchronous HTML path)', () => {
    const options = resolveOptions({ formats: ['markdown', 'links'] });
    const facts = { url: URL_, finalUrl: FINAL, statusCode: 200, contentType: 'text/html', headers: {} };
    for (let i = 0; i < 50; i++) expect(buildHtmlDocument(ARTICLE_PAGE, facts, options).markdown).toContain('fox report');
  });
});
