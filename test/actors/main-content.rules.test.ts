/**
 * One small page per rule of the main-content extraction that is easy to get wrong: what
 * each rule keeps and what it removes. The end-to-end picture is main-content.test.ts; the
 * corpus score is main-content.corpus.test.ts.
 */
import { load } from 'cheerio';
import { describe, expect, it } from 'vitest';
import type { Element, ParentNode } from 'domhandler';
import { extractMainContent, mainText } from '../../actors/parser/main-content/index.js';
import { ARTICLE_SELECTORS, articleRanks } from '../../actors/parser/main-content/patterns.js';
import { commaCount, detach, hintOf, keepCounted, measure, measureOne } from '../../actors/parser/main-content/dom.js';
import { furnitureKind } from '../../actors/parser/main-content/prune.js';
import { semanticCandidate } from '../../actors/parser/main-content/select.js';
import { layoutWords } from '../../actors/parser/main-content/score.js';

const PROSE = [
  'The committee met on Tuesday to discuss the new harbour plan, which has been debated for years, and agreed on a budget.',
  'Residents said the plan, first proposed in 2019, would reduce flooding, improve the ferry service, and bring new jobs to town.',
  'Engineers expect construction to begin next spring, weather permitting, with the first phase finished within eighteen months.',
  'The mayor thanked volunteers, local businesses, and the regional council for their support during the long consultation.',
];
const paragraphs = PROSE.map((p) => `<p>${p}</p>`).join('\n');
const FIRST_PROSE = PROSE[0] as string;

function extract(html: string): string {
  return mainText(extractMainContent(load(html)));
}

describe('actors/parser/main-content rules', () => {
  it('scores text split by <br><br> as several paragraphs, so it beats a sidebar of short <p>s', () => {
    const lines = [
      'The region lies in the north of the country, along the middle course of the river, and is about one hundred kilometres long',
      'It is divided into three sub-zones, which differ in climate and soil, and each of them gives its wines a character of its own',
      'The rules of the appellation allow four red and three white grape varieties, and the growers, old and young, follow them closely',
      'For the quality levels of the wines, the following minimum ageing times apply, and they are checked every year by the council',
      'Red wines of the middle level rest for two years, one of them in oak, before they may be sold under the name of the region',
      'The highest level asks for five years of ageing, two of them in the barrel, and only the best vintages are declared at all',
      'White wines follow the same steps, with shorter times in the barrel, and most of them are drunk young, cool and fresh',
      'Visitors find the cellars open on weekdays, and tastings, tours and small dinners can be booked through the village office',
    ];
    const sidebar = ['Shop one, Main Street 18', 'Shop two, Harbour Road 3', 'Open Monday to Friday, 12 to 19', 'Saturdays, 10 to 15', 'Call us during opening hours'];
    const html = `<html><body><div class="row">
      <div class="col-9"><div class="description">${lines.join('.<br>\n<br>\n')}.</div></div>
      <div class="col-3"><div class="panel"><div class="panel-body">${sidebar.map((s) => `<p>${s}</p>`).join('')}</div></div></div>
    </div></body></html>`;
    const text = extract(html);
    for (const line of lines) expect(text).toContain(line);
    expect(text).not.toContain('Main Street 18');
  });

  it('ignores a boilerplate class word the page uses on every block (page builders)', () => {
    const teaser = [
      'Follow us on our channel for more stories like this one every day',
      'Or get them by mail every week for free straight to your inbox',
      'Support our newsroom with a small gift once or every single month',
      'Tell your friends about us at work and at home wherever you are',
      'Send us your tips and photos and questions because we read them all',
    ].map((line) => `<p>${line}</p>`).join('');
    const html = `<html><body><div class="builder-section">
      <div class="builder-widget builder-widget-post-content"><div class="builder-widget-container">${paragraphs}${paragraphs}</div></div>
      <div class="builder-widget"><div class="builder-widget-container"><div class="builder-text-editor">${teaser}</div></div></div>
    </div></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).not.toContain('Follow us on our channel');
  });

  it('keeps the small blocks of a page built of widgets, and still drops a small widget on a page that is not', () => {
    const features = [
      ['Fast setup', 'Connect your shop in minutes and see every order, refund and message in one place from the first day.'],
      ['Clear reports', 'Weekly figures arrive by mail, with the trends that matter to a small team picked out for you.'],
      ['Real people', 'Our support team answers within the hour on working days, by chat, by phone or by mail.'],
    ];
    const widget = (inner: string) => `<div class="builder-widget builder-widget-box"><div class="builder-widget-container">${inner}</div></div>`;
    const landing = `<html><body><div class="builder-section">
      ${widget(paragraphs)}
      ${features.map(([h, p]) => widget(`<h3>${h}</h3><p>${p}</p>`)).join('\n')}
    </div></body></html>`;
    const text = extract(landing);
    for (const p of PROSE) expect(text).toContain(p);
    for (const [h, p] of features) {
      expect(text).toContain(h);
      expect(text).toContain(p);
    }
    // The same small block on an article that does not use the word for its layout is furniture.
    const blog = `<html><body><article><div class="entry-content">${paragraphs}</div></article>
      <div class="widget"><h3>Fast setup</h3><p>${features[0]?.[1]}</p></div></body></html>`;
    expect(extract(blog)).not.toContain('Fast setup');
  });

  it("finds a page's boilerplate layout words alone as it finds them among all its layout words", () => {
    const block = (cls: string) => `<div class="${cls}">${paragraphs}</div>`;
    const $ = load(`<html><body><div class="site-widget meta-wrap">${block('widget promo-box')}${block('widget info')}</div><div class="sidebar">${block('widget ads')}</div></body></html>`);
    const body = $('body')[0] as Element;
    const stats = measure(body);
    const all = layoutWords(body, stats);
    expect([...all].sort()).toEqual(['meta', 'widget']);
    expect([...layoutWords(body, stats, 'boilerplate')]).toEqual(['widget']);
  });

  it('drops skip links ("Skip to main content", "Zum Inhalt springen") and keeps a same-page link that is a sentence', () => {
    const html = `<html><body><a href="#main" class="css-x1">Skip to main content</a><div><a href="#results">Skip to product list</a></div>
      <main id="main"><a href="#inhalt">Zum Inhalt springen</a><article>${paragraphs}
      <p><a href="#step-4">Skip to the grub update below if you have not created a new partition yet</a>, then run it once more.</p></article></main></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).not.toMatch(/Skip to (?:main content|product list)|Zum Inhalt/);
    expect(text).toContain('Skip to the grub update below');
  });

  it("drops a product page's customer reviews (review widgets and `customer-reviews` blocks), not a page made of reviews", () => {
    const reviews = [
      'Bought this for my daughter and she plays it every single day, the neck feels great and it stays in tune.',
      'Arrived well packed and ready to play; I had to adjust the truss rod a little, otherwise perfect.',
      'Good value for the money, although the gig bag that came with it is rather thin and the strap is short.',
    ];
    const block = (cls: string) => `<div class="${cls}">${reviews.map((r) => `<div class="review"><p>${r}</p></div>`).join('')}</div>`;
    for (const cls of ['product-reviews-content', 'customer-reviews', 'yotpo-main-widget', 'jdgm-widget']) {
      const text = extract(`<html><body><main><h1>Electric guitar</h1><div class="description">${paragraphs}</div>${block(cls)}</main></body></html>`);
      for (const p of PROSE) expect(text).toContain(p);
      expect(text, cls).not.toContain('Bought this for my daughter');
    }
    const only = extract(`<html><body><main><h1>What our customers say</h1>${block('customer-reviews')}</main></body></html>`);
    for (const r of reviews) expect(only).toContain(r);
  });

  it('reads a page that renders its article once per screen size once, and a quoted earlier post once; keeps a quote of a source not on the page and a paragraph written twice', () => {
    const more = '<p>The second phase, a new quay for the ferries and a park along the old sea wall, is to follow once the first is paid for.</p>';
    const variant = (hidden: string) => `<div class="ssr-variant ${hidden}"><div class="rich-text">${paragraphs}${more}</div></div>`;
    const text = extract(`<html><body><main><h1>The harbour plan</h1>${variant('hidden-desktop')}${variant('hidden-tablet')}${variant('hidden-phone')}</main></body></html>`);
    for (const p of PROSE) expect(text.split(p).length - 1, p).toBe(1);

    const post = (id: number, body: string) => `<article class="post" id="p${id}"><div class="author">user${id}</div><div class="post-body">${body}</div></article>`;
    const thread = extract(`<html><body><main><h1>The harbour plan</h1>${post(1, paragraphs + more)}${post(2, `<blockquote>${paragraphs}${more}</blockquote><p>Agreed with every word of this, and I have lived by the harbour, through three floods, for forty years.</p>`)}</main></body></html>`);
    // The quote repeats a post of the page: the post is read where it was written.
    for (const p of PROSE) expect(thread.split(p).length - 1, p).toBe(1);
    expect(thread).toContain('Agreed with every word of this');
    const cited = extract(`<html><body><main><h1>The harbour plan</h1>${post(1, `<blockquote>${paragraphs}</blockquote><p>This is what the council published last week, and I think the budget is far too small for it.</p>`)}${post(2, more)}</main></body></html>`);
    for (const p of PROSE) expect(cited.split(p).length - 1, p).toBe(1);

    // A long paragraph the author wrote twice (a refrain, a test page) is the author's.
    const refrain = `<p>${PROSE.join(' ')} ${PROSE[0]}</p>`;
    const twice = extract(`<html><body><article><h1>Refrain</h1>${refrain}<h2>Again</h2>${refrain}<h2>And again</h2>${refrain}</article></body></html>`);
    expect(twice.split(PROSE[0] as string).length - 1).toBe(6);
  });

  it("drops a Webflow form's answers, which its style sheet shows only after a submit", () => {
    const text = extract(`<html><body><main><article>${paragraphs}<div class="w-form"><form><p>Get the plan by mail.</p></form>
      <div class="w-form-done"><div>Thank you! Your submission has been received!</div></div>
      <div class="w-form-fail"><div>Oops! Something went wrong while submitting the form.</div></div></div></article></main></body></html>`);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).not.toMatch(/Thank you! Your submission|Oops! Something went wrong/);
  });

  it("keeps closed accordion and tab panels (a FAQ's answers, a feature per tab), and drops a popover and other hidden blocks", () => {
    const faq = [
      ['How long does the plan take?', 'The first phase takes eighteen months, and the second one follows when the budget allows it.'],
      ['Who pays for the sea wall?', 'The regional council pays two thirds, and the town pays the rest from the harbour fund.'],
    ];
    const panels = faq
      .map(([q, a], i) => `<div class="accordion-item"><button aria-controls="faq-${i}">${q}</button><div id="faq-${i}" class="accordion-collapse" hidden><p>${a}</p></div></div>`)
      .join('');
    const tab = `<div role="tabpanel" aria-hidden="true"><p>Parking by the station is free on weekends, and bicycles ride the ferry at no charge.</p></div>`;
    const text = extract(`<html><body><main><article>${paragraphs}${panels}${tab}
      <div popover><div role="tabpanel"><p>Install our app for faster access to the harbour timetable.</p></div></div>
      <div class="note" hidden><p>This paragraph is hidden and not part of any panel at all.</p></div></article></main></body></html>`);
    for (const p of PROSE) expect(text).toContain(p);
    for (const [, a] of faq) expect(text).toContain(a);
    expect(text).toContain('Parking by the station');
    expect(text).not.toContain('Install our app');
    expect(text).not.toContain('This paragraph is hidden');

    const tabs = extract(`<html><body><main><article>${paragraphs}<div class="tab-content"><div class="tab-pane" style="display:none">
      <p>Ferries leave every hour from the new pier, and the first one sails at six.</p></div></div></article></main></body></html>`);
    expect(tabs).toContain('Ferries leave every hour');
  });

  it("keeps a carousel's slides hidden from screen readers while off screen, and drops the copies it makes to loop", () => {
    const slides = [
      'Residents gather at the pier every Saturday morning to watch the ferries, old and new, come in from the islands.',
      'The old lighthouse, restored last year by volunteers, now opens its gallery to visitors on summer evenings.',
      'Fishermen sell the morning catch straight from their boats, and the market stalls close by noon on most days.',
    ];
    const track = slides
      .map((s, i) => `<div class="slick-slide${i === 0 ? ' slick-active' : ''}" aria-hidden="${i === 0 ? 'false' : 'true'}"><p>${s}</p></div>`)
      .join('');
    const clone = `<div class="slick-slide slick-cloned" aria-hidden="true"><p>${slides[0]} Cloned.</p></div>`;
    const text = extract(`<html><body><main><article>${paragraphs}<div class="slick-track">${clone}${track}</div>
      <div class="note" aria-hidden="true"><p>This note is hidden from readers and is no slide of any carousel.</p></div></article></main></body></html>`);
    for (const p of PROSE) expect(text).toContain(p);
    for (const s of slides) expect(text).toContain(s);
    expect(text).not.toContain('Cloned.');
    expect(text).not.toContain('This note is hidden');
  });

  it('keeps short cards whose boilerplate class word the page puts on most of its prose (a builder\'s `widget`), and still drops a lone one', () => {
    const widget = (inner: string, kind = 'text-editor') => `<div class="elementor-widget elementor-widget-${kind}">${inner}</div>`;
    const cards = ['Harbour planning', 'Ferry timetables', 'Flood defence'].map(
      (t, i) => widget(`<h3><a href="/services/${i}">${t}</a></h3><p>We advise towns on ${t.toLowerCase()} from the first plan on.</p>`, 'icon-box'),
    );
    const page = extract(`<html><body><main>${PROSE.map((p) => widget(`<p>${p}</p>`)).join('')}${PROSE.map((p) => widget(`<p>${p}</p>`)).join('')}${cards.join('')}</main></body></html>`);
    for (const t of ['harbour planning', 'ferry timetables', 'flood defence']) expect(page).toContain(`We advise towns on ${t}`);

    const lone = extract(`<html><body><main>${paragraphs}${paragraphs}<div class="widget"><h3><a href="/s">Services</a></h3><p>We advise towns on plans.</p></div></main></body></html>`);
    expect(lone).not.toContain('We advise towns on plans');
  });

  it('reads component-library classes (`cmp-teaser`) as layout, a consent manager (`#cmpbox`) as furniture, and never a caption class as layout', () => {
    const $ = load(`<html><body><div class="cmp-teaser cmp-promo"><h3>Audit</h3></div><div class="cmp-container"></div><div id="cmpbox"></div><div class="cmpwrapper"></div></body></html>`);
    const kinds = $('body > div').toArray().map((el) => furnitureKind(el as Element));
    expect(kinds).toEqual(['soft', '', 'strong', 'strong']);

    // A listing whose teasers all carry a long image caption: the caption blocks hold most of
    // the prose, and are still captions (dropped), not layout.
    const items = PROSE.map(
      (p, i) => `<article class="item"><div class="caption-wrap"><div class="caption"><p>A photograph of the harbour at dawn, taken from the old lighthouse, with the ferry leaving for the islands and the fishing boats, the cranes and the new sea wall behind it, on the first clear morning of the year ${i}.</p></div></div><h2><a href="/story/${i}">Story ${i}</a></h2><p class="teaser">${p}</p></article>`,
    );
    const listing = extract(`<html><body><main>${items.join('')}</main></body></html>`);
    for (const p of PROSE) expect(listing).toContain(p);
    expect(listing).not.toContain('A photograph of the harbour');
  });

  it('reads a long first post (1,000-3,000 characters) as the head of a thread when the sweep took several times its prose as comments', () => {
    const opening = `<div class="topic-body">${paragraphs}${paragraphs}${paragraphs}</div>`;
    const reply = (i: number) => `<div class="comment" id="reply-${i}"><span class="author">user${i}</span><p>Reply ${i}: ${PROSE.join(' ')}</p><p>${PROSE.join(' ')}</p><p>${PROSE.join(' ')}</p></div>`;
    const page = (replies: string) => extract(`<html><body><nav><a href="/">Forum</a><a href="/latest">Latest</a></nav><main><h1>Harbour plan thread</h1>${opening}${replies}</main><footer><a href="/rules">Rules</a></footer></body></html>`);
    const thread = page([0, 1, 2, 3].map(reply).join(''));
    expect(thread).toContain(FIRST_PROSE);
    for (let i = 0; i < 4; i += 1) expect(thread).toContain(`Reply ${i}:`);
    expect(thread).not.toContain('Rules');
    // A long article under a short comment section keeps the comments out.
    const article = page([0, 1, 2].map((i) => `<div class="comment"><p>Reply ${i}: great news, about time the council did something for the harbour and its people.</p></div>`).join(''));
    expect(article).toContain(FIRST_PROSE);
    expect(article).not.toContain('Reply 0:');
  });

  it("drops a consent manager's preference centre even when it holds more text than a short thread, at every level", () => {
    const purposes = PROSE.map((p, i) => `<h4>Purpose ${i}</h4><p>These cookies, set by us and our partners, help us measure and improve the site. ${p}</p>`).join('');
    const centre = `<div id="onetrust-consent-sdk"><div role="dialog"><h2>Privacy Preference Center</h2>${purposes}${purposes}</div></div>`;
    const post = (who: string, body: string) => `<article class="comment-wrap"><div class="author">${who}</div><div class="comment-body"><p>${body}</p></div></article>`;
    const thread = extract(`<html><body><main><h1>New case, two holes</h1>${post('Rabbids', 'Does anyone know what the two round holes at the back and at the bottom of this case are for? The manual says nothing about them.')}${post('DevBiker', 'I heard the rear one is for an external connection of the lighting hub, the other one I do not know.')}</main>${centre}</body></html>`);
    expect(thread).toContain('Does anyone know what the two round holes');
    expect(thread).not.toContain('Privacy Preference Center');
    const $ = load(`<html><body><div id="onetrust-consent-sdk"></div><div class="cookie-banner"></div><div class="cookies"></div></body></html>`);
    const kinds = (level: 'tags' | 'none') => $('body > div').toArray().map((el) => furnitureKind(el as Element, level));
    expect(kinds('tags')).toEqual(['strong', 'strong', '']);
    expect(kinds('none')).toEqual(['strong', 'strong', '']);
  });

  it("drops a forum post's author card and signature, not a product section named after e-signatures", () => {
    const post = (body: string) => `<article class="message"><div class="message-user"><h4 class="message-name">harbourfan</h4><div class="message-userExtras"><dl><dt>Joined</dt><dd>May 3, 2019</dd></dl><dl><dt>Posts</dt><dd>4,032</dd></dl></div></div><div class="message-content"><p>${body}</p><div class="message-signature">Sailing since 1998. Views my own, boats my bank’s.</div></div></article>`;
    const text = extract(`<html><body><main><h1>The harbour plan</h1>${PROSE.map(post).join('')}</main></body></html>`);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).not.toMatch(/Joined|4,032|Sailing since/);
    const $ = load(`<html><body><div class="signature"></div><div class="ipsEntry__signature"></div><div class="postsignature"></div><div id="e-signature-apis"></div><div class="digital-signature-row"></div><dd class="profile-joined"></dd></body></html>`);
    expect($('body > *').toArray().map((el) => furnitureKind(el as Element))).toEqual(['strong', 'strong', 'strong', '', '', 'strong']);
  });

  it('reads a list article written as one body block per entry as one article', () => {
    const entries = [
      ['Harbour Bakery', 'Bakes its sourdough with flour from the valley, sells yesterday’s bread at half price and delivers by bicycle to the old town.'],
      ['Lighthouse Books', 'Keeps second-hand books on every wall, buys back what you have read, and runs a reading group for children on Saturday mornings.'],
      ['Ferry Repair', 'Mends shoes, bags and jackets instead of replacing them, with leather offcuts from the tannery across the water.'],
      ['Island Produce', 'Grows vegetables without plastic, packs them in returnable crates, and pays its pickers above the regional wage.'],
    ];
    const html = `<html><body><main><article class="article">
      <div class="article__block"><h1>Four local shops doing the right thing</h1><div class="article__content rich-text">${paragraphs}</div></div>
      ${entries.map(([name, text]) => `<div class="article__block"><h2><a href="/${name}">${name}</a></h2><div class="layout-block__aside"><div class="rating">Rated: Good</div></div><div class="layout-block__content rich-text"><p>${text} ${text}</p></div></div>`).join('\n')}
    </article></main></body></html>`;
    const $ = load(html);
    const body = $('body')[0] as Element;
    const stats = measure(body);
    expect(semanticCandidate($.root()[0] as ParentNode, stats, stats.get(body)?.text ?? 0)).toBe($('article')[0]);
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    for (const [name, entry] of entries) {
      expect(text).toContain(name);
      expect(text).toContain(entry);
    }
  });

  it("keeps a listing's records whose class is a boilerplate word (one `div.meta` an entry), and still drops a lone one", () => {
    const titles = [
      'Attention sinks in large language models and where they come from',
      'Provably unbiased judges for the evaluation of language models',
      'Common ground construction under asymmetric information in puzzles',
      'A survey of retrieval methods for question answering over tables',
      'Planning with learned world models for long-horizon robot tasks',
    ];
    const entries = titles
      .map((t, i) => `<dt><a href="/abs/${i}">arXiv:2603.0${i}</a></dt><dd><div class="meta"><div class="list-title">Title: ${t}</div>
        <div class="list-authors"><a href="/a/${i}">Ann Author</a>, <a href="/b/${i}">Bob Writer</a>, <a href="/c/${i}">Cy Coder</a></div></div></dd>`)
      .join('');
    // The intro alone is enough prose for a result, so the entries are judged, not rescued by the short-result fallback.
    const intro =
      'This list shows the newest papers of the category, as their authors submitted them, with the titles and the authors of ' +
      'each entry, and it is updated every weekday at midnight, with the older entries moving on to the archive pages.';
    const listing = extract(`<html><body><div id="content"><h1>Recent submissions</h1><p>${intro}</p><dl id="articles">${entries}</dl></div></body></html>`);
    for (const t of titles) expect(listing).toContain(t);

    const article = extract(`<html><body><article>${paragraphs}<div class="meta">Filed under <a href="/t/1">Local</a>, <a href="/t/2">Harbour</a></div></article></body></html>`);
    for (const p of PROSE) expect(article).toContain(p);
    expect(article).not.toContain('Filed under');
  });

  it('removes author boxes, post metadata and disclosure notes, even with a long bio', () => {
    const bio =
      'Jane Doe has written about city planning, harbours and public transport for twenty years, first for a regional paper, then for ' +
      'a national magazine, and she now runs a newsletter of her own. She lives by the sea with two cats, a boat and far too many books.';
    const html = `<html><body><article class="post"><h1>Harbour plan approved</h1>${paragraphs}
      <p class="postmetadata">This entry was posted on Tuesday and is filed under Local news.</p>
      <section class="editorial-disclosure"><p>This post contains references to products from our partners.</p></section>
      <div id="author-description"><p>${bio}</p></div>
    </article></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    for (const junk of ['Jane Doe', 'This entry was posted', 'references to products']) expect(text).not.toContain(junk);
  });

  it('keeps a paragraph whose block also holds link-only "download" lines', () => {
    const short = 'Because there are so many of them, and many only stand in a few states, we kept to the largest ones here.';
    const download = '<figure><div class="figure-link"><a href="/chart.jpg">Download the chart in full resolution</a></div></figure>';
    const html = `<html><body><main><article>
      <header><h1>How many parties?</h1>${paragraphs}</header>
      <div class="container"><section class="body"><p><em>${short}</em></p>${download}${download}${download}</section></div>
    </article></main></body></html>`;
    const text = extract(html);
    expect(text).toContain(short);
    expect(text).not.toContain('Download the chart');
  });

  it('keeps a link inside a sentence, however it is wrapped', () => {
    const html = `<html><body><article>${paragraphs}
      <p>The site will soon be in charge of labelling <a href="/fake"><span>fake news</span></a> alongside two other fact checkers, the company said.</p>
    </article></body></html>`;
    expect(extract(html)).toContain('labelling fake news alongside two other fact checkers');
  });

  it('drops a boilerplate line written as a plain paragraph near the end, with what follows it', () => {
    const html = `<html><body><article>${paragraphs}
      <p><strong>Schon gelesen?</strong></p>
      <blockquote><p><a href="/other">Air force trains its pilots abroad from next year</a></p></blockquote>
      <p>Like us on Facebook</p>
    </article></body></html>`;
    const text = extract(html);
    expect(text).toContain(PROSE[3]);
    for (const junk of ['Schon gelesen', 'Air force trains', 'Like us']) expect(text).not.toContain(junk);
  });

  it('knows more boilerplate headings: comment prompts, "was this helpful?", newsletter teasers', () => {
    for (const heading of ['Hinterlasse jetzt einen Kommentar', 'Was this article helpful?', 'Mit unserem Newsletter bleiben Sie informiert', 'Das Thema könnte dich auch interessieren:']) {
      const html = `<html><body><article>${paragraphs}<h3>${heading}</h3><p>Yes, it was. No, it was not. Tell us more.</p></article></body></html>`;
      const text = extract(html);
      expect(text, heading).toContain(PROSE[3]);
      expect(text, heading).not.toContain(heading);
      expect(text, heading).not.toContain('Tell us more');
    }
  });

  it('keeps a one-sentence lead above the body container but not the byline next to it', () => {
    const lead = 'Banks and investors around the world still finance projects that harm the climate.';
    const html = `<html><body><div class="page"><div class="article">
      <div class="intro"><h1>Drill until it gets hot</h1><div class="summary">${lead}</div><div class="byline">By Jane Doe</div><div class="date">19 October 2019</div></div>
      <div class="article-body">${paragraphs}</div>
    </div></div><div class="footer-links"><a href="/a">About</a> <a href="/b">Jobs</a></div></body></html>`;
    const text = extract(html);
    expect(text).toContain(lead);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).not.toContain('By Jane Doe');
  });

  it("joins the best block's paragraph siblings written as divs (inline text, or one <p> inside) and short whole sentences, not its short labels", () => {
    const lead = 'The council published the final harbour plan on Monday, after two years of hearings, surveys, and public meetings across the district.';
    const short = 'Nobody expected it this soon.';
    const closing = 'Work on the northern quay is to start in March, and the ferry will keep running throughout, the council said in its statement.';
    const body = `<p>${PROSE[3]}</p><div class="content"><p>${PROSE.slice(0, 3).join('</p><p>')}</p><p>${PROSE.slice(0, 2).join(' ')}</p></div>`;
    const html = `<html><body><nav><a href="/">Home</a> <a href="/news">News</a></nav><article>
      <div class="lead-box"><p>${lead}</p></div>
      <div>${short}</div>
      <div class="label">Share this story</div>
      ${body}
      <div class="outro">${closing}</div>
    </article><footer><a href="/a">About</a></footer></body></html>`;
    const text = extract(html);
    for (const kept of [lead, short, closing, ...PROSE]) expect(text).toContain(kept);
    expect(text).not.toContain('Share this story');
    expect(text.indexOf(lead)).toBeLessThan(text.indexOf(FIRST_PROSE));
    // A merge that would leave out a part of the article container it cannot read as a
    // paragraph (here a quote with its credit beside it) loses to the container.
    const quote = 'The harbour is the reason this town exists at all, and the plan finally treats it that way, said one resident who has fished here for forty years.';
    const boxed = html.replace('<div class="label">', `<div class="media"><p>${quote}</p><span>Photo: Harbour Office archive</span></div><div class="label">`);
    expect(extract(boxed)).toContain(quote);
  });

  it('drops teasers for other pages inside an article: a labelled link ("SEE MORE: …", "DON\'T MISS" and its headlines) and a link written in capitals', () => {
    const teasers = [
      '<p><strong>SEE MORE</strong>: <a href="/news/1">Harbour protest: 800 residents march on the town hall</a></p>',
      '<p><strong>DON\'T MISS</strong><br><strong><a href="/news/2">Ferry strike called off after late-night talks</a> [LATEST]</strong><br><strong><a href="/news/3">Quay collapse: what we know so far</a> [INSIGHT]</strong></p>',
      '<p><strong><a href="/news/4">MAYOR ANNOUNCES SURPRISE RESIGNATION AFTER VOTE</a></strong></p>',
      '<p><a href="/apps">CLICK HERE TO GET THE NEWS APP</a></p>',
    ];
    const kept = [
      '<h2><a href="#budget">THE BUDGET AND WHO PAYS FOR IT</a></h2>',
      '<p><a href="/recipes/pasta">See more harbour-side pasta recipes</a></p>',
      '<p>THE COUNCIL VOTED SEVEN TO TWO, AND NOBODY ABSTAINED.</p>',
    ];
    const html = `<html><body><article>${PROSE.map((p, i) => `<p>${p}</p>${teasers[i] ?? ''}`).join('\n')}${kept.join('\n')}<p>${PROSE[0]}</p></article></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    for (const gone of ['Harbour protest', 'Ferry strike', 'Quay collapse', 'MAYOR ANNOUNCES', 'NEWS APP']) expect(text).not.toContain(gone);
    for (const stays of ['THE BUDGET AND WHO PAYS FOR IT', 'See more harbour-side pasta recipes', 'THE COUNCIL VOTED SEVEN TO TWO']) expect(text).toContain(stays);
  });

  it("drops a story's credit lines anywhere and its contact lines after its last paragraph, not a contact line the story goes on after", () => {
    const midContact = 'Follow the harbour club on social media: Instagram, Facebook, Discord';
    const html = `<html><body><article>
      <p>${PROSE[0]}</p><p>${midContact}</p><p>${PROSE[1]} ${PROSE[0]}</p>
      <p>Reach the old lighthouse at low tide, when the causeway is dry, and walk back before the water turns.</p>
      <p>${PROSE[2]}</p><p>${PROSE[3]}</p>
      <p>Reporting by Anna Berg; additional reporting by Tom Hale; Editing by Sara Lund</p>
      <p>Associated Press writers Lena Ortiz and Paul Kim contributed to this report.</p>
      <p><em>Email Anna Berg at anna.berg@example.com or follow her <a href="https://twitter.com/annaberg">@annaberg</a>. Follow us on Twitter and Facebook.</em></p>
    </article></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).toContain(midContact);
    expect(text).toContain('Reach the old lighthouse at low tide');
    for (const gone of ['Reporting by', 'contributed to this report', 'Email Anna Berg']) expect(text).not.toContain(gone);
  });

  it("reads only the post a WordPress page names (`postid-N`) when an endless-scroll theme appends the next posts, even inside it", () => {
    const others = [
      'Autumn is the season to plant bulbs, divide perennials, and mulch the beds before the first frost arrives in the valley, gardeners say.',
      'A good compost heap needs air, water, and a mix of green and brown material, turned every few weeks until it smells of the forest floor.',
      'Raised beds warm up earlier in spring, drain better after heavy rain, and spare the gardener\'s back, which is why so many allotments use them.',
    ];
    const post = (n: number, text: string) => `<h2>Post ${n}</h2><p>${text}</p><p>${text}</p>`;
    const html = `<html><body class="single single-post postid-12"><div id="primary">
      <article class="post-12 post articlebox"><h1>The harbour plan</h1>${paragraphs}</article>
      <article id="post-12" class="post-12 postbox"><article id="post-13" class="post-13 post">${post(13, others[0] as string)}
        <article id="post-14" class="post-14 post">${post(14, others[1] as string)}<article id="post-15" class="post-15 post">${post(15, others[2] as string)}</article></article></article></article>
    </div></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    for (const o of others) expect(text).not.toContain(o);
    // Without the body's word for it, or with one post only, nothing changes.
    expect(extract(html.replace('postid-12', 'page'))).toContain(others[0]);
  });

  it('keeps the text after a boilerplate line in the middle of an article written as text and <br><br> in one block', () => {
    const html = `<html><body><div class="article">${PROSE[0]}<br><br>${PROSE[1]}<br><br><div align="center"><em><a href="https://video.example/c/news">Subscribe to The Harbour News on YouTube</a></em></div><br><br>${PROSE[2]}<br><br>${PROSE[3]}<br><br>${PROSE.join(' ')}</div></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).toContain(PROSE.join(' '));
    expect(text).not.toContain('Subscribe to The Harbour News');
  });

  it('keeps a post embedded in the article (the blockquote Twitter/X and Instagram publish) whatever its wrapper is called, and still drops a share bar', () => {
    const tweet = (text: string, user: string) =>
      `<blockquote class="twitter-tweet"><p lang="en" dir="ltr">${text} <a href="https://t.co/abc">https://t.co/abc</a> <a href="https://twitter.com/x/status/1">pic.twitter.com/xyz</a></p>— ${user} (<a href="https://twitter.com/${user}">@${user}</a>) <a href="https://twitter.com/${user}/status/1">November 18, 2019</a></blockquote>`;
    const first = 'The harbour plan is finally here and it looks better than anyone expected';
    const second = 'Seven to two in favour, the ferry stays, the quay gets rebuilt';
    const html = `<html><body><article><div class="entry-content">
      <p>${PROSE[0]}</p><div class="social-media-embed">${tweet(first, 'harbourfan')}</div>
      <p>${PROSE[1]}</p><div class="article-widget article-tweet"><div class="inner">${tweet(second, 'councilwatch')}</div></div>
      <p>${PROSE[2]}</p><p>${PROSE[3]}</p>
      <div class="social-share"><a href="https://facebook.com/share">Share on Facebook</a> <a href="https://twitter.com/intent">Share on Twitter</a></div>
    </div></article></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).toContain(first);
    expect(text).toContain(second);
    expect(text).not.toContain('Share on Facebook');
  });

  it('drops date lines in more forms, tags lines, caption toggles, newsletter prompts and a next/previous box; keeps a sentence that mentions a newsletter', () => {
    const furniture = [
      '<div class="date">segunda-feira, 22 de janeiro de 2018 às 0:13</div>',
      '<p>Nov. 20, 2019 6:02 AM EST</p>',
      '<p>November 19, 2019 12:04AM ET</p>',
      '<p>Tags: <a href="/t/harbour">harbour</a>, <a href="/t/ferry">ferry</a>, <a href="/t/council">council</a></p>',
      '<div class="captionlink"><p class="open">Caption</p><p class="close">Close</p></div>',
      '<p>There is plenty more where that came from. Sign up for The Harbour Daily today to get the free newsletter delivered to your inbox.</p>',
      '<p>Get the latest updates right in your inbox. Subscribe to Harbour.com\'s newsletters.</p>',
      '<div class="grid next-prev"><p><a href="/news/next">Next story: the new ferry timetable is out</a></p><p><a href="/news/prev">Previous story: quay repairs start in May</a></p></div>',
      '<p><strong><a href="/news/5">COUNCIL CLEARED TO REBUILD QUAY AMID ROW WITH FERRY OPERATORs</a></strong></p>',
    ];
    const mention = 'The council also plans a monthly newsletter for residents, printed and posted to every household on the island, so that nobody misses a hearing.';
    const html = `<html><body><article>${furniture.slice(0, 3).join('')}${PROSE.map((p, i) => `<p>${p}</p>${furniture[i + 3] ?? ''}`).join('\n')}<p>${mention}</p>${furniture.slice(7).join('')}</article></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).toContain(mention);
    for (const gone of ['janeiro', 'Nov. 20', 'November 19', 'Tags', 'Caption', 'Close', 'Sign up', 'Subscribe', 'Next story', 'Previous story', 'COUNCIL CLEARED']) expect(text).not.toContain(gone);
  });

  it("drops a camel-case caption or credit, a standfirst ('dek'), a line of meta labels and an agency credit; keeps a sentence with a label and a slash", () => {
    const furniture = [
      '<div class="InlineImage-imageEmbed"><div class="InlineImage-imageEmbedCaption">The harbour master, centre, walks past the new ferry at the quay on Tuesday morning.</div><div class="InlineImage-imageEmbedCredit">Jane Roe | Harbour Times</div></div>',
      '<div class="m-detail-header--dek">The ferry plan is finally going ahead after years of debate.</div>',
      '<small class="text-muted">05/10/2018 - Publicado por: Clarissa Borba - Categoria: Saúde - Tags: porto balsa</small>',
      '<p>John Smith | Bloomberg | Getty Images</p>',
    ];
    const kept = 'Date: the council will meet again on 4 May, and the minutes, with the budget and/or the plan, go online the week after for anyone who asks.';
    const html = `<html><body><article>${furniture[1]}${furniture[0]}${PROSE.map((p, i) => `<p>${p}</p>${i === 1 ? furniture[2] : i === 2 ? furniture[3] : ''}`).join('\n')}<p>${kept}</p></article></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).toContain(kept);
    for (const gone of ['harbour master', 'Jane Roe', 'finally going ahead', 'Publicado', 'Getty']) expect(text).not.toContain(gone);
  });

  it("reads a paragraph once when the page shows it again in another kind of container (a product's summary and its tab), and keeps an author's repeats", () => {
    const description = 'The harbour tee is cut from heavy combed cotton, with a ribbed neck, taped shoulders and double-needle hems that keep their shape wash after wash.';
    const meal = 'Breakfast: two eggs, one slice of whole-grain toast, half a cup of berries and a glass of milk, eaten before nine in the morning.';
    const card = 'Every tour starts at the harbour office at ten, lasts about two hours, and ends with coffee and cake at the ferry terminal café.';
    const html = `<html><body><main><h1>Harbour Tee</h1>
      <div class="summary"><p>${description}</p></div>
      ${PROSE.map((p) => `<p>${p}</p>`).join('')}
      <div class="tabs"><div class="tab-panel"><p>${description}</p></div></div>
      <div class="plan"><h2>Monday</h2><p>${meal}</p><h2>Tuesday</h2><p>${meal}</p></div>
      <div class="card"><h3>Old town</h3><p>${card}</p></div><div class="card"><h3>Lighthouse</h3><p>${card}</p></div>
    </main></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text.split(description).length - 1).toBe(1);
    expect(text.split(meal).length - 1).toBe(2);
    expect(text.split(card).length - 1).toBe(2);
  });

  it('matches article containers in one walk exactly as ARTICLE_SELECTORS select them', () => {
    const $ = load(
      '<body role="main"><div itemprop="articleBody"></div><div itemprop="ArticleBody"></div><span class="post-content"></span>' +
        '<section class="x  entry-content\ty"></section><div class="Entry-content"></div><article class="story-body"></article>' +
        '<main></main><div role="main"></div><div role="Main"></div><div class="post-contents"></div></body>',
    );
    for (const el of $('*').toArray() as Element[]) {
      const expected = ARTICLE_SELECTORS.reduce((bits, selector, i) => bits | ($(el).is(selector) ? 1 << i : 0), 0);
      expect(articleRanks(el.name, el.attribs), $.html(el)).toBe(expected);
    }
  });
  it('drops a boilerplate heading in the middle of the text with the paragraph of links it introduces, and keeps the text after it', () => {
    const teasers = '<p><a href="/a">Harbour fees rise again next year</a> [INSIGHT]<br><a href="/b">Ferry timetable changes in May</a> [VIDEO]</p>';
    const html = `<html><body><article class="post"><h1>Harbour plan approved</h1><p>${PROSE[0]}</p><p>${PROSE[1]}</p>
      <p><strong>DON’T MISS</strong></p>${teasers}<p>${PROSE[2]}</p><p>${PROSE[3]}</p></article></body></html>`;
    const text = extract(html);
    for (const p of PROSE) expect(text).toContain(p);
    expect(text).not.toContain('MISS');
    expect(text).not.toContain('Ferry timetable');
  });

  it('keeps measures exact through removals made under keepCounted (elements, text inside and outside links)', () => {
    const $ = load(`<html><body><div id="a"><p>One, two <a href="/x">link text</a> three.</p><p id="gone">Removed, with <a href="/y">a link</a>.</p>tail text, here</div><div id="b"><a href="/z">only <b>a</b> link</a> and more, words</div></body></html>`);
    const body = $('body')[0] as Element;
    const stats = measure(body);
    keepCounted(stats, () => {
      detach($('#gone')[0] as Element);
      detach(($('#b a')[0] as Element).children[0] as never);
      detach(($('#a')[0] as Element).children[1] as never);
    });
    const fresh = measure(body);
    for (const [el, s] of fresh) expect(stats.get(el), $.html(el)).toEqual(s);
    expect(fresh.get(body)?.text).toBeLessThan(80);
  });

  it("measureOne gives an element's own measures as measure does (links, commas of every script, scripts and comments left out)", () => {
    const $ = load(`<html><body><div id="a"><p>One, two <a href="/x">link, text</a> three、four，five،six.</p><script>var a = 1, b = 2;</script><!-- a, comment --><div><a href="/y"><b>deep</b>, link</a> tail,</div></div><p id="empty"> </p></body></html>`);
    const stats = measure($('body')[0] as Element);
    for (const sel of ['body', '#a', '#a p', '#a div', '#empty']) {
      const el = $(sel)[0] as Element;
      expect(measureOne(el), sel).toEqual(stats.get(el));
    }
    expect(measureOne($('#a')[0] as Element)).toMatchObject({ commas: 7 });
    expect(commaCount('no commas here')).toBe(0);
    expect(commaCount('a, b，c、d،e,')).toBe(5);
  });
});

describe('hintOf', () => {
  const TAXONOMY = /^(?:category|categories|tag|tags|post_tag|post-tag|topic|label|taxonomy|term|anlass|rubrik|ressort|kategorie)[-_]/;
  /** The hint as every class list was read before the plain-list shortcut: split, filtered, joined. */
  const reference = (cls: string, id: string) =>
    !cls && !id
      ? ''
      : `${cls
          .toLowerCase()
          .split(/\s+/)
          .filter((c) => c && !TAXONOMY.test(c))
          .join(' ')} ${id.toLowerCase()}`;
  const element = (attribs: Record<string, string>) => ({ attribs }) as unknown as Element;

  it('reads every class list as splitting it into words would, a plain one or not', () => {
    const lists = [
      '', 'entry-content', 'Post Body', 'a b c', ' a', 'a ', 'a  b', 'a\tb', 'a\nb\r\nc', 'a\u00a0b', 'é-content main',
      'category-news', 'post category-news', 'tag_x tags-y', 'x term-z', 'post-tag-a b', 'mycategory-x', 'tag', 'Category-News Sidebar',
      'sidebar\u2028widget', 'kategorie-sport ressort_politik rubrik-x anlass-y',
    ];
    for (const cls of lists) {
      for (const id of ['', 'Main']) {
        const attribs: Record<string, string> = {};
        if (cls) attribs.class = cls;
        if (id) attribs.id = id;
        expect(hintOf(element(attribs)), JSON.stringify([cls, id])).toBe(reference(cls, id));
      }
    }
  });
});
