/**
 * schemas/templates.ts: every template is one definition — its fields (with the schema.org
 * paths they are filled from and the page rules that can fill them) — and the JSON Schema
 * answers are validated against is derived from it, compiles, and keeps the names and
 * descriptions GET /v1/templates has always listed.
 */
import { describe, expect, it } from 'vitest';
import { checkCallerSchema } from '../../pipeline/structured/schema.js';
import { conform } from '../../pipeline/structured/fill.js';
import { PAGE_RULE_PROPERTIES, TEMPLATES, findTemplate } from '../../schemas/templates.js';

describe('schemas/templates', () => {
  it('lists the seven page kinds with their schema.org types', () => {
    expect(TEMPLATES.map((t) => [t.name, t.schemaOrgTypes])).toEqual([
      ['product', ['Product', 'Offer', 'AggregateOffer']],
      ['article', ['Article', 'NewsArticle', 'BlogPosting']],
      ['jobPosting', ['JobPosting']],
      ['recipe', ['Recipe']],
      ['event', ['Event']],
      ['organization', ['Organization', 'Corporation', 'LocalBusiness']],
      ['review', ['Review']],
    ]);
    expect(findTemplate('recipe')?.name).toBe('recipe');
    expect(findTemplate('nope')).toBeUndefined();
  });

  it('derives each schema from the fields: same names, order, types, descriptions and required list', () => {
    for (const t of TEMPLATES) {
      expect(Object.keys(t.schema.properties), t.name).toEqual(t.fields.map((f) => f.name));
      expect(t.schema.required, t.name).toEqual(t.fields.filter((f) => f.required).map((f) => f.name));
      for (const f of t.fields) {
        const property = t.schema.properties[f.name];
        expect(property?.type, `${t.name}.${f.name}`).toBe(f.type);
        expect(property?.description, `${t.name}.${f.name}`).toBe(f.description);
        if (f.type === 'array') expect(property?.items).toEqual({ type: 'string' });
      }
    }
  });

  it('keeps the fields the templates always had', () => {
    expect(findTemplate('product')?.schema.properties.price).toEqual({ type: 'number', description: 'Current price as a number.' });
    expect(findTemplate('article')?.schema.properties.author).toEqual({ type: 'array', items: { type: 'string' }, description: 'Author names.' });
    expect(findTemplate('recipe')?.schema.required).toEqual(['name', 'ingredients']);
    expect(findTemplate('review')?.schema.required).toEqual(['body']);
    expect(TEMPLATES.map((t) => t.fields.length)).toEqual([10, 8, 11, 7, 9, 8, 6]);
  });

  it('names for every field the schema.org paths it is filled from', () => {
    for (const t of TEMPLATES) {
      for (const f of t.fields) expect(f.schemaOrg.length, `${t.name}.${f.name}`).toBeGreaterThan(0);
    }
    const product = findTemplate('product');
    const paths = (template: string, field: string) => findTemplate(template)?.fields.find((f) => f.name === field)?.schemaOrg;
    expect(product?.fields.find((f) => f.name === 'price')?.schemaOrg.slice(0, 2)).toEqual(['offers.price', 'offers.lowPrice']);
    expect(paths('product', 'currency')?.[0]).toBe('offers.priceCurrency');
    expect(paths('product', 'reviewCount')).toEqual(['aggregateRating.reviewCount', 'aggregateRating.ratingCount']);
    expect(paths('article', 'title')).toEqual(['headline', 'name']);
    expect(paths('recipe', 'prepTimeMinutes')).toEqual(['prepTime']);
    expect(paths('jobPosting', 'location')).toContain('jobLocationType=TELECOMMUTE->remote');
    expect(paths('jobPosting', 'salaryMin')?.[0]).toBe('baseSalary.value.minValue');
    expect(paths('organization', 'socialProfiles')).toEqual(['sameAs']);
  });

  it('derives pageRules: the field\'s paths that the page rules read', () => {
    for (const t of TEMPLATES) {
      for (const f of t.fields) {
        expect(f.pageRules, `${t.name}.${f.name}`).toEqual(f.schemaOrg.filter((p) => PAGE_RULE_PROPERTIES.has(p)));
      }
    }
    const rules = (template: string, field: string) => findTemplate(template)?.fields.find((f) => f.name === field)?.pageRules;
    expect(rules('product', 'price')).toEqual(['offers.price']);
    expect(rules('article', 'author')).toEqual(['author.name', 'author']);
    expect(rules('organization', 'phone')).toEqual(['telephone']);
    expect(rules('recipe', 'ingredients')).toEqual([]);
  });

  it('has schemas a caller could have sent, and answers validate against them', () => {
    for (const t of TEMPLATES) expect(checkCallerSchema(t.schema), t.name).toEqual([]);
    const product = findTemplate('product')?.schema as unknown as Record<string, unknown>;
    expect(conform(product, { name: 'Anvil', price: '10' })).toEqual({ data: { name: 'Anvil' }, warnings: ['dropped "price": must be number'] });
  });

  it('lists as JSON without loss (GET /v1/templates serialises the records)', () => {
    const listed = JSON.parse(JSON.stringify(TEMPLATES)) as typeof TEMPLATES;
    expect(listed[0]?.fields[3]).toEqual({
      name: 'price',
      type: 'number',
      description: 'Current price as a number.',
      required: false,
      schemaOrg: ['offers.price', 'offers.lowPrice', 'offers.priceSpecification.price', 'price', 'lowPrice'],
      pageRules: ['offers.price'],
    });
  });
});
