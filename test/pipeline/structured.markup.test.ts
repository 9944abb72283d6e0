/**
 * pipeline/structured/markup: a page's JSON-LD, microdata, RDFa Lite and meta tags read from
 * the loaded tree into schema.org-shaped things — normalised names and values, `@id`
 * references resolved without cycles, broken JSON-LD repaired or skipped, the tree untouched —
 * and the questions asked of them (`findThings`, `isType`, `thingToJson`). Pages are loaded as
 * the parser loads them (formats/load-html.ts); fixtures are in test/fixtures/extract/markup.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findThings, isType, readStructuredData, thingToJson, type StructuredData } from '../../pipeline/structured/markup/index.js';
import { parseJsonBlock } from '../../pipeline/structured/markup/json-text.js';
import { loadHtml } from '../../actors/parser/formats/load-html.js';
import { readHtml, trafilaturaPages } from '../../bench/corpus.js';
import type { Thing, ThingValue } from '../../pipeline/structured/types.js';

const BASE = 'https://shop.example/p/kettle';
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'extract', 'markup');
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');

const read = (html: string, base = BASE): StructuredData => readStructuredData(loadHtml(html), base);
const ld = (...blocks: string[]): string =>
  `<html><head>${blocks.map((b) => `<script type="application/ld+json">${b}</script>`).join('')}</head><body></body></html>`;
const bySource = (data: StructuredData, source: Thing['source']): Thing[] => data.things.filter((t) => t.source === source);

/** The one value of `prop` (fails when there are several). */
function one(thing: Thing | undefined, prop: string): ThingValue {
  const values = thing?.props[prop];
  expect(values, `${prop} of ${JSON.stringify(thing && thingToJson(thing))}`).toHaveLength(1);
  return (values as readonly ThingValue[])[0] as ThingValue;
}
const nested = (thing: Thing | undefined, prop: string): Thing => {
  const value = one(thing, prop);
  expect(typeof value).toBe('object');
  return value as Thing;
};

describe('pipeline/structured/markup JSON-LD', () => {
  it('reads a product with offers, aggregateRating and brand; keeps numbers; shortens enumerations; makes URLs absolute', () => {
    const data = read(
      ld(`{
        "@context": "https://schema.org/",
        "@type": "Product",
        "name": "Kettle KX-200",
        "image": ["/img/kx.jpg", "https://cdn.example/kx-2.jpg"],
        "brand": {"@type": "Brand", "name": "Acme"},
        "sku": "KX200",
        "offers": {"@type": "Offer", "price": 39.9, "priceCurrency": "USD", "availability": "https://schema.org/InStock",
                   "itemCondition": "http://schema.org/NewCondition", "url": "?buy=1"},
        "aggregateRating": {"@type": "AggregateRating", "ratingValue": "4.6", "reviewCount": 87}
      }`),
    );
    expect(data.things).toHaveLength(1);
    const product = data.things[0] as Thing;
    expect(product).toMatchObject({ types: ['Product'], source: 'json-ld' });
    expect(product.props['image']).toEqual(['https://shop.example/img/kx.jpg', 'https://cdn.example/kx-2.jpg']);
    expect(one(nested(product, 'brand'), 'name')).toBe('Acme');
    const offer = nested(product, 'offers');
    expect(offer.types).toEqual(['Offer']);
    expect(one(offer, 'price')).toBe(39.9);
    expect(one(offer, 'availability')).toBe('InStock');
    expect(one(offer, 'itemCondition')).toBe('NewCondition');
    expect(one(offer, 'url')).toBe('https://shop.example/p/kettle?buy=1');
    const rating = nested(product, 'aggregateRating');
    expect(one(rating, 'ratingValue')).toBe('4.6');
    expect(one(rating, 'reviewCount')).toBe(87);
  });

  it('flattens a @graph and resolves @id references to the one shared thing, cycles cut', () => {
    const data = read(fixture('graph-jsonld.html'), 'https://news.example/news/launch');
    const jsonLd = bySource(data, 'json-ld');
    expect(jsonLd.map((t) => t.types)).toEqual([['Organization'], ['WebSite'], ['WebPage', 'ItemPage'], ['NewsArticle'], ['Person'], ['BreadcrumbList']]);
    const [org, site, page, article, person, crumbs] = jsonLd;
    expect(org?.id).toBe('https://news.example/news/launch#org');
    expect(one(org, 'url')).toBe('https://news.example/');
    expect(nested(site, 'publisher')).toBe(org);
    expect(nested(article, 'publisher')).toBe(org);
    expect(nested(article, 'author')).toBe(person);
    expect(nested(person, 'worksFor')).toBe(org);
    expect(nested(page, 'isPartOf')).toBe(site);
    expect(nested(page, 'mainEntity')).toBe(article);
    expect(nested(page, 'breadcrumb')).toBe(crumbs);
    // The article points back at the page that contains it: a stub (types and id), not a loop.
    const back = nested(article, 'isPartOf');
    expect(back).toEqual({ types: ['WebPage', 'ItemPage'], id: 'https://news.example/news/launch', source: 'json-ld', props: {} });
    expect(nested(article, 'image')).toBe(nested(org, 'logo'));
    expect(one(article, 'wordCount')).toBe(812);
    expect(one(article, 'isAccessibleForFree')).toBe(true);
    expect(crumbs?.props['itemListElement']?.map((i) => one(i as Thing, 'item'))).toEqual(['https://news.example/', 'https://news.example/news']);
    expect(() => JSON.stringify(data.things.map(thingToJson))).not.toThrow();
  });

  it('reads arrays, several types, @context variants, prefixed names, @value and @list', () => {
    const data = read(
      ld(
        `[{"@context": "http://schema.org", "@type": ["Product", "schema:IndividualProduct"], "schema:name": "A"},
          {"@context": {"@vocab": "https://schema.org/"}, "@type": "http://schema.org/Book", "name": {"@value": "B", "@language": "en"}}]`,
        `{"@context": {"s": "http://schema.org/"}, "@type": "s:Recipe", "s:name": "C",
          "recipeInstructions": {"@list": [{"@type": "HowToStep", "text": "Boil"}, {"@type": "HowToStep", "text": "Pour"}]},
          "keywords": {"@set": ["tea", "hot"]}, "url": {"@id": "/recipes/c"}, "foaf:nick": "kept as written"}`,
      ),
    );
    expect(data.things.map((t) => t.types)).toEqual([['Product', 'IndividualProduct'], ['Book'], ['Recipe']]);
    expect(data.things.map((t) => one(t, 'name'))).toEqual(['A', 'B', 'C']);
    const recipe = data.things[2] as Thing;
    expect(recipe.props['recipeInstructions']?.map((s) => one(s as Thing, 'text'))).toEqual(['Boil', 'Pour']);
    expect(recipe.props['keywords']).toEqual(['tea', 'hot']);
    expect(one(recipe, 'url')).toBe('https://shop.example/recipes/c');
    expect(one(recipe, 'foaf:nick')).toBe('kept as written');
  });

  it('merges nodes that share an @id across blocks and lists them once', () => {
    const data = read(
      ld(
        '{"@context": "https://schema.org", "@type": "Organization", "@id": "https://acme.example/#org", "name": "Acme"}',
        '{"@context": "https://schema.org", "@type": "Organization", "@id": "https://acme.example/#org", "name": "Acme", "telephone": "+1 555 0100"}',
      ),
    );
    expect(data.things).toHaveLength(1);
    expect(data.things[0]?.props).toEqual({ name: ['Acme'], telephone: ['+1 555 0100'] });
  });

  it('keeps an unresolved reference as its URL, and a typed one as a stub', () => {
    const data = read(ld('{"@type": "Article", "headline": "H", "mainEntityOfPage": {"@id": "/a"}, "author": {"@id": "/people/x", "@type": "Person"}}'));
    const article = data.things[0];
    expect(one(article, 'mainEntityOfPage')).toBe('https://shop.example/a');
    expect(one(article, 'author')).toEqual({ types: ['Person'], id: 'https://shop.example/people/x', source: 'json-ld', props: {} });
  });

  it('reduces HTML inside JSON strings to text with entities decoded', () => {
    const data = read(
      ld(`{"@type": "Product", "name": "Tom &amp; Jerry&#39;s mug",
           "description": "<p>Fine &amp; dandy</p><p>Holds <b>350</b>&nbsp;ml<br/>dishwasher-safe</p><script>alert(1)<\\/script>",
           "url": "/m?a=1&amp;b=2"}`),
    );
    const product = data.things[0];
    expect(one(product, 'name')).toBe("Tom & Jerry's mug");
    expect(one(product, 'description')).toBe('Fine & dandy Holds 350 ml dishwasher-safe');
    expect(one(product, 'url')).toBe('https://shop.example/m?a=1&b=2');
  });

  it('reads scripts whose type differs in case or carries parameters, and nothing else', () => {
    const html =
      '<script type="Application/LD+JSON">{"@type": "Thing", "name": "one"}</script>' +
      '<script type="application/ld+json; charset=utf-8">{"@type": "Thing", "name": "two"}</script>' +
      '<script type="application/json">{"@type": "Thing", "name": "not json-ld"}</script>' +
      '<script>var x = {"@type": "Thing", "name": "js"};</script>';
    expect(read(html).things.map((t) => one(t, 'name'))).toEqual(['one', 'two']);
  });

  const GOOD = '{"@context": "https://schema.org", "@type": "Organization", "name": "Still read"}';
  it.each([
    ['trailing commas', '{"@type": "Product", "name": "P", "color": ["red", "blue",],}', { name: ['P'], color: ['red', 'blue'] }],
    ['a raw newline and tab inside a string', '{"@type": "Product", "name": "Two\nlines\there"}', { name: ['Two lines here'] }],
    ['an HTML comment wrapper', '<!--\n{"@type": "Product", "name": "P"}\n-->', { name: ['P'] }],
    ['a CDATA wrapper', '//<![CDATA[\n{"@type": "Product", "name": "P"}\n//]]>', { name: ['P'] }],
    ['unescaped quotes inside a string', '{"@type": "Product", "name": "The "Best" Kettle", "sku": "K1"}', { name: ['The "Best" Kettle'], sku: ['K1'] }],
    ['a missing comma and an unquoted value', '{"@type": "Product" "brand": Acme Corp,\n "name": "P"}', { brand: ['Acme Corp'], name: ['P'] }],
    ['an unknown escape and a comment', '{"@type": "Product", /* note */ "name": "It\\\'s"}', { name: ["It's"] }],
    ['a truncated block', '{"@type": "Product", "name": "P", "offers": {"@type": "Offer", "price": 5, "priceCurr', { name: ['P'] }],
    ['a block cut inside a string', '{"@type": "Product", "name": "P", "description": "Half a sent', { name: ['P'], description: ['Half a sent'] }],
  ])('repairs %s; the other blocks still read', (_name, broken, props) => {
    const data = read(ld(broken, GOOD));
    expect(data.things).toHaveLength(2);
    expect(data.things[0]?.types).toEqual(['Product']);
    expect(data.things[0]?.props).toMatchObject(props);
    expect(one(data.things[1], 'name')).toBe('Still read');
  });

  it('reads several objects written one after another in one block', () => {
    const data = read(ld('{"@type": "Product", "name": "A"}\n{"@type": "Product", "name": "B"},{"@type": "Product", "name": "C"}'));
    expect(data.things.map((t) => one(t, 'name'))).toEqual(['A', 'B', 'C']);
  });

  it.each([
    ['text that is not JSON', 'window.dataLayer = [];'],
    ['an empty block', '   '],
    ['a bare value', '"just a string"'],
    ['a token it cannot read', '{@@@}'],
  ])('skips %s without failing the page', (_name, broken) => {
    const data = read(ld(broken, GOOD));
    expect(data.things.map((t) => one(t, 'name'))).toEqual(['Still read']);
  });

  it('never throws on arbitrary or truncated blocks (property)', () => {
    const valid = fixture('graph-jsonld.html').split('yoast-schema-graph">')[1]?.split('</script>')[0] as string;
    fc.assert(
      fc.property(fc.nat(valid.length), fc.string(), (cut, junk) => {
        const blocks = [valid.slice(0, cut), junk, valid.slice(cut)];
        for (const block of blocks) expect(() => parseJsonBlock(block)).not.toThrow();
        const data = read(ld(...blocks.map((b) => b.split('</').join('<\\/'))), 'https://news.example/');
        expect(() => JSON.stringify(data.things.map(thingToJson))).not.toThrow();
      }),
      { numRuns: 150 },
    );
  });
});

describe('pipeline/structured/markup microdata', () => {
  const data = read(fixture('product-microdata.html'), 'https://shop.example/kitchen/kettle');
  const product = bySource(data, 'microdata')[0];

  it('reads the product item: names collapsed, URLs absolute, lazy images, several itemprop names', () => {
    expect(bySource(data, 'microdata')).toHaveLength(1);
    expect(product?.types).toEqual(['Product']);
    expect(product?.id).toBe('https://shop.example/p/kx-200');
    expect(one(product, 'name')).toBe('Kettle KX-200');
    expect(product?.props['image']).toEqual(['https://shop.example/img/kx-200.jpg', 'https://shop.example/img/kx-200-side.jpg']);
    expect(one(product, 'sku')).toBe('KX200');
    expect(one(product, 'productID')).toBe('KX200');
    expect(one(product, 'description')).toBe('A 1.7 l kettle. Boils in 3 minutes.');
    expect(one(nested(product, 'brand'), 'name')).toBe('Acme');
  });

  it('reads the nested offer: meta content, content over text, link href availability, time datetime, a href', () => {
    const offer = nested(product, 'offers');
    expect(offer.types).toEqual(['Offer']);
    expect(offer.props).toEqual({
      priceCurrency: ['USD'],
      price: ['39.90'],
      availability: ['InStock'],
      itemCondition: ['NewCondition'],
      priceValidUntil: ['2030-12-31'],
      url: ['https://shop.example/p/kx-200?buy=1'],
    });
  });

  it('keeps values as text (no number guessing) and reads data@value', () => {
    const rating = nested(product, 'aggregateRating');
    expect(rating.props).toEqual({ ratingValue: ['4.6'], reviewCount: ['87'] });
  });

  it('follows itemref to properties elsewhere on the page, not listing them again', () => {
    const review = nested(product, 'review');
    expect(one(review, 'reviewBody')).toBe('Quiet and fast.');
    expect(one(nested(review, 'author'), 'name')).toBe('Jo Doe');
    expect(data.things.filter((t) => isType(t, 'Person'))).toHaveLength(0);
  });

  it('lists top-level items and orphan items in document order; an itemref cycle does not loop', () => {
    const html = `<body>
      <div itemscope itemtype="https://schema.org/Person" itemref="a"><span itemprop="name">Ann</span></div>
      <div id="a" itemprop="knows" itemscope itemtype="https://schema.org/Person" itemref="b"><span itemprop="name">Bo</span></div>
      <div id="b" itemprop="knows" itemscope itemtype="https://schema.org/Person" itemref="a"><span itemprop="name">Cy</span></div>
      <span itemprop="author" itemscope itemtype="http://schema.org/Person"><span itemprop="name">Orphan</span></span>
      <div itemscope><span itemprop="name">Untyped</span></div></body>`;
    const things = read(html).things;
    expect(things.map((t) => one(t, 'name'))).toEqual(['Ann', 'Orphan', 'Untyped']);
    const bo = nested(things[0], 'knows');
    expect(one(bo, 'name')).toBe('Bo');
    const cy = nested(bo, 'knows');
    // Cy's itemref leads back to Bo, still being read: that value is dropped, not nested in itself.
    expect(cy.props).toEqual({ name: ['Cy'] });
    expect(() => JSON.stringify(things.map(thingToJson))).not.toThrow();
  });

  it('takes several itemtypes and full-IRI property names', () => {
    const html = '<div itemscope itemtype="https://schema.org/Store https://schema.org/Restaurant"><span itemprop="http://schema.org/name">Deli</span></div>';
    const [store] = read(html).things;
    expect(store?.types).toEqual(['Store', 'Restaurant']);
    expect(one(store, 'name')).toBe('Deli');
  });
});

describe('pipeline/structured/markup RDFa Lite', () => {
  const data = read(fixture('article-rdfa.html'), 'https://notes.example/tides');
  const [post, event] = bySource(data, 'rdfa');

  it('reads a vocab article: content over text, href/src as URLs, time datetime, nested typeof', () => {
    expect(post?.types).toEqual(['BlogPosting']);
    expect(post?.id).toBe('https://notes.example/tides#post');
    expect(one(post, 'headline')).toBe('How tides work');
    expect(one(post, 'datePublished')).toBe('2024-03-01T08:00:00Z');
    expect(one(post, 'dateModified')).toBe('2024-03-02');
    expect(one(post, 'image')).toBe('https://notes.example/img/tides.png');
    expect(one(post, 'keywords')).toBe('tides, moon');
    expect(one(post, 'articleBody')).toBe('The moon pulls the sea.Twice a day.');
    const author = nested(post, 'author');
    expect(author).toMatchObject({ types: ['Person'], source: 'rdfa', props: { url: ['https://notes.example/authors/ana'], name: ['Ana Lima'] } });
    expect(nested(post, 'publisher').props).toEqual({ name: ['Sea Notes'], sameAs: ['https://social.example/@seanotes'] });
  });

  it('reads schema: prefixed terms without a vocab', () => {
    expect(event?.types).toEqual(['Event']);
    expect(one(event, 'name')).toBe('Tide walk');
    expect(nested(event, 'location')).toMatchObject({ types: ['Place'], props: { name: ['North beach'] } });
  });

  it('keeps terms of other vocabularies as written and takes a typed href as the id', () => {
    const html = `<html prefix="dc: http://purl.org/dc/terms/ sioc: http://rdfs.org/sioc/ns#"><body>
      <article about="/node/7" typeof="sioc:Item"><h1 property="dc:title">Gardens</h1></article>
      <ol vocab="http://schema.org/" typeof="BreadcrumbList"><li property="itemListElement" typeof="ListItem">
        <a property="item" typeof="WebPage" href="/garden"><span property="name">Garden</span></a><meta property="position" content="1"></li></ol>
      </body></html>`;
    const [item, crumbs] = read(html, 'https://g.example/x').things;
    expect(item).toMatchObject({ types: ['sioc:Item'], id: 'https://g.example/node/7', props: { 'dc:title': ['Gardens'] } });
    const entry = nested(crumbs, 'itemListElement');
    expect(one(entry, 'position')).toBe('1');
    expect(nested(entry, 'item')).toMatchObject({ types: ['WebPage'], id: 'https://g.example/garden', props: { name: ['Garden'] } });
  });
});

describe('pipeline/structured/markup meta tags', () => {
  it('builds one meta thing from Open Graph, Twitter and plain meta tags', () => {
    const data = read(fixture('og-only.html'), 'https://daily.example/news/rain?ref=x');
    expect(data.things).toHaveLength(1);
    const meta = data.things[0] as Thing;
    expect(meta.source).toBe('meta');
    expect(meta.types).toEqual(['Article']);
    expect(meta.props).toEqual({
      name: ['Rain due on Friday'],
      headline: ['Rain due on Friday'],
      description: ['Forecasters expect rain.'],
      image: ['https://daily.example/img/rain.jpg'],
      url: ['https://daily.example/news/rain'],
      author: [
        { types: ['Person'], source: 'meta', props: { url: ['https://www.facebook.com/weatherdesk'] } },
        { types: ['Person'], source: 'meta', props: { name: ['Sam Reed'] } },
      ],
      datePublished: ['2024-05-02T06:00:00+01:00'],
      dateModified: ['2024-05-02T09:30:00+01:00'],
      keywords: ['rain', 'weather', 'forecast'],
      articleSection: ['Weather'],
      inLanguage: ['en-GB'],
      publisher: [{ types: ['Organization'], source: 'meta', props: { name: ['Daily Example'] } }],
    });
  });

  it('falls back to twitter tags, <title>, html lang and plain date metas; product tags make an offer', () => {
    const html = `<html lang="de"><head><title>Wasserkocher</title>
      <meta property="og:type" content="product.item"><meta name="twitter:image" content="/k.jpg">
      <meta name="DC.date.issued" content="2023-01-05"><meta name="description" content="Schnell.">
      <meta property="product:price:amount" content="29,99"><meta property="product:price:currency" content="EUR">
      <meta property="og:availability" content="in stock"></head><body></body></html>`;
    const [meta] = read(html, 'https://laden.example/k').things;
    expect(meta?.types).toEqual(['Product']);
    expect(meta?.props).toEqual({
      name: ['Wasserkocher'],
      description: ['Schnell.'],
      image: ['https://laden.example/k.jpg'],
      datePublished: ['2023-01-05'],
      inLanguage: ['de'],
      offers: [{ types: ['Offer'], source: 'meta', props: { price: ['29,99'], priceCurrency: ['EUR'], availability: ['InStock'] } }],
    });
  });

  it('maps og:type values to schema.org types', () => {
    const typeOf = (og: string) => read(`<meta property="og:type" content="${og}"><meta property="og:title" content="t">`).things[0]?.types;
    expect(['website', 'book', 'profile', 'video.movie', 'music.song', 'something'].map(typeOf)).toEqual([
      ['WebPage'], ['Book'], ['Person'], ['VideoObject'], ['MusicRecording'], ['WebPage'],
    ]);
  });

  it('comes after the markup things', () => {
    const data = read(fixture('graph-jsonld.html').replace('<title>', '<meta name="description" content="d"><title>'), 'https://news.example/');
    expect(data.things.map((t) => t.source)).toEqual([...Array(6).fill('json-ld'), 'meta']);
    expect(one(data.things[6], 'name')).toBe('Launch day');
  });
});

describe('pipeline/structured/markup pages', () => {
  it('keeps German and Japanese text intact in every syntax', () => {
    const data = read(fixture('japanese.html'), 'https://cha.example/');
    const [recipe, product, meta] = data.things;
    expect(recipe?.types).toEqual(['Recipe']);
    expect(one(recipe, 'name')).toBe('抹茶ラテ');
    expect(one(recipe, 'description')).toBe('簡単な抹茶ラテ。 牛乳と抹茶だけ。');
    expect(recipe?.props['recipeIngredient']).toEqual(['抹茶 小さじ2', '牛乳 200ml']);
    expect(one(nested(recipe, 'author'), 'name')).toBe('山田 花子');
    expect(one(product, 'name')).toBe('Grüner Tee „Sencha“ – süß & herb');
    expect(one(product, 'description')).toBe('Straße, Größe: groß');
    expect(meta?.props).toMatchObject({ name: ['抹茶ラテの作り方'], inLanguage: ['ja-JP'] });
  });

  it('finds nothing on a page without markup; a title and a viewport are not structured data', () => {
    expect(read('<html><head><title>Plain</title><meta name="viewport" content="width=device-width"></head><body><p>Text</p></body></html>').things).toEqual([]);
    expect(read('').things).toEqual([]);
    const onlyDescription = read('<html><head><title>Plain</title><meta name="description" content="About it."></head><body></body></html>');
    expect(onlyDescription.things).toEqual([
      { types: ['WebPage'], source: 'meta', props: { name: ['Plain'], headline: ['Plain'], description: ['About it.'] } },
    ]);
  });

  it('does not change the tree it reads', () => {
    const html = [fixture('graph-jsonld.html'), fixture('product-microdata.html'), fixture('article-rdfa.html'), fixture('og-only.html')].join('\n');
    const $ = loadHtml(html);
    const before = $.html();
    const data = readStructuredData($, 'https://mixed.example/');
    expect(new Set(data.things.map((t) => t.source))).toEqual(new Set(['json-ld', 'microdata', 'rdfa', 'meta']));
    expect($.html()).toBe(before);
  });

  it('is deterministic', () => {
    const html = fixture('product-microdata.html') + fixture('graph-jsonld.html');
    const a = read(html).things.map(thingToJson);
    const b = read(html).things.map(thingToJson);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});

describe('pipeline/structured/markup findThings, isType, thingToJson', () => {
  it('finds things of a type or its subtypes, nested ones too, each once', () => {
    const data = read(fixture('graph-jsonld.html'), 'https://news.example/news/launch');
    expect(findThings(data, ['Article']).map((t) => t.types)).toEqual([['NewsArticle']]);
    expect(findThings(data, ['CreativeWork']).map((t) => t.types[0])).toEqual(['ImageObject', 'WebSite', 'WebPage', 'NewsArticle']);
    expect(findThings(data, ['Organization'])).toHaveLength(1);
    expect(findThings(data, ['ListItem', 'Person']).map((t) => t.types[0])).toEqual(['Person', 'ListItem', 'ListItem']);
    expect(findThings(data, ['Recipe'])).toEqual([]);
  });

  it('knows the common subtype families', () => {
    const thing = (...types: string[]): Thing => ({ types, source: 'json-ld', props: {} });
    expect(isType(thing('BlogPosting'), 'Article')).toBe(true);
    expect(isType(thing('ReportageNewsArticle'), 'CreativeWork')).toBe(true);
    expect(isType(thing('ScholarlyArticle'), 'Article')).toBe(true);
    expect(isType(thing('Store'), 'LocalBusiness')).toBe(true);
    expect(isType(thing('ElectronicsStore'), 'Organization')).toBe(true);
    expect(isType(thing('Restaurant'), 'Place')).toBe(true);
    expect(isType(thing('NGO'), 'Organization')).toBe(true);
    expect(isType(thing('MusicEvent'), 'Event')).toBe(true);
    expect(isType(thing('ProductGroup'), 'Product')).toBe(true);
    expect(isType(thing('AggregateOffer'), 'Offer')).toBe(true);
    expect(isType(thing('AggregateRating'), 'Rating')).toBe(true);
    expect(isType(thing('Recipe'), 'HowTo')).toBe(true);
    expect(isType(thing('FAQPage'), 'WebPage')).toBe(true);
    expect(isType(thing('Person'), 'https://schema.org/Person')).toBe(true);
    expect(isType(thing('Article'), 'NewsArticle')).toBe(false);
    expect(isType(thing('Organization'), 'Place')).toBe(false);
    expect(isType(thing('sioc:Item'), 'Article')).toBe(false);
    expect(isType(thing('MadeUpType'), 'MadeUpType')).toBe(true);
  });

  it('writes a thing as JSON-LD-like JSON: single values unwrapped, several types as a list, nested things in full', () => {
    const data = read(
      ld('{"@type": ["Product", "IndividualProduct"], "@id": "#p", "name": "K", "color": ["red", "blue"], "offers": {"@type": "Offer", "price": 5}}'),
    );
    expect(thingToJson(data.things[0] as Thing)).toEqual({
      '@type': ['Product', 'IndividualProduct'],
      '@id': 'https://shop.example/p/kettle#p',
      name: 'K',
      color: ['red', 'blue'],
      offers: { '@type': 'Offer', price: 5 },
    });
    expect(thingToJson({ types: [], source: 'microdata', props: { name: ['x'] } })).toEqual({ name: 'x' });
  });

  it('writes a hand-made cycle as a reference', () => {
    const props: Record<string, ThingValue[]> = { name: ['A'] };
    const a: Thing = { types: ['Person'], id: 'urn:a', source: 'json-ld', props };
    props['knows'] = [a];
    expect(thingToJson(a)).toEqual({ '@type': 'Person', '@id': 'urn:a', name: 'A', knows: { '@type': 'Person', '@id': 'urn:a' } });
  });
});

const corpus = trafilaturaPages();
const sample = (corpus ?? []).filter((p) => p.index % 20 === 3);

/** Whether a page has a JSON-LD block that JSON.parse reads and that holds a typed object. */
function hasParsableJsonLd(html: string): boolean {
  const $ = loadHtml(html);
  return $('script')
    .toArray()
    .some((el) => {
      if ((el.attribs['type'] ?? '').split(';')[0]?.trim().toLowerCase() !== 'application/ld+json') return false;
      try {
        return JSON.stringify(JSON.parse($(el).text().trim())).includes('"@type"');
      } catch {
        return false;
      }
    });
}

describe.skipIf(!corpus)('pipeline/structured/markup on corpus pages (trafilatura-eval)', () => {
  it(`reads ${sample.length} pages without throwing; every page with a parsable typed JSON-LD block yields a json-ld thing`, () => {
    expect(sample.length).toBeGreaterThan(45);
    let withJsonLd = 0;
    for (const page of sample) {
      const html = readHtml(page.path);
      const $ = loadHtml(html);
      const before = $.html();
      const data = readStructuredData($, page.url);
      expect($.html(), page.url).toBe(before);
      expect(() => JSON.stringify(data.things.map(thingToJson)), page.url).not.toThrow();
      for (const thing of data.things) expect(Object.keys(thing.props).length, page.url).toBeGreaterThan(0);
      if (hasParsableJsonLd(html)) {
        withJsonLd += 1;
        expect(bySource(data, 'json-ld').length, page.url).toBeGreaterThan(0);
      }
    }
    expect(withJsonLd).toBeGreaterThan(15);
  });
});
