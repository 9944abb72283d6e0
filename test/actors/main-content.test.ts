import { load } from 'cheerio';
import { describe, expect, it } from 'vitest';
import { extractMainContent, mainText } from '../../actors/parser/main-content/index.js';

const PROSE = [
  'The committee met on Tuesday to discuss the new harbour plan, which has been debated for years, and agreed on a budget.',
  'Residents said the plan, first proposed in 2019, would reduce flooding, improve the ferry service, and bring new jobs to town.',
  'Engineers expect construction to begin next spring, weather permitting, with the first phase finished within eighteen months.',
  'The mayor thanked volunteers, local businesses, and the regional council for their support during the long consultation.',
];

const FIRST = PROSE[0] as string;
const LAST = PROSE[3] as string;
const paragraphs = PROSE.map((p) => `<p>${p}</p>`).join('\n');

function extract(html: string, includeTags?: string[]): string {
  const $ = load(html);
  return mainText(extractMainContent($, includeTags ? { includeTags } : {}));
}

const PAGE = `<!doctype html><html><head><title>Harbour plan</title><style>p{color:red}</style></head><body>
  <div id="cookie-banner" class="cookie-consent">We use cookies to improve your experience. <button>Accept all</button></div>
  <header class="site-header"><a href="/">Daily Bugle</a><nav><ul><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li></ul></nav></header>
  <div class="layout">
    <article class="post">
      <h1>Harbour plan approved</h1>
      ${paragraphs}
      <div class="share-buttons"><a href="#">Share on Facebook</a> <a href="#">Tweet this</a></div>
    </article>
    <aside class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Celebrity chef opens bakery in old mill</a></li><li><a href="/b">Local team wins cup after dramatic final</a></li></ul></aside>
    <section id="comments" class="comments-area"><h2>3 Comments</h2><div class="comment"><p>Great news, about time the council did something useful for this town, honestly.</p></div></section>
  </div>
  <footer class="site-footer"><p>Copyright 2026 Daily Bugle. All rights reserved.</p><a href="/imprint">Imprint</a></footer>
  <script>var tracking = "should never appear";</script>
</body></html>`;

describe('actors/parser/main-content', () => {
  it('keeps the article and drops navigation, header, footer, cookie banner, sidebar, share widget and comments', () => {
    const text = extract(PAGE);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).toContain('Harbour plan approved');
    for (const junk of ['We use cookies', 'Daily Bugle', 'Sport', 'Most read', 'Celebrity chef', 'Great news', '3 Comments', 'Copyright', 'Imprint', 'Share on Facebook', 'tracking']) {
      expect(text).not.toContain(junk);
    }
  });

  it('puts blocks on their own lines', () => {
    const lines = extract(PAGE).split('\n');
    expect(lines).toContain(FIRST);
    expect(lines).toContain(LAST);
  });

  it('keeps includeTags matches even outside the main content, in document order', () => {
    const $ = load(PAGE);
    const root = extractMainContent($, { includeTags: ['footer.site-footer'] });
    const text = mainText(root);
    expect(text).toContain('Copyright 2026 Daily Bugle');
    expect(text).toContain(FIRST);
    expect(text.indexOf(FIRST)).toBeLessThan(text.indexOf('Copyright 2026'));
    expect(root.length).toBe(1);
  });

  it('returns the body text when no block stands out as an article', () => {
    const html = `<html><body><div>Opening hours: Monday to Friday, 9 to 5.</div><div>Call us on 555-0100 for an appointment.</div><span>We are closed on public holidays.</span></body></html>`;
    const text = extract(html);
    expect(text).toContain('Opening hours: Monday to Friday, 9 to 5.');
    expect(text).toContain('Call us on 555-0100');
    expect(text).toContain('closed on public holidays');
  });

  it('keeps tables and code blocks inside the article', () => {
    const html = `<html><body><nav><a href="/">Home</a> <a href="/docs">Docs</a></nav><main><article>
      <h1>Installing the tool</h1>${paragraphs}
      <pre><code>npm install --save widget-tool
widget-tool init --force</code></pre>
      <table><thead><tr><th>Option</th><th>Default</th></tr></thead><tbody><tr><td>retries</td><td>3</td></tr><tr><td>timeoutMs</td><td>5000</td></tr></tbody></table>
      <p>${FIRST}</p></article></main><footer>Docs footer links</footer></body></html>`;
    const text = extract(html);
    expect(text).toContain('npm install --save widget-tool\nwidget-tool init --force');
    expect(text).toMatch(/retries\s+3/);
    expect(text).toMatch(/timeoutMs\s+5000/);
    expect(text).not.toContain('Docs footer');
  });

  it('does not crash on an all-boilerplate page, an empty page or a fragment', () => {
    const boiler = `<html><body><nav><a href="/">Home</a></nav><header>Logo</header><footer>© 2026</footer><div class="cookie-banner">Cookies!</div></body></html>`;
    expect(() => extract(boiler)).not.toThrow();
    expect(typeof extract(boiler)).toBe('string');
    expect(extract('')).toBe('');
    expect(extract('<p>Just one line of text.</p>')).toBe('Just one line of text.');
  });

  it('drops link lists and a "Related articles" section after the article body', () => {
    const html = `<html><body><div class="content">${paragraphs}
      <h3>Related articles</h3><ul><li><a href="/1">Harbour history in ten pictures</a></li><li><a href="/2">Ferry timetable changes</a></li></ul>
    </div></body></html>`;
    const text = extract(html);
    expect(text).toContain(PROSE[2]);
    expect(text).not.toContain('Related articles');
    expect(text).not.toContain('Ferry timetable');
  });

  it('removes hidden elements and soft hyphens', () => {
    const html = `<html><body><article>${paragraphs}<p style="display:none">Hidden promo text</p><p>Wein\u00adkenner\u00ad wissen es.</p></article></body></html>`;
    const text = extract(html);
    expect(text).not.toContain('Hidden promo');
    expect(text).toContain('Weinkenner wissen es.');
  });

  it('keeps the cards of a listing page (all links) instead of returning nothing', () => {
    const cards = ['Harbour plan approved after years of debate', 'New ferry timetable starts in May', 'Volunteers clean the beach on Sunday', 'Council budget for the coming year']
      .map((t, i) => `<div class="card"><h3><a href="/n/${i}">${t}</a></h3><a href="/n/${i}">Read the story</a></div>`)
      .join('');
    const html = `<html><body><nav><a href="/">Home</a><a href="/news">News</a></nav><main><h1>Latest news</h1>${cards}</main><footer><a href="/imprint">Imprint</a></footer></body></html>`;
    const text = extract(html);
    expect(text).toContain('Latest news');
    expect(text).toContain('Volunteers clean the beach on Sunday');
    expect(text).not.toContain('Imprint');
  });

  it("keeps every post of a thread whose posts wear comment classes, and an article's comment section stays out", () => {
    // The opening post is plain; the replies are marked as comments (as forum software does).
    const opening = `<div class="topic-body"><p>${FIRST}</p><p>${FIRST}</p></div>`;
    const replies = PROSE.slice(1).map((p, i) => `<div class="comment" id="reply-${i}"><span class="author">user${i}</span><p>${p}</p><p>${p}</p><p>${p}</p></div>`).join('');
    const posts = opening + replies;
    const thread = `<html><body><nav><a href="/">Forum</a><a href="/latest">Latest</a></nav><main><h1>Harbour plan thread</h1>${posts}</main><footer><a href="/rules">Rules</a></footer></body></html>`;
    const text = extract(thread);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).not.toContain('Rules');
    expect(extract(PAGE)).not.toContain('Great news, about time');
  });

  it("keeps a listing's items beside its introduction, and an article's related links stay out", () => {
    // The introduction is prose; the items are link-titled cards with a teaser each.
    const items = ['Harbour plan approved after years of debate', 'New ferry timetable starts in May', 'Volunteers clean the beach on Sunday', 'Council budget for the coming year', 'School choir wins regional contest', 'Market square reopens after works']
      .flatMap((t) => [t, `${t}: the follow-up`])
      .map((t, i) => `<li class="item"><a href="/n/${i}"><h3>${t}</h3></a><span class="date">May ${i + 1}</span></li>`)
      .join('');
    const listing = `<html><body><nav><a href="/">Home</a><a href="/news">News</a></nav><main><h1>Town news</h1><div class="intro"><p>${FIRST}</p><p>${PROSE[1]}</p></div><ul class="grid">${items}</ul></main><footer><a href="/imprint">Imprint</a></footer></body></html>`;
    const text = extract(listing);
    expect(text).toContain(FIRST);
    expect(text).toContain('Volunteers clean the beach on Sunday');
    expect(text).toContain('Market square reopens after works');
    expect(text).not.toContain('Imprint');
    // An article with more prose keeps its links box out.
    const article = `<html><body><main><article>${paragraphs}${paragraphs}</article><ul class="grid">${items}</ul></main></body></html>`;
    expect(extract(article)).not.toContain('Volunteers clean the beach');
  });

  it('keeps the posts of a thread wrapped in one comment-classed block, each an <article>', () => {
    // The forum's notice is the only prose outside the block.
    const posts = PROSE.map((p, i) => `<article class="post"><span class="author">user${i}</span><p>${p}</p><p>${p}</p></article>`).join('');
    const notice = `<div class="notice"><p>${'Welcome to the forum, please read the rules before posting, and be kind to each other. '.repeat(3)}</p></div>`;
    const html = `<html><body><nav><a href="/">Forum</a><a href="/latest">Latest</a></nav><main><h1>Harbour plan thread</h1>${notice}<div id="comments" class="topic">${posts}</div></main><footer><a href="/rules">Rules</a></footer></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).not.toContain('Rules');
  });

  it('reads the hidden part of a page whose visible part says little (content a script reveals), and only then', () => {
    const gated = `<html><body><main><h1>Harbour plan</h1><p>Loading…</p><div class="content" hidden>${paragraphs}${paragraphs}</div></main><div class="modal" style="display:none">Subscribe now</div></body></html>`;
    const text = extract(gated);
    for (const p of PROSE) expect(text).toContain(p);
    const shown = `<html><body><article>${paragraphs}${paragraphs}</article><div hidden><p>${'Hidden promo text. '.repeat(20)}</p></div></body></html>`;
    expect(extract(shown)).not.toContain('Hidden promo');
  });
});
