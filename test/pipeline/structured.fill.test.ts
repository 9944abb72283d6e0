import { describe, expect, it } from 'vitest';
import { confidenceOf, conform, fillFromThings, mergeModelAnswer, schemaForMissing, targetSchema, type ExtractTarget, type Filled } from '../../pipeline/structured/fill.js';
import { pathsForName } from '../../pipeline/structured/fields.js';
import { durationMinutes, parseDate, parseNumber, plainText, cutAtWord } from '../../pipeline/structured/text.js';
import type { Thing, ThingSource, ThingValue } from '../../pipeline/structured/types.js';
import { findTemplate } from '../../schemas/templates.js';

// ---- hand-built things (the markup reader's shape: types, source, props as arrays) -------

type Value = ThingValue | readonly ThingValue[];

function thing(types: string | readonly string[], props: Record<string, Value>, source: ThingSource = 'json-ld', id?: string): Thing {
  const entries = Object.entries(props).map(([k, v]) => [k, Array.isArray(v) ? v : [v]] as const);
  return { types: typeof types === 'string' ? [types] : types, source, props: Object.fromEntries(entries), ...(id ? { id } : {}) };
}

const pageThing = (props: Record<string, Value>): Thing => thing([], props, 'page');

function template(name: string): ExtractTarget {
  const found = findTemplate(name);
  if (!found) throw new Error(`no template ${name}`);
  return { kind: 'template', template: found };
}

const schemaTarget = (schema: Record<string, unknown>): ExtractTarget => ({ kind: 'schema', schema });
const obj = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required });
const S = { type: 'string' } as const;
const N = { type: 'number' } as const;

// ---- templates ------------------------------------------------------------------------

describe('pipeline/structured/fill: templates from JSON-LD-like things', () => {
  it('fills every product field from a Product with a nested Offer, Brand, images and rating', () => {
    const product = thing('Product', {
      name: 'Acme Anvil 5kg',
      brand: thing('Brand', { name: 'Acme' }),
      sku: 'AN-5',
      description: '<p>Forged steel &amp; <b>heavy</b>.</p>',
      image: [thing('ImageObject', { url: 'https://shop.test/a.jpg' }), 'https://shop.test/b.jpg', 'https://shop.test/a.jpg'],
      offers: thing('Offer', { price: '1.299,00', priceCurrency: 'EUR', availability: 'https://schema.org/InStock' }),
      aggregateRating: thing('AggregateRating', { ratingValue: '4.6', reviewCount: '1,234' }),
    });
    const filled = fillFromThings(template('product'), [product], null);
    expect(filled.data).toEqual({
      name: 'Acme Anvil 5kg',
      brand: 'Acme',
      sku: 'AN-5',
      price: 1299,
      currency: 'EUR',
      availability: 'InStock',
      description: 'Forged steel & heavy.',
      images: ['https://shop.test/a.jpg', 'https://shop.test/b.jpg'],
      rating: 4.6,
      reviewCount: 1234,
    });
    expect(Object.values(filled.sources).every((s) => s === 'markup')).toBe(true);
    expect(filled.missing).toEqual([]);
    expect(filled.warnings).toEqual([]);
  });

  it('reads an AggregateOffer low price and a ratingCount when reviewCount is absent', () => {
    const product = thing('Product', {
      name: 'Widget',
      offers: thing('AggregateOffer', { lowPrice: 9.5, highPrice: 20, priceCurrency: 'USD' }),
      aggregateRating: thing('AggregateRating', { ratingValue: 4, ratingCount: 87 }),
    });
    const filled = fillFromThings(template('product'), [product], null);
    expect(filled.data).toMatchObject({ price: 9.5, currency: 'USD', reviewCount: 87, rating: 4 });
    expect(filled.missing).toEqual(['brand', 'sku', 'availability', 'description', 'images']);
    expect(filled.warnings).toEqual(['no value found for "brand", "sku", "availability", "description", "images"']);
  });

  it('fills an article found inside a @graph-like WebPage, with nested authors and keywords split at commas', () => {
    const jane = thing('Person', { name: 'Jane Roe', url: 'https://news.test/jane' }, 'json-ld', '#jane');
    const article = thing('NewsArticle', {
      headline: 'Rates rise again',
      author: [jane, thing('Person', { name: 'John Doe' })],
      publisher: thing('Organization', { name: 'The Daily Test', logo: thing('ImageObject', { url: 'https://news.test/logo.png' }) }),
      datePublished: '2024-03-12T09:30:00+0100',
      dateModified: '2024-03-12 11:00',
      description: 'The bank raised rates.',
      articleSection: 'Economy',
      keywords: 'rates, banks, economy',
      image: thing('ImageObject', { url: 'https://news.test/lead.jpg', width: 1200 }),
    });
    const webPage = thing('WebPage', { name: 'Rates rise again | The Daily Test', mainEntity: article });
    const crumbs = thing('BreadcrumbList', { itemListElement: [thing('ListItem', { name: 'Home', position: 1 })] });
    const filled = fillFromThings(template('article'), [webPage, crumbs], null);
    expect(filled.data).toEqual({
      title: 'Rates rise again',
      author: ['Jane Roe', 'John Doe'],
      publishedAt: '2024-03-12T09:30:00+01:00',
      modifiedAt: '2024-03-12T11:00:00Z',
      summary: 'The bank raised rates.',
      section: 'Economy',
      tags: ['rates', 'banks', 'economy'],
      image: 'https://news.test/lead.jpg',
    });
    expect(filled.missing).toEqual([]);
  });

  it('takes a BlogPosting (a subtype) for the article template and leaves other things alone', () => {
    const org = thing('Organization', { name: 'Blog Inc', description: 'We write.' });
    const post = thing('BlogPosting', { headline: 'Hello world', datePublished: '2024-01-05' });
    const filled = fillFromThings(template('article'), [org, post], null);
    expect(filled.data).toEqual({ title: 'Hello world', publishedAt: '2024-01-05' });
    expect(filled.missing).toContain('summary');
  });

  it('fills a job posting: salary range, currency, company and a remote location', () => {
    const job = thing('JobPosting', {
      title: 'Senior Engineer',
      hiringOrganization: thing('Organization', { name: 'Initech', sameAs: 'https://initech.test' }),
      jobLocationType: 'TELECOMMUTE',
      employmentType: ['FULL_TIME', 'CONTRACTOR'],
      baseSalary: thing('MonetaryAmount', { currency: 'USD', value: thing('QuantitativeValue', { minValue: 80000, maxValue: '120,000', unitText: 'YEAR' }) }),
      datePosted: '2024-03-01',
      validThrough: '2024-04-01T00:00',
      description: '<ul><li>Build things</li><li>Ship them</li></ul>',
      url: 'https://jobs.test/1',
    });
    const filled = fillFromThings(template('jobPosting'), [job], null);
    expect(filled.data).toEqual({
      title: 'Senior Engineer',
      company: 'Initech',
      location: 'remote',
      employmentType: 'FULL_TIME',
      salaryMin: 80000,
      salaryMax: 120000,
      salaryCurrency: 'USD',
      postedAt: '2024-03-01',
      validThrough: '2024-04-01T00:00:00Z',
      description: 'Build things Ship them',
      applyUrl: 'https://jobs.test/1',
    });
  });

  it('writes a job location address as one line, and a single salary value as both ends', () => {
    const job = thing('JobPosting', {
      title: 'Barista',
      jobLocation: thing('Place', {
        address: thing('PostalAddress', { streetAddress: '1 Main St', postalCode: '10115', addressLocality: 'Berlin', addressRegion: 'BE', addressCountry: thing('Country', { name: 'DE' }) }),
      }),
      baseSalary: thing('MonetaryAmount', { currency: 'EUR', value: thing('QuantitativeValue', { value: 15.5, unitText: 'HOUR' }) }),
    });
    const filled = fillFromThings(template('jobPosting'), [job], null);
    expect(filled.data).toMatchObject({ location: '1 Main St, 10115 Berlin, BE, DE', salaryMin: 15.5, salaryMax: 15.5, salaryCurrency: 'EUR' });
  });

  it('fills a recipe: durations to minutes, HowToStep and HowToSection instructions, yield and calories', () => {
    const recipe = thing('Recipe', {
      name: 'Pancakes',
      recipeIngredient: ['2 eggs', '200 g flour', '2 eggs', '300 ml milk'],
      prepTime: 'PT15M',
      cookTime: 'PT1H20M',
      recipeYield: ['4 servings', '4'],
      nutrition: thing('NutritionInformation', { calories: '240 calories' }),
      recipeInstructions: [
        thing('HowToStep', { text: 'Whisk the eggs.' }),
        thing('HowToSection', { name: 'Cooking', itemListElement: [thing('HowToStep', { text: 'Heat the pan.' }), thing('HowToStep', { text: 'Fry.' })] }),
      ],
    });
    const filled = fillFromThings(template('recipe'), [recipe], null);
    expect(filled.data).toEqual({
      name: 'Pancakes',
      ingredients: ['2 eggs', '200 g flour', '300 ml milk'],
      instructions: ['Whisk the eggs.', 'Heat the pan.', 'Fry.'],
      prepTimeMinutes: 15,
      cookTimeMinutes: 80,
      servings: 4,
      calories: 240,
    });
  });

  it('reads recipe instructions written as plain text too', () => {
    const recipe = thing('Recipe', { name: 'Tea', recipeIngredient: 'water', recipeInstructions: 'Boil water. Add tea.' });
    expect(fillFromThings(template('recipe'), [recipe], null).data).toEqual({ name: 'Tea', ingredients: ['water'], instructions: ['Boil water. Add tea.'] });
  });

  it('fills an event: a MusicEvent (subtype), venue and address from its Place, ticket offer', () => {
    const event = thing('MusicEvent', {
      name: 'Spring Concert',
      startDate: '2024-06-01T19:00',
      endDate: '2024-06-01T22:00:00+02:00',
      location: thing('Place', { name: 'City Hall', address: thing('PostalAddress', { streetAddress: 'Rathausplatz 1', addressLocality: 'Vienna', addressCountry: 'AT' }) }),
      organizer: thing('Organization', { name: 'Friends of Music' }),
      offers: thing('Offer', { price: '25.00', priceCurrency: 'EUR', url: 'https://tickets.test/spring' }),
    });
    expect(fillFromThings(template('event'), [event], null).data).toEqual({
      name: 'Spring Concert',
      startAt: '2024-06-01T19:00:00Z',
      endAt: '2024-06-01T22:00:00+02:00',
      venue: 'City Hall',
      address: 'Rathausplatz 1, Vienna, AT',
      organizer: 'Friends of Music',
      price: 25,
      currency: 'EUR',
      url: 'https://tickets.test/spring',
    });
  });

  it('fills an organization from a Restaurant (a LocalBusiness): mailto dropped, founding year, profiles', () => {
    const restaurant = thing('Restaurant', {
      name: 'Chez Test',
      email: 'mailto:hello@chez.test',
      telephone: 'tel:+33 1 23 45 67 89',
      address: thing('PostalAddress', { streetAddress: '5 Rue de la Paix', postalCode: '75002', addressLocality: 'Paris', addressCountry: 'FR' }),
      foundingDate: '1998-05-01',
      sameAs: ['https://facebook.com/chez', 'https://instagram.com/chez'],
      logo: thing('ImageObject', { url: 'https://chez.test/logo.svg' }),
    });
    expect(fillFromThings(template('organization'), [restaurant], null).data).toEqual({
      name: 'Chez Test',
      email: 'hello@chez.test',
      phone: '+33 1 23 45 67 89',
      address: '5 Rue de la Paix, 75002 Paris, FR',
      foundedYear: 1998,
      socialProfiles: ['https://facebook.com/chez', 'https://instagram.com/chez'],
      logo: 'https://chez.test/logo.svg',
    });
  });

  it('fills a review: rating and scale from its Rating, reviewer and item names, HTML body as text', () => {
    const review = thing('Review', {
      itemReviewed: thing('Product', { name: 'Acme Anvil' }),
      author: thing('Person', { name: 'Wile E.' }),
      reviewRating: thing('Rating', { ratingValue: '4', bestRating: '5' }),
      reviewBody: '<p>Great &amp; cheap.</p><p>Would buy again.</p>',
      datePublished: '2024-02-29',
    });
    expect(fillFromThings(template('review'), [review], null).data).toEqual({
      itemReviewed: 'Acme Anvil',
      author: 'Wile E.',
      rating: 4,
      bestRating: 5,
      body: 'Great & cheap. Would buy again.',
      publishedAt: '2024-02-29',
    });
  });
});

describe('pipeline/structured/fill: markup first, then the page', () => {
  const markupProduct = thing('Product', { name: 'Anvil', offers: thing('Offer', { price: 10, priceCurrency: 'USD' }) });

  it('prefers markup over the page thing', () => {
    const page = pageThing({ headline: 'Anvil — best price', offers: thing('Offer', { price: 12, priceCurrency: 'EUR' }, 'page') });
    const filled = fillFromThings(template('product'), [markupProduct], page);
    expect(filled.data).toMatchObject({ name: 'Anvil', price: 10, currency: 'USD' });
    expect(filled.sources).toMatchObject({ name: 'markup', price: 'markup', currency: 'markup' });
  });

  it('lets the page thing fill what markup lacks', () => {
    const page = pageThing({
      sku: 'AN-1',
      brand: 'Acme',
      offers: thing('Offer', { availability: 'InStock' }, 'page'),
      image: 'https://shop.test/hero.jpg',
      aggregateRating: thing('AggregateRating', { ratingValue: 4.2, reviewCount: 31 }, 'page'),
    });
    const filled = fillFromThings(template('product'), [markupProduct], page);
    expect(filled.data).toMatchObject({ sku: 'AN-1', brand: 'Acme', availability: 'InStock', images: ['https://shop.test/hero.jpg'], rating: 4.2, reviewCount: 31 });
    expect(filled.sources).toMatchObject({ name: 'markup', price: 'markup', sku: 'page', brand: 'page', availability: 'page', rating: 'page' });
    expect(filled.missing).toEqual(['description']);
  });

  it('reads the page thing alone when the page has no markup, and meta tags before it', () => {
    const meta = thing([], { description: 'From the meta description.', image: 'https://shop.test/og.jpg' }, 'meta');
    const page = pageThing({ headline: 'Anvil', description: 'From the page.', offers: thing('Offer', { price: '€ 19.99' }, 'page') });
    const filled = fillFromThings(template('product'), [meta], page);
    expect(filled.data).toEqual({ name: 'Anvil', price: 19.99, description: 'From the meta description.', images: ['https://shop.test/og.jpg'] });
    expect(filled.sources).toEqual({ name: 'page', price: 'page', description: 'markup', images: 'markup' });
  });

  it('reads the meta thing after the markup syntaxes even when its og:type matches', () => {
    const meta = thing('Product', { name: 'Anvil | Acme Shop', description: 'The og:description.', image: 'https://shop.test/og.jpg', url: 'https://shop.test/anvil' }, 'meta');
    const jsonLd = thing('Product', { name: 'Anvil', offers: thing('Offer', { price: 10 }) });
    const filled = fillFromThings(template('product'), [meta, jsonLd], null);
    expect(filled.data).toEqual({ name: 'Anvil', price: 10, description: 'The og:description.', images: ['https://shop.test/og.jpg'] });
  });

  it('never takes a template field from things of other types', () => {
    const org = thing('Organization', { name: 'Acme Corp', description: 'A company.' });
    const filled = fillFromThings(template('product'), [org], pageThing({ headline: 'Anvil' }));
    expect(filled.data).toEqual({ name: 'Anvil' });
  });

  it('completes the main thing from another syntax only when it describes the same subject', () => {
    const main = thing('Product', { name: 'Anvil', sku: 'AN-1', description: 'Heavy.', offers: thing('Offer', { price: 10 }) });
    const sameInMicrodata = thing('Product', { name: 'Anvil', brand: 'Acme' }, 'microdata');
    const related = thing('Product', { name: 'Hammer', brand: 'Other', aggregateRating: thing('AggregateRating', { ratingValue: 3 }) });
    const filled = fillFromThings(template('product'), [main, related, sameInMicrodata], null);
    expect(filled.data).toMatchObject({ name: 'Anvil', brand: 'Acme', price: 10 });
    expect(filled.data).not.toHaveProperty('rating');
  });

  it('picks as main the thing with values for the most fields', () => {
    const thin = thing('Product', { name: 'Related thing' });
    const rich = thing('Product', { name: 'Anvil', sku: 'AN-1', offers: thing('Offer', { price: 10, priceCurrency: 'USD' }) });
    expect(fillFromThings(template('product'), [thin, rich], null).data.name).toBe('Anvil');
  });

  it('names a value that could not be used when nothing else filled the field', () => {
    const product = thing('Product', { name: 'Anvil', offers: thing('Offer', { price: 'call us' }) });
    const filled = fillFromThings(template('product'), [product], null);
    expect(filled.data).not.toHaveProperty('price');
    expect(filled.missing).toContain('price');
    expect(filled.warnings).toContain('dropped "price": "call us" is not a number');
  });

  it('answers nothing for the none target', () => {
    expect(fillFromThings({ kind: 'none' }, [thing('Product', { name: 'x' })], null)).toEqual({ data: {}, sources: {}, missing: [], warnings: [] });
    expect(targetSchema({ kind: 'none' })).toBeNull();
    expect(targetSchema(template('product'))).toBe(findTemplate('product')?.schema);
  });
});

// ---- caller schemas -----------------------------------------------------------------

describe('pipeline/structured/fill: a caller schema matched by name and meaning', () => {
  const article = thing('NewsArticle', {
    headline: 'Rates rise again',
    datePublished: '2024-03-12T09:30:00Z',
    dateModified: '2024-03-13T10:00:00Z',
    author: thing('Person', { name: 'Jane Roe', url: 'https://news.test/jane' }),
    description: 'The bank raised rates.',
    keywords: ['rates', 'banks'],
    articleSection: 'Economy',
    inLanguage: 'en-GB',
    image: 'https://news.test/lead.jpg',
    publisher: thing('Organization', { name: 'The Daily Test' }),
  });

  it('matches exact property names, case- and separator-insensitively', () => {
    const schema = obj({ headline: S, date_published: S, DateModified: S, articleSection: S });
    expect(fillFromThings(schemaTarget(schema), [article], null).data).toEqual({
      headline: 'Rates rise again',
      date_published: '2024-03-12T09:30:00Z',
      DateModified: '2024-03-13T10:00:00Z',
      articleSection: 'Economy',
    });
  });

  it('matches synonyms and the words of a name', () => {
    const schema = obj({ title: S, publishedAt: S, updated: S, byline: S, summary: S, tags: { type: 'array', items: S }, category: S, language: S, photo: S, publisherName: S, authorName: S });
    expect(fillFromThings(schemaTarget(schema), [article], null).data).toEqual({
      title: 'Rates rise again',
      publishedAt: '2024-03-12T09:30:00Z',
      updated: '2024-03-13T10:00:00Z',
      byline: 'Jane Roe',
      summary: 'The bank raised rates.',
      tags: ['rates', 'banks'],
      category: 'Economy',
      language: 'en-GB',
      photo: 'https://news.test/lead.jpg',
      publisherName: 'The Daily Test',
      authorName: 'Jane Roe',
    });
  });

  it('uses the description when the name says nothing', () => {
    const schema = obj({ f1: { type: 'string', description: 'When the story was first published (date)' }, f2: { type: 'string', description: 'Who wrote it: the author' } });
    expect(fillFromThings(schemaTarget(schema), [article], null).data).toEqual({ f1: '2024-03-12T09:30:00Z', f2: 'Jane Roe' });
    expect(pathsForName('f1', 'the publication date')).toEqual(['f1', 'datePublished', 'datePosted', 'dateCreated', 'uploadDate']);
  });

  it('fills a nested object from the nested thing, and from a plain text name', () => {
    const schema = obj({ author: obj({ name: S, url: S }), publisher: obj({ name: S }) });
    expect(fillFromThings(schemaTarget(schema), [article], null).data).toEqual({ author: { name: 'Jane Roe', url: 'https://news.test/jane' }, publisher: { name: 'The Daily Test' } });
    const textAuthor = thing('Article', { headline: 'x', author: 'Sam Smith' });
    expect(fillFromThings(schemaTarget(obj({ author: obj({ name: S, url: S }) })), [textAuthor], null).data).toEqual({ author: { name: 'Sam Smith' } });
  });

  it('fills commerce fields: price, currency, a boolean stock flag, stars, snake_case review count', () => {
    const product = thing('Product', {
      name: 'Anvil',
      offers: thing('Offer', { price: '€ 1,299.00', priceCurrency: 'EUR', availability: 'https://schema.org/InStock' }),
      aggregateRating: thing('AggregateRating', { ratingValue: 4.5, reviewCount: 12 }),
      brand: thing('Brand', { name: 'Acme' }),
    });
    const schema = obj({ productName: S, cost: N, currency: S, inStock: { type: 'boolean' }, stars: N, review_count: { type: 'integer' }, manufacturer: S });
    expect(fillFromThings(schemaTarget(schema), [product], null).data).toEqual({ productName: 'Anvil', cost: 1299, currency: 'EUR', inStock: true, stars: 4.5, review_count: 12, manufacturer: 'Acme' });
    const soldOut = thing('Product', { name: 'Anvil', offers: thing('Offer', { availability: 'SoldOut' }) });
    expect(fillFromThings(schemaTarget(obj({ inStock: { type: 'boolean' } })), [soldOut], null).data).toEqual({ inStock: false });
  });

  it('picks the main thing whose properties match most fields, past breadcrumbs and the site', () => {
    const site = thing('WebSite', { name: 'The Daily Test', url: 'https://news.test' });
    const org = thing('Organization', { name: 'The Daily Test', description: 'A newspaper.' });
    const crumbs = thing('BreadcrumbList', { name: 'Crumbs', itemListElement: thing('ListItem', { name: 'Home' }) });
    const schema = obj({ name: S, description: S, datePublished: S, author: S });
    const filled = fillFromThings(schemaTarget(schema), [site, org, crumbs, article], null);
    expect(filled.data).toEqual({ name: 'Rates rise again', description: 'The bank raised rates.', datePublished: '2024-03-12T09:30:00Z', author: 'Jane Roe' });
  });

  it('fills a list of objects with one item per Product of a listing page, in one syntax', () => {
    const products = ['Anvil', 'Hammer', 'Tongs'].map((name, i) => thing('Product', { name, url: `https://shop.test/${i}`, offers: thing('Offer', { price: 10 + i, priceCurrency: 'USD' }) }));
    const microdataCopies = products.map((p) => ({ ...p, source: 'microdata' as const }));
    const list = thing('ItemList', { itemListElement: products.map((p, i) => thing('ListItem', { position: i + 1, item: p })) });
    const schema = obj({ products: { type: 'array', items: obj({ name: S, price: N, currency: S }, ['name']) } });
    const filled = fillFromThings(schemaTarget(schema), [list, ...microdataCopies], null);
    expect(filled.data).toEqual({
      products: [
        { name: 'Anvil', price: 10, currency: 'USD' },
        { name: 'Hammer', price: 11, currency: 'USD' },
        { name: 'Tongs', price: 12, currency: 'USD' },
      ],
    });
    expect(filled.sources).toEqual({ products: 'markup' });
  });

  it('fills a list of objects from the main thing first: every Offer of a Product', () => {
    const product = thing('Product', {
      name: 'Anvil',
      offers: [thing('Offer', { price: 10, seller: thing('Organization', { name: 'Shop A' }) }), thing('Offer', { price: 12, seller: thing('Organization', { name: 'Shop B' }) })],
    });
    const schema = obj({ name: S, offers: { type: 'array', items: obj({ price: N, seller: S }) } });
    expect(fillFromThings(schemaTarget(schema), [product], null).data).toEqual({ name: 'Anvil', offers: [{ price: 10, seller: 'Shop A' }, { price: 12, seller: 'Shop B' }] });
  });

  it('reads the things an ItemList lists when a field names the list itself', () => {
    const list = thing('ItemList', { name: 'Top tools', itemListElement: ['Anvil', 'Hammer'].map((name, i) => thing('ListItem', { position: i + 1, item: thing('Product', { name }) })) });
    const schema = obj({ name: S, itemListElement: { type: 'array', items: obj({ name: S }) } });
    expect(fillFromThings(schemaTarget(schema), [list], null).data).toEqual({ name: 'Top tools', itemListElement: [{ name: 'Anvil' }, { name: 'Hammer' }] });
  });

  it('drops list items that break the item schema, keeping the rest', () => {
    const products = [thing('Product', { name: 'Anvil', offers: thing('Offer', { price: 10 }) }), thing('Product', { name: 'Hammer', offers: thing('Offer', { price: 'n/a' }) })];
    const schema = obj({ products: { type: 'array', items: obj({ name: S, price: N }, ['name', 'price']) } });
    expect(fillFromThings(schemaTarget(schema), products, null).data).toEqual({ products: [{ name: 'Anvil', price: 10 }] });
  });

  it('honours an enum case-insensitively and leaves a value outside it unfilled', () => {
    const product = thing('Product', { name: 'Anvil', offers: thing('Offer', { availability: 'InStock' }) });
    const schema = obj({ availability: { type: 'string', enum: ['in_stock', 'out_of_stock'] }, condition: { type: 'string', enum: ['new', 'used'] } });
    const used = thing('Product', { name: 'Anvil', itemCondition: 'RefurbishedCondition' });
    expect(fillFromThings(schemaTarget(schema), [product], null).data).toEqual({ availability: 'in_stock' });
    const filled = fillFromThings(schemaTarget(schema), [used], null);
    expect(filled.data).toEqual({});
    expect(filled.warnings).toContain('dropped "condition": "RefurbishedCondition" is not one of "new", "used"');
  });

  it('cuts text to maxLength at a word boundary and says so', () => {
    const schema = obj({ description: { type: 'string', maxLength: 20 } });
    const filled = fillFromThings(schemaTarget(schema), [thing('Thing', { description: 'The quick brown fox jumps over the lazy dog' })], null);
    expect(filled.data).toEqual({ description: 'The quick brown fox' });
    expect(filled.warnings).toEqual(['cut "description" to 20 characters']);
  });

  it('converts dates for format date and date-time fields', () => {
    const schema = obj({ published: { type: 'string', format: 'date' }, modified: { type: 'string', format: 'date-time' } });
    const a = thing('Article', { datePublished: '2024-03-12T23:30:00-05:00', dateModified: '12 March 2024' });
    expect(fillFromThings(schemaTarget(schema), [a], null).data).toEqual({ published: '2024-03-12', modified: '2024-03-12T00:00:00Z' });
  });

  it('follows $ref and Optional (anyOf with null) field definitions', () => {
    const schema = {
      type: 'object',
      $defs: { Author: obj({ name: S }) },
      properties: { title: { anyOf: [S, { type: 'null' }] }, author: { $ref: '#/$defs/Author' }, words: { type: ['integer', 'null'] } },
    };
    const a = thing('Article', { headline: 'x', author: thing('Person', { name: 'Jo' }), wordCount: '1,200' });
    expect(fillFromThings(schemaTarget(schema), [a], null).data).toEqual({ title: 'x', author: { name: 'Jo' }, words: 1200 });
  });

  it('missing lists the schema fields still empty, in schema order', () => {
    const filled = fillFromThings(schemaTarget(obj({ zeta: S, headline: S, alpha: S })), [article], null);
    expect(filled.missing).toEqual(['zeta', 'alpha']);
  });
});

// ---- coercion rules -------------------------------------------------------------------

describe('pipeline/structured/coerce and text: the conversion rules', () => {
  it('reads numbers in the usual notations', () => {
    expect(['1.299,00', '1,299.00', '€ 19.99', '19,99 EUR', '1 299,00 zł', "CHF 1'299.50", '1,299', '1.299.000', '-5', '0,5', '4.667'].map(parseNumber)).toEqual([
      1299, 1299, 19.99, 19.99, 1299, 1299.5, 1299, 1299000, -5, 0.5, 4.667,
    ]);
    expect(parseNumber('call us')).toBeNull();
    expect(parseNumber('1,2,3')).toBeNull();
  });

  it('reads dates and writes RFC 3339', () => {
    expect(parseDate('2024-03-12T09:30:00.123+0100')).toEqual({ date: '2024-03-12', time: '09:30:00.123', offset: '+01:00' });
    expect(parseDate('Tue, 12 Mar 2024 09:30:00 GMT')).toEqual({ date: '2024-03-12', time: '09:30:00', offset: 'Z' });
    expect(parseDate('March 12, 2024 at 9:30 pm')).toEqual({ date: '2024-03-12', time: '21:30:00', offset: null });
    expect(parseDate('12.03.2024')?.date).toBe('2024-03-12');
    expect(parseDate('2024/3/5')?.date).toBe('2024-03-05');
    expect(parseDate('2023-02-29')).toBeNull();
    expect(parseDate('03/12/2024')).toBeNull();
    expect(parseDate('yesterday')).toBeNull();
  });

  it('reads ISO 8601 and written durations as minutes', () => {
    expect(['PT20M', 'PT1H20M', 'P1DT2H', 'P0Y0M0DT0H45M0S', 'PT90S', '1 hour 20 minutes', '45 min', '1h 30m'].map(durationMinutes)).toEqual([20, 80, 1560, 45, 1.5, 80, 45, 90]);
    expect(durationMinutes('P1M')).toBeNull();
    expect(durationMinutes('PT')).toBeNull();
  });

  it('turns durations into the unit a field names, rounds them for integers, and refuses fractional integers', () => {
    const r = thing('Recipe', { prepTime: 'PT1H30M', cookTime: 'PT90S', recipeYield: '2.5' });
    const schema = obj({ prepTimeHours: N, cookTimeSeconds: { type: 'integer' }, cookTime: { type: 'integer' }, servings: { type: 'integer' } });
    const filled = fillFromThings(schemaTarget(schema), [r], null);
    expect(filled.data).toEqual({ prepTimeHours: 1.5, cookTimeSeconds: 90, cookTime: 2 });
    expect(filled.warnings).toContain('dropped "servings": "2.5" is not an integer');
  });

  it('keeps durations as written in text fields and an unreadable date as written when no format asks', () => {
    const r = thing('Recipe', { prepTime: 'PT20M', datePublished: 'last spring' });
    expect(fillFromThings(schemaTarget(obj({ prepTime: S, published: S })), [r], null).data).toEqual({ prepTime: 'PT20M', published: 'last spring' });
    const strict = fillFromThings(schemaTarget(obj({ published: { type: 'string', format: 'date' } })), [r], null);
    expect(strict.data).toEqual({});
    expect(strict.warnings).toContain('dropped "published": "last spring" is not a date');
  });

  it('converts booleans from words and numbers, text from numbers, and joins list properties into text', () => {
    const t = thing('Thing', { isAccessibleForFree: 'yes', isFamilyFriendly: 0, sku: 12345, recipeIngredient: ['flour', 'eggs'], keywords: ['a', 'b'] });
    const schema = obj({ isAccessibleForFree: { type: 'boolean' }, isFamilyFriendly: { type: 'boolean' }, sku: S, ingredients: S, keywords: S });
    expect(fillFromThings(schemaTarget(schema), [t], null).data).toEqual({ isAccessibleForFree: true, isFamilyFriendly: false, sku: '12345', ingredients: 'flour\neggs', keywords: 'a, b' });
  });

  it('cuts text at a word boundary, strips HTML and entities', () => {
    expect(cutAtWord('The quick brown fox', 12)).toBe('The quick');
    expect(cutAtWord('Supercalifragilistic', 5)).toBe('Super');
    expect(plainText('<p>Fish &amp; chips</p><script>x()</script><div>&eacute;t&eacute;</div>')).toBe('Fish & chips été');
    expect(plainText('a < b')).toBe('a < b');
    expect(plainText('https://shop.test/p?a=1&copy=2&amp;lang=en')).toBe('https://shop.test/p?a=1&copy=2&lang=en');
  });

  it('turns a free-form object field into the thing as plain JSON', () => {
    const product = thing('Product', { name: 'Anvil', offers: thing('Offer', { price: 10, priceCurrency: 'USD' }) });
    expect(fillFromThings(schemaTarget(obj({ offers: { type: 'object' } })), [product], null).data).toEqual({ offers: { '@type': 'Offer', price: 10, priceCurrency: 'USD' } });
  });

  it('caps lists at maxItems and leaves out values that do not convert', () => {
    const t = thing('Product', { name: 'x', image: ['https://a.test/1.jpg', 'https://a.test/2.jpg', 'https://a.test/3.jpg'] });
    const filled = fillFromThings(schemaTarget(obj({ images: { type: 'array', items: S, maxItems: 2 } })), [t], null);
    expect(filled.data).toEqual({ images: ['https://a.test/1.jpg', 'https://a.test/2.jpg'] });
  });
});

// ---- the model's turn -------------------------------------------------------------------

describe('pipeline/structured/fill: a model for what is left', () => {
  const schema = obj({ name: S, price: N, brand: S, tags: { type: 'array', items: S }, release: { type: 'string', format: 'date' } }, ['name']);
  const filled: Filled = fillFromThings(schemaTarget(schema), [thing('Product', { name: 'Anvil', offers: thing('Offer', { price: 10 }) })], null);

  it('asks the model only for the missing fields, with the same definitions, none required', () => {
    expect(filled.missing).toEqual(['brand', 'tags', 'release']);
    const ask = schemaForMissing({ ...schema, $defs: { X: S } }, filled.missing);
    expect(ask).toEqual({
      $defs: { X: S },
      type: 'object',
      properties: { brand: S, tags: { type: 'array', items: S }, release: { type: 'string', format: 'date' } },
      required: [],
      additionalProperties: false,
    });
  });

  it('merges the model answer without overwriting markup values, converting and checking each field', () => {
    const merged = mergeModelAnswer(filled, { name: 'Not the name', price: 99, brand: 'Acme', tags: 'heavy', release: 'March 3, 2021', extra: 1 }, schema);
    expect(merged.data).toEqual({ name: 'Anvil', price: 10, brand: 'Acme', tags: ['heavy'], release: '2021-03-03' });
    expect(merged.sources).toEqual({ name: 'markup', price: 'markup', brand: 'model', tags: 'model', release: 'model' });
    expect(merged.missing).toEqual([]);
    expect(merged.warnings.some((w) => w.startsWith('no value found'))).toBe(false);
  });

  it('drops invalid model values with a warning and keeps them missing', () => {
    const merged = mergeModelAnswer(filled, { brand: { nested: true }, tags: null, release: 'someday' }, schema);
    expect(merged.data).toEqual({ name: 'Anvil', price: 10 });
    expect(merged.missing).toEqual(['brand', 'tags', 'release']);
    expect(merged.warnings).toEqual([
      'dropped the model\'s "brand": {"nested":true} is not a string',
      'dropped the model\'s "release": "someday" is not a date',
      'no value found for "brand", "tags", "release"',
    ]);
  });

  it('coerces a model\'s numeric text and drops a value that breaks the schema', () => {
    const s = obj({ price: { type: 'number', minimum: 0 }, qty: { type: 'integer' } });
    const base = fillFromThings(schemaTarget(s), [], null);
    const merged = mergeModelAnswer(base, { price: '-3', qty: '1,299' }, s);
    expect(merged.data).toEqual({ qty: 1299 });
    expect(merged.warnings[0]).toBe('dropped the model\'s "price": must be >= 0');
  });
});

// ---- conform ------------------------------------------------------------------------

describe('pipeline/structured/validate: conform', () => {
  it('removes what breaks the schema, names it, and keeps the rest', () => {
    const schema = {
      type: 'object',
      properties: { a: N, b: { type: 'array', items: obj({ x: S }, ['x']) }, c: { type: 'string', format: 'email' } },
      additionalProperties: false,
    };
    const out = conform(schema, { a: 'no', b: [{ x: 'ok' }, { y: 1 }, { x: 2 }], c: 'not an email', d: 1 });
    expect(out.data).toEqual({ b: [{ x: 'ok' }] });
    expect(out.warnings).toEqual(expect.arrayContaining([
      'dropped "a": must be number',
      'dropped "b.1": must have required property \'x\'',
      'dropped "b.2.x": must be string',
      'dropped "c": must match format "email"',
      'dropped "d": not in the schema',
    ]));
  });

  it('sets a broken required field to null only when the schema allows null', () => {
    const schema = obj({ a: { type: ['number', 'null'] }, b: N }, ['a', 'b']);
    const out = conform(schema, { a: 'x', b: 'y' });
    expect(out.data).toEqual({ a: null });
    expect(out.warnings).toContain('set "a" to null: its value broke the schema');
  });

  it('never invents: a missing required field stays missing without a warning', () => {
    expect(conform(obj({ a: S, b: S }, ['a', 'b']), { a: 'x' })).toEqual({ data: { a: 'x' }, warnings: [] });
  });

  it('removes an item that breaks minItems one level up, in rounds', () => {
    const schema = obj({ list: { type: 'array', minItems: 2, items: N } });
    const out = conform(schema, { list: [1, 'two'] });
    expect(out.data).toEqual({});
    expect(out.warnings).toEqual(['dropped "list.1": must be number', 'dropped "list": must NOT have fewer than 2 items']);
  });

  it('runs caller patterns in RE2 (linear on a backtracking pattern)', () => {
    const schema = obj({ code: { type: 'string', pattern: '^(a+)+$' } });
    expect(conform(schema, { code: `${'a'.repeat(50_000)}!` }).data).toEqual({});
    expect(conform(schema, { code: 'aaa' }).data).toEqual({ code: 'aaa' });
  });
});

// ---- confidence -----------------------------------------------------------------------

describe('pipeline/structured/confidence', () => {
  const schema = obj({ a: S, b: S, c: S, d: S }, ['a']);
  const of = (sources: Record<string, 'markup' | 'page' | 'model'>) =>
    confidenceOf(schema, { sources, missing: ['a', 'b', 'c', 'd'].filter((f) => !(f in sources)) });

  it('follows the published formula', () => {
    expect(of({ a: 'markup', b: 'markup', c: 'markup', d: 'markup' })).toBe(1);
    expect(of({ a: 'page', b: 'markup', c: 'markup', d: 'markup' })).toBe(0.9);
    expect(of({ a: 'model' })).toBe(0.24);
    expect(confidenceOf({ type: 'object', properties: {} }, { sources: {}, missing: [] })).toBe(0);
  });

  it('orders answers: full markup > markup+page > page only > model only > half missing > nothing', () => {
    const full = of({ a: 'markup', b: 'markup', c: 'markup', d: 'markup' });
    const mixed = of({ a: 'markup', b: 'page', c: 'markup', d: 'page' });
    const page = of({ a: 'page', b: 'page', c: 'page', d: 'page' });
    const model = of({ a: 'model', b: 'model', c: 'model', d: 'model' });
    const half = of({ b: 'markup', c: 'markup' });
    const nothing = of({});
    expect([full, mixed, page, model, half, nothing]).toEqual([...[full, mixed, page, model, half, nothing]].sort((x, y) => y - x));
    expect(new Set([full, mixed, page, model, half, nothing]).size).toBe(6);
    expect(nothing).toBe(0);
  });

  it('scores a real fill: markup-only product 1, with page values less', () => {
    const product = thing('Product', { name: 'Anvil', offers: thing('Offer', { price: 10 }) });
    const t = template('product');
    const markupOnly = fillFromThings(t, [product], null);
    const withPage = fillFromThings(t, [product], pageThing({ sku: 'X', brand: 'Acme' }));
    const schema = targetSchema(t) as Record<string, unknown>;
    expect(confidenceOf(schema, withPage)).toBeGreaterThan(confidenceOf(schema, markupOnly));
    expect(confidenceOf(schema, markupOnly)).toBe(0.27);
  });
});
