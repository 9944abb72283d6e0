/**
 * Request schemas of web search, SERP and places search. The spec leaves their fields
 * "not shown": search follows Firecrawl v1's request (query, limit, tbs, filter, lang,
 * country, location, timeout, scrapeOptions); SERP and places use the names SERP APIs use.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Closed, Nullable, StringEnum, COUNTRY_CODE } from './common.js';
import { ScrapeOptions } from './scrape-options.js';

const Query = Type.String({ minLength: 1, maxLength: 500, description: 'What to search for.' });
const Language = Type.String({ minLength: 2, maxLength: 35, description: 'Language code such as `en` or `pt-BR`.' });

export const SearchBody = Closed(
  {
    query: Query,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 5, description: 'Most results returned.' })),
    tbs: Type.Optional(Nullable(Type.String({ maxLength: 100 }), { description: 'Time filter, e.g. `qdr:d` (past day), `qdr:w`, `qdr:m`, `qdr:y`.' })),
    filter: Type.Optional(Nullable(Type.String({ maxLength: 500 }), { description: 'Extra provider filter expression.' })),
    lang: Type.Optional(Language),
    country: Type.Optional(COUNTRY_CODE),
    location: Type.Optional(Nullable(Type.String({ maxLength: 200 }), { description: 'Place the search is made from, e.g. `Berlin, Germany`.' })),
    timeout: Type.Optional(Type.Integer({ minimum: 1000, maximum: 300000, default: 60000, description: 'Time allowed for the whole call, in ms.' })),
    scrapeOptions: Type.Optional(ScrapeOptions),
  },
  { description: "Web search. With `scrapeOptions` each result also carries its page's content in the requested formats." },
);
export type SearchBody = Static<typeof SearchBody>;

export const SerpBody = Closed(
  {
    query: Query,
    country: Type.Optional(COUNTRY_CODE),
    lang: Type.Optional(Language),
    location: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    device: Type.Optional(StringEnum(['desktop', 'mobile'], { default: 'desktop' })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 1, description: 'Result page, 1-based.' })),
    num: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Results per page.' })),
    tbs: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
  },
  { description: 'One search engine results page: organic results, related questions and searches, answer box and knowledge panel when the provider gives them, with positions.' },
);
export type SerpBody = Static<typeof SerpBody>;

export const PlacesSearchBody = Type.Object(
  {
    query: Query,
    location: Type.Optional(Nullable(Type.String({ maxLength: 200 }), { description: 'Where to look, e.g. `Austin, TX`.' })),
    country: Type.Optional(COUNTRY_CODE),
    lang: Type.Optional(Language),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  },
  { additionalProperties: true, description: 'Places search (an open object, as the spec declares it).' },
);
export type PlacesSearchBody = Static<typeof PlacesSearchBody>;
