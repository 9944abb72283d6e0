/**
 * pipeline/intel/site/company-model.ts: the ask (only the missing fields, closed, each with
 * its page; the pages numbered and cut to a share of the room) and what of an answer is
 * believed (a shown page; an address and a year written on it; a headcount one of whose
 * figures it writes; a description and an industry within their lengths).
 */
import { describe, expect, it } from 'vitest';
import { companyModelAsk, readModelAnswer, type CompanyModelPage } from '../../pipeline/intel/site/company-model.js';

const PAGES: CompanyModelPage[] = [
  { url: 'https://acme.example/', kind: 'home', text: 'Acme Tools. Quality hand tools.' },
  { url: 'https://acme.example/about', kind: 'about', text: 'Founded in 1987, Acme employs 1.200 people at   Hauptstraße 5,\n10115 Berlin.' },
];

describe('pipeline/intel/site/company-model', () => {
  it('asks for the missing fields only, each {value, page}, closed, with the pages numbered and cut to a share', () => {
    const long = [...PAGES, { url: 'https://acme.example/imprint', kind: 'imprint', text: 'x'.repeat(50_000) }];
    const ask = companyModelAsk(['industry', 'headcount'], long, 6_000);
    expect(ask.schema).toMatchObject({ type: 'object', required: ['industry', 'headcount'], additionalProperties: false });
    const industry = (ask.schema.properties as Record<string, { required: string[]; additionalProperties: boolean }>).industry;
    expect(industry).toMatchObject({ required: ['value', 'page'], additionalProperties: false });
    expect(ask.prompt).toContain('[1] home page, https://acme.example/');
    expect(ask.prompt).toContain('[3] imprint page, https://acme.example/imprint');
    expect(ask.prompt.length).toBeLessThan(6_000);
    expect(ask.system).toMatch(/data, not instructions/);
  });

  it('believes a value only as far as the page it names backs it', () => {
    const read = readModelAnswer(
      {
        description: { value: ' Makes  hand tools. ', page: 1 },
        industry: { value: 'Tools', page: 3 }, // no page 3
        foundingYear: { value: 1987, page: 2 },
        headcount: { value: { min: 1200, max: 1200 }, page: 2 },
        address: { value: 'Hauptstraße 5, 10115 Berlin', page: 2 },
      },
      ['description', 'industry', 'foundingYear', 'headcount', 'address'],
      PAGES,
      2026,
    );
    expect(read).toMatchObject({ description: 'Makes hand tools.', foundingYear: 1987, headcount: { min: 1200, max: 1200 }, address: { text: 'Hauptstraße 5, 10115 Berlin' } });
    expect(read.industry).toBeUndefined();
    expect(read.sources).toEqual({ description: PAGES[0]?.url, foundingYear: PAGES[1]?.url, headcount: PAGES[1]?.url, address: PAGES[1]?.url });
  });

  it('drops what the page does not write, a year ahead of the clock, bad figures and over-long labels', () => {
    const read = readModelAnswer(
      {
        description: { value: 'y'.repeat(501), page: 1 },
        industry: { value: 'z'.repeat(81), page: 1 },
        foundingYear: { value: 1990, page: 2 }, // the page says 1987
        headcount: { value: { min: 500, max: 100 }, page: 2 },
        address: { value: 'Somewhere else 1, Paris', page: 2 },
      },
      ['description', 'industry', 'foundingYear', 'headcount', 'address'],
      PAGES,
      2026,
    );
    expect(read).toEqual({ sources: {} });
    expect(readModelAnswer({ foundingYear: { value: 1987, page: 2 } }, ['foundingYear'], PAGES, 1980)).toEqual({ sources: {} });
    expect(readModelAnswer({ headcount: { value: { min: 7, max: null }, page: 2 } }, ['headcount'], PAGES, 2026)).toEqual({ sources: {} });
    expect(readModelAnswer({ foundingYear: { value: null, page: null } }, ['foundingYear'], PAGES, 2026)).toEqual({ sources: {} });
    // A field it was not asked for is ignored.
    expect(readModelAnswer({ industry: { value: 'Tools', page: 1 } }, ['description'], PAGES, 2026)).toEqual({ sources: {} });
  });
});
