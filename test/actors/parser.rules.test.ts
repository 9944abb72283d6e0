/**
 * The page rules (actors/parser/page-data/rules): what a reader sees on a page without
 * structured markup, read into one `source: 'page'` thing. Articles in three languages,
 * product pages, a contact page, an empty page, what is never read (footer dates, markup),
 * the untouched tree, and hostile inputs that must stay linear; and the view's shortcuts
 * (nearest-first scans by halving, own-text starts, class words as written, the `<base>`
 * found on the walk) giving what the plain reading gives.
 */
import { describe, expect, it } from 'vitest';
import { loadHtml } from '../../actors/parser/formats/load-html.js';
import { findDate, parseDateAttribute, parseMoney, readPageFacts, titleHeadline } from '../../actors/parser/page-data/rules/index.js';
import { type Anchor, nearest, nearestInOrder } from '../../actors/parser/page-data/rules/near.js';
import { ownText, ownTextHead, ownTextOf, ownTextStart } from '../../actors/parser/page-data/rules/text.js';
import { type Node, Ctx, FURNITURE, hinted, viewOf } from '../../actors/parser/page-data/rules/view.js';
import type { Thing, ThingValue } from '../../pipeline/structured/types.js';

const URL = 'https://news.example.com/2024/politics/harbour-plan';

function facts(html: string, url = URL): Thing {
  return readPageFacts(loadHtml(html), url);
}

const one = (thing: Thing, name: string): ThingValue | undefined => thing.props[name]?.[0];
const names = (thing: Thing): string[] =>
  (thing.props.author ?? []).map((a) => ((a as Thing).props.name?.[0] as string));
const nested = (thing: Thing, name: string): Thing => thing.props[name]?.[0] as Thing;

const PROSE =
  'The city council approved the new harbour plan on Tuesday after years of debate, setting aside money for flood walls and a ferry terminal. Work starts next spring.';

describe('actors/parser/page-data/rules: articles', () => {
  const english = `<!doctype html><html lang="en"><head><title>Council approves harbour plan | Example News</title></head><body>
    <header class="site-header"><h1 class="site-logo"><a href="/"><img src="/logo.png" alt="Example News"></a></h1>
      <nav><a href="/politics">Politics</a> <span>March 1, 2024</span></nav></header>
    <main><article>
      <h1>Council approves harbour plan</h1>
      <p class="byline">By <a href="/staff/jane">Jane Doe</a> and <a href="/staff/john">John Smith</a></p>
      <p>Published <time datetime="2024-03-12T09:30:00Z">March 12, 2024</time> ·
         Updated <time datetime="2024-03-13T08:00:00+01:00">March 13, 2024</time></p>
      <figure><img src="/img/icon.png" width="16" height="16" alt="icon"><img src="/img/harbour.jpg" width="1200" height="800" alt="The harbour">
        <figcaption>The harbour at dawn, photographed from the ferry pier by a reader.</figcaption></figure>
      <p>${PROSE}</p>
      <p>Residents welcomed the decision, though some worried about construction noise near the old town.</p>
    </article></main>
    <footer><p>© 2023 Example News. Published 01.02.2020. All rights reserved.</p><a href="mailto:desk@example.com">Contact</a></footer>
  </body></html>`;

  it('reads headline, byline, dates, description and image of an English article', () => {
    const got = facts(english);
    expect(got.source).toBe('page');
    expect(got.types).toEqual(['Article']);
    expect(one(got, 'headline')).toBe('Council approves harbour plan');
    expect(one(got, 'name')).toBe('Council approves harbour plan');
    expect(names(got)).toEqual(['Jane Doe', 'John Smith']);
    expect((got.props.author?.[0] as Thing).types).toEqual(['Person']);
    expect(one(got, 'datePublished')).toBe('2024-03-12T09:30:00Z');
    expect(one(got, 'dateModified')).toBe('2024-03-13T08:00:00+01:00');
    expect(one(got, 'description')).toBe(PROSE);
    expect(one(got, 'image')).toBe('https://news.example.com/img/harbour.jpg');
    expect(one(got, 'email')).toBe('desk@example.com');
  });

  it('reads a German byline and a written date with its time ("Von … | 12. März 2024, 10:30 Uhr")', () => {
    const got = facts(`<html lang="de"><head><title>Stadtrat beschließt Hafenplan - Beispiel Zeitung</title></head><body>
      <div class="artikel"><h1>Stadtrat beschließt Hafenplan</h1>
      <div class="meta">Von Max Mustermann | 12. März 2024, 10:30 Uhr</div>
      <p>Der Stadtrat hat am Dienstag nach jahrelanger Debatte den neuen Hafenplan beschlossen und Geld für Flutmauern bereitgestellt.</p></div>
    </body></html>`);
    expect(one(got, 'headline')).toBe('Stadtrat beschließt Hafenplan');
    expect(names(got)).toEqual(['Max Mustermann']);
    expect(one(got, 'datePublished')).toBe('2024-03-12T10:30:00');
    expect(got.types).toEqual(['Article']);
  });

  it('reads a French byline with two authors and "Publié le 5 mars 2024", and keeps name particles', () => {
    const got = facts(`<html lang="fr"><body><article><h1>Le conseil adopte le plan du port</h1>
      <p class="auteur">Par Marie Dupont et Jean de La Fontaine</p><p>Publié le 5 mars 2024 à 14h30</p>
      <p>Le conseil municipal a adopté mardi le nouveau plan du port après des années de débat et de consultations publiques.</p>
    </article></body></html>`);
    expect(names(got)).toEqual(['Marie Dupont', 'Jean de La Fontaine']);
    expect(one(got, 'datePublished')).toBe('2024-03-05T14:30:00');
  });

  it('never takes a date from the footer or a copyright line, even with nothing else on the page', () => {
    const got = facts(`<html><body><h1>About our harbour</h1><p>${PROSE}</p>
      <footer>Copyright 2019–2024 · Last changed 12 March 2024 · Published 01.02.2023</footer>
      <div class="copyright">© 12.03.2024 Example</div></body></html>`, 'https://example.com/about');
    expect(got.props.datePublished).toBeUndefined();
    expect(got.props.dateModified).toBeUndefined();
  });

  it('falls back to the <title> without its site suffix when the page has no h1', () => {
    expect(one(facts('<html><head><title>Harbour plan approved – Example News</title></head><body><p>x</p></body></html>'), 'headline')).toBe('Harbour plan approved');
    expect(titleHeadline('Example News | Harbour plan approved after long debate')).toBe('Harbour plan approved after long debate');
    expect(titleHeadline('Harbour plan - Politics | Example')).toBe('Harbour plan');
  });

  it('leaves a kicker out of the headline and rejects bylines that are not names', () => {
    const got = facts(`<html><body><article><h1><span class="kicker">Harbour</span> Council approves the plan</h1>
      <p class="author">By admin</p><p>${PROSE}</p></article></body></html>`);
    expect(one(got, 'headline')).toBe('Council approves the plan');
    expect(got.props.author).toBeUndefined();
  });
});

describe('actors/parser/page-data/rules: products', () => {
  const product = `<html lang="de"><head><title>Acme Wasserkocher KX-100 kaufen</title></head><body>
    <nav><span class="price">9,99 €</span></nav>
    <div class="product"><h1>Acme Wasserkocher KX-100</h1>
      <div class="price-box"><span class="price price--old"><s>1.499,00 €</s></span> <span class="price">1.299,00 €</span></div>
      <p class="stock">Auf Lager, sofort lieferbar</p>
      <div class="rating">4,5 von 5 Sternen (123 Bewertungen)</div>
      <ul><li>Art.-Nr.: KX-100</li><li>Marke: Acme</li></ul>
      <button type="submit">In den Warenkorb</button></div>
    <aside class="related-products"><h2>Ähnliche Produkte</h2><span class="price">19,99 €</span></aside>
  </body></html>`;

  it('reads price (not the struck-through one), currency, availability, rating, SKU and brand', () => {
    const got = facts(product, 'https://shop.example.de/kx-100');
    expect(got.types).toEqual(['Product']);
    expect(one(got, 'name')).toBe('Acme Wasserkocher KX-100');
    const offer = nested(got, 'offers');
    expect(offer.types).toEqual(['Offer']);
    expect(offer.props).toEqual({ price: [1299], priceCurrency: ['EUR'], availability: ['InStock'] });
    expect(nested(got, 'aggregateRating').props).toEqual({ ratingValue: [4.5], bestRating: [5], reviewCount: [123] });
    expect(one(got, 'sku')).toBe('KX-100');
    expect(one(got, 'brand')).toBe('Acme');
  });

  it('says sold out, out of stock or pre-order from labels and buttons', () => {
    const page = (extra: string) => `<html lang="en"><body><h1>Trail Shoe</h1><p class="price">$89.00</p>${extra}</body></html>`;
    const availability = (extra: string) => nested(facts(page(extra), 'https://shop.example.com/shoe'), 'offers').props.availability?.[0];
    expect(availability('<button disabled>Add to cart</button><span class="stock-label">Sold out</span>')).toBe('SoldOut');
    expect(availability('<button class="btn disabled">Add to cart</button>')).toBe('OutOfStock');
    expect(availability('<button>Pre-order now</button>')).toBe('PreOrder');
    expect(availability('<span class="availability">Only 3 left in stock</span><button>Add to basket</button>')).toBe('LimitedAvailability');
    expect(availability('<button>Add to cart</button>')).toBe('InStock');
    expect(availability('<span class="stock">Rupture de stock</span><button>Ajouter au panier</button>')).toBe('OutOfStock');
  });

  it('reads rating texts: stars with a count, "Rated 4.2 · 1,024 reviews"', () => {
    const rating = (text: string) => nested(facts(`<html><body><h1>Trail Shoe</h1><p class="price">$89.00</p><div class="stars">${text}</div><button>Add to cart</button></body></html>`), 'aggregateRating').props;
    expect(rating('★★★★☆ (123 reviews)')).toEqual({ ratingValue: [4], bestRating: [5], reviewCount: [123] });
    expect(rating('Rated 4.2 · 1,024 reviews')).toEqual({ ratingValue: [4.2], reviewCount: [1024] });
  });

  it('parses price formats: decimal and thousands separators, symbols and codes', () => {
    expect(parseMoney('1.299,00 €')).toEqual({ price: 1299, currency: 'EUR' });
    expect(parseMoney('€1,299.00')).toEqual({ price: 1299, currency: 'EUR' });
    expect(parseMoney('$19.99')).toEqual({ price: 19.99, currency: 'USD' });
    expect(parseMoney('$19.99', { lang: 'en-ca', tld: 'com' })).toEqual({ price: 19.99, currency: 'CAD' });
    expect(parseMoney('$19.99', { lang: 'en', tld: 'au' })).toEqual({ price: 19.99, currency: 'AUD' });
    expect(parseMoney('19,99 EUR')).toEqual({ price: 19.99, currency: 'EUR' });
    expect(parseMoney('¥1,200')).toEqual({ price: 1200, currency: 'JPY' });
    expect(parseMoney('CHF 12.50')).toEqual({ price: 12.5, currency: 'CHF' });
    expect(parseMoney('1 299,00 zł')).toEqual({ price: 1299, currency: 'PLN' });
    expect(parseMoney('Jetzt nur 19,- €')).toEqual({ price: 19, currency: 'EUR' });
    expect(parseMoney('Preis: 1.234.567 Ft')).toEqual({ price: 1234567, currency: 'HUF' });
    expect(parseMoney('49 kr', { lang: 'sv-se', tld: 'se' })).toEqual({ price: 49, currency: 'SEK' });
    expect(parseMoney('Model 300 – now US$ 24.50')).toEqual({ price: 24.5, currency: 'USD' });
    expect(parseMoney('Gift 12')).toEqual({ price: 12, currency: null });
    expect(parseMoney('no price here')).toBeNull();
  });

  it('gives no offer when a page only mentions a price', () => {
    const got = facts(`<html><body><article><h1>Kettles compared</h1><p class="byline">By Jane Doe</p>
      <p>Our favourite kettle costs <span class="price">$49.99</span>, which we think is fair for what it does well.</p></article></body></html>`);
    expect(got.props.offers).toBeUndefined();
    expect(got.types).toEqual(['Article']);
  });
});

describe('actors/parser/page-data/rules: contact pages, empty pages, markup', () => {
  it('reads the address (lines joined), e-mail and telephone of a contact page', () => {
    const got = facts(`<html><body><h1>Contact</h1><div class="contact">
      <address>Acme GmbH<br>Hauptstraße 5<br>10115 Berlin<br>Tel: +49 30 1234567<br>info@acme.example</address>
      <a href="mailto:?subject=Look%20at%20this">Share by e-mail</a>
      <a href="mailto:sales@acme.example?subject=Hello">Write to us</a> <a href="tel:+49-30-1234567">Call us</a></div></body></html>`, 'https://acme.example/contact');
    expect(one(got, 'address')).toBe('Acme GmbH, Hauptstraße 5, 10115 Berlin');
    expect(one(got, 'email')).toBe('sales@acme.example');
    expect(one(got, 'telephone')).toBe('+49-30-1234567');
    expect(got.types).toEqual([]);
  });

  it('finds a visible e-mail and a labelled phone in the footer when there are no links', () => {
    const got = facts('<html><body><p>Hi</p><footer>Write to hello@studio.example · Telefon: 030 987 6543</footer></body></html>');
    expect(one(got, 'email')).toBe('hello@studio.example');
    expect(one(got, 'telephone')).toBe('030 987 6543');
  });

  it('returns a thing with no types and no props for a page with nothing on it', () => {
    expect(facts('<html><body></body></html>')).toEqual({ types: [], source: 'page', props: {} });
    expect(facts('')).toEqual({ types: [], source: 'page', props: {} });
  });

  it('never reads JSON-LD, meta tags, microdata or RDFa', () => {
    const got = facts(`<html><head><title>Visible title</title>
      <meta name="author" content="Meta Author"><meta property="article:published_time" content="2020-01-01">
      <meta name="description" content="Meta description that is long enough to be taken as a description by mistake.">
      <script type="application/ld+json">{"@type":"Product","name":"LD name","offers":{"price":"5.00","priceCurrency":"USD"}}</script></head>
      <body><div itemscope itemtype="https://schema.org/Product"><span itemprop="brand" content="Microdata Brand"></span>
      <meta itemprop="price" content="99"><span property="schema:author" content="RDFa Author"></span></div></body></html>`);
    expect(got).toEqual({ types: [], source: 'page', props: { headline: ['Visible title'], name: ['Visible title'] } });
  });

  it('does not change the tree it reads', () => {
    const $ = loadHtml(`<html><body><article><h1>Title <small>sub</small></h1><p class="byline">By Jane Doe</p>
      <p class="price"><del>$5</del> $4</p><address>1 Main St<br>Springfield 12345</address><p>${PROSE}</p></article></body></html>`);
    const before = $.html();
    readPageFacts($, URL);
    expect($.html()).toBe(before);
  });
});

describe('actors/parser/page-data/rules: dates', () => {
  it('reads the common written formats into ISO 8601', () => {
    const iso = (text: string, lang = '') => findDate(text, lang)?.iso;
    expect(iso('2024-03-12')).toBe('2024-03-12');
    expect(iso('12 March 2024')).toBe('2024-03-12');
    expect(iso('March 12, 2024 at 3:05 pm')).toBe('2024-03-12T15:05:00');
    expect(iso('12.03.2024')).toBe('2024-03-12');
    expect(iso('2024/03/12')).toBe('2024-03-12');
    expect(iso('03/12/2024', 'en-us')).toBe('2024-03-12');
    expect(iso('03/12/2024', 'en-gb')).toBe('2024-12-03');
    expect(iso('12 de marzo de 2024')).toBe('2024-03-12');
    expect(iso('1er mars 2024')).toBe('2024-03-01');
    expect(iso('3. Dezember 2023')).toBe('2023-12-03');
    expect(iso('31.02.2024')).toBeUndefined();
    expect(iso('© 2024')).toBeUndefined();
    expect(parseDateAttribute('2024-03-12T09:30:00.000+0100')).toBe('2024-03-12T09:30:00+01:00');
  });

  it('tells publication from modification by the nearest wording', () => {
    const got = facts(`<html lang="en"><body><article><h1>Faster Docker builds</h1>
      <p class="post-meta">Last updated 04 Jun 2020, originally created 17 Jun 2019</p></article></body></html>`);
    expect(one(got, 'datePublished')).toBe('2019-06-17');
    expect(one(got, 'dateModified')).toBe('2020-06-04');
    const times = facts(`<html><body><article><h1>Harbour</h1><p>Updated <time datetime="2024-03-13">13 March</time> ·
      Published <time datetime="2024-03-12">12 March</time></p><time class="entry-date updated" datetime="2024-03-14">x</time></article></body></html>`);
    expect(one(times, 'datePublished')).toBe('2024-03-12');
    expect(one(times, 'dateModified')).toBe('2024-03-13');
  });
});

describe('actors/parser/page-data/rules: hostile pages stay linear', () => {
  it('reads a 200 KB run of digits, commas and spaces in a price element', () => {
    const run = '1,2 3.4'.repeat(30_000);
    const got = facts(`<html><body><h1>Widget</h1><button>Add to cart</button><span class="price">${run} €</span>
      <div class="rating">${run}</div><p class="byline">By ${'Jane '.repeat(40_000)}</p><address>${run}</address></body></html>`);
    expect(got.types).toEqual(['Product']);
    expect(typeof nested(got, 'offers').props.price?.[0]).toBe('number');
  });

  it('reads a page nested as deep as a page may be (1,000 elements), and a deeper one is not read at all', () => {
    const page = (depth: number) =>
      `<html><body><h1>Deep</h1><p>12 March 2024</p>${'<div class="date meta author byline price">'.repeat(depth)}By Jane Doe, 12 March 2024 $5${'</div>'.repeat(depth)}</body></html>`;
    const got = facts(page(1_000));
    expect(one(got, 'headline')).toBe('Deep');
    expect(one(got, 'datePublished')).toBe('2024-03-12');
    // 20,000 deep: refused by the parse itself (formats/load-html.ts MAX_PAGE_DEPTH), before any rule reads it.
    expect(() => facts(page(20_000))).toThrow(expect.objectContaining({ code: 'page_too_complex' }));
  });
});

describe('actors/parser/page-data/rules: the view and its shortcuts read what the plain way reads', () => {
  it('scans in document order nearest first exactly as the sorting scan does', () => {
    const rows = Array.from({ length: 60 }, (_, i) =>
      `<div class="${i % 7 === 0 ? 'sidebar' : 'row'}"><p>${i % 9 ? 'word' : ''}</p><span>x</span><em></em></div>`);
    const view = viewOf(loadHtml(`<html><body><nav><a href="/">Home</a></nav><h1>Title</h1>${rows.join('')}<footer>Footer text</footer></body></html>`));
    const [h1] = view.byTag.get('h1') ?? [];
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor(seed / 65536) % n;
    };
    for (let round = 0; round < 200; round += 1) {
      const at = view.all[next(view.all.length)] ?? h1;
      const anchor: Anchor = { start: at?.start ?? 0, end: round % 3 ? (at?.end ?? 0) : (at?.start ?? 0), allowed: round % 2 ? FURNITURE : 0 };
      const [before, after, limit] = [[0, 5, 40, 10_000][next(4)] ?? 0, [0, 1, 60, 10_000][next(4)] ?? 0, [1, 7, 200][next(3)] ?? 1];
      for (const nodes of [view.all, view.byTag.get('p') ?? []]) {
        const positions = (found: readonly Node[]): number[] => found.map((n) => n.index);
        expect(positions(nearestInOrder(nodes, anchor, before, after, limit))).toEqual(positions(nearest(nodes, anchor, before, after, limit)));
      }
    }
  });

  it('reads the start of an own text as the whole own text starts, whatever the whitespace', () => {
    const texts = [
      '\n   By Jane Doe  ', 'S\u00adKU: 12', '\u200b\u00a0 Marke:\u2003Acme', '\ufeffAB', ' a<b>x</b> b ', '<i>x</i>\n',
      `${' '.repeat(498)}ab`, 'İnfo', 'É<em></em>crit par', 'x',
    ];
    const view = viewOf(loadHtml(`<html><body>${texts.map((t) => `<p>${t}</p>`).join('')}</body></html>`));
    const paragraphs = view.byTag.get('p') ?? [];
    expect(paragraphs).toHaveLength(texts.length);
    for (const node of paragraphs) {
      const own = ownText(node.el);
      for (const n of [1, 2, 5, 61]) expect(ownTextStart(node, n)).toBe(own.slice(0, n));
      const head = own.toLowerCase().slice(0, 2);
      expect(ownTextHead(node)).toBe(own.length < 2 || own.charAt(1) === ' ' ? -1 : head.charCodeAt(0) * 0x10000 + head.charCodeAt(1));
      expect(ownTextOf(node)).toBe(own);
    }
  });

  it('finds furniture and hint words in class and id as written, and writes the hint lower-cased', () => {
    const view = viewOf(loadHtml(`<html><body>
      <div class="Site-Footer"><p class="POST-DATE">12 March 2024</p></div>
      <div id="MAIN-MENU" class="x"><span class="STOC\u212a">In stock</span></div>
      <p class="updated">x</p><p class="navigator">y</p></body></html>`));
    const [footer, date, menu, stock, updated, item] = view.all.filter((n) => n.tag !== 'html' && n.tag !== 'body');
    expect(footer?.ctx).toBe(Ctx.Footer);
    expect(date?.ctx).toBe(Ctx.Footer);
    expect(date?.hint).toBe('post-date');
    expect(menu?.ctx).toBe(Ctx.Nav);
    expect(menu?.hint).toBe('x main-menu');
    expect(hinted(view, 'stock')).toEqual([stock]);
    expect(hinted(view, 'date')).toEqual([date, updated]);
    expect(hinted(view, 'updated')).toEqual([updated]);
    expect(item?.ctx).toBe(0);
  });

  it('resolves the image against the first <base href>, in the head or not', () => {
    const page = (head: string, body: string) =>
      facts(`<html><head>${head}<title>Harbour</title></head><body>${body}<article><h1>Harbour</h1>
        <img src="img/harbour.jpg" width="800" height="600"><p>${PROSE}</p></article></body></html>`, 'https://news.example.com/a/b');
    expect(one(page('<base href="https://cdn.example.com/assets/">', ''), 'image')).toBe('https://cdn.example.com/assets/img/harbour.jpg');
    expect(one(page('', '<svg><base href="/inside-svg/"></base></svg>'), 'image')).toBe('https://news.example.com/inside-svg/img/harbour.jpg');
    expect(one(page('<base target="_blank">', ''), 'image')).toBe('https://news.example.com/a/img/harbour.jpg');
  });
});
