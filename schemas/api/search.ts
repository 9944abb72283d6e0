/**
 * Request schemas of web search, SERP and places search. The spec leaves their fields
 * "not shown": search follows Firecrawl v1's request (query, limit, tbs, filter, lang,
 * country, location, timeout, scrapeOptions); SERP and places use the names SERP APIs use.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Closed, Nullable, StringEnum, COUNTRY_CODE } from './common.js';
import { ScrapeOptions } from './scrape-options.js';
import { op, type Operation } from './operation-row.js';

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

/** The search operations: their rows of the operation table (schemas/api/operations.ts). */
export const SEARCH_OPERATIONS = [
  op({
    id: 'search',
    method: 'POST',
    path: '/v1/search',
    tag: 'Search',
    summary: 'Web search',
    body: SearchBody,
    description:
      'Searches the web through the providers this instance is configured with, asked in order (SEARCH_PROVIDERS; by default SearXNG, Brave, a SERP API, then the local index of every page this instance has read): when one fails (timeout, 429, 5xx, an answer it cannot read) the next is asked. ' +
      'The answer is `data.results`, up to `limit` `{url, title, description, position, source}` objects, and `data.provider`, the provider that answered (`searxng`, `brave`, `serpapi`, `local`; also each result\'s `source`); `data.warning` names providers that failed first and filters the answering provider could not apply. ' +
      'The local index searches the pages stored by this key and the shared index (title, description and main text, BM25-ranked with a title boost); `lang` and `tbs` (`qdr:h|d|w|m|y`) apply to it. ' +
      'With `scrapeOptions` (at least one format) each result is read through the scrape path and carries its page (`markdown`, `metadata`, `json`, …) beside its own fields; a page that fails gets `error` (`{code, message}`) without failing the request. ' +
      'No provider able to answer: 429 `provider_rate_limited` (with `Retry-After`) when all were rate limited, else 502 `provider_failed`. ' +
      'Costs 1 credit per search, plus each page read for `scrapeOptions` as the scrape it is (rules 2 and 3); a failed search or page costs nothing.',
  }),
  op({
    id: 'serp',
    method: 'POST',
    path: '/v1/serp',
    tag: 'Search',
    summary: 'SERP search',
    body: SerpBody,
    description:
      'One search engine results page, as the provider reports it, in SerpApi\'s fields (camel case): `organicResults` (`{position, title, link, displayedLink, snippet, date}`), `relatedQuestions`, `relatedSearches`, `answerBox` and `knowledgeGraph` (null when the provider gives none), `searchInformation.totalResults`, `searchParameters`, and `pagination` (`{current, next}`; `next` is null on the last page). ' +
      'Pages are 1 to 10 of `num` results. The providers and their fallback are those of POST /v1/search; `provider` names the one that answered. ' +
      'Costs 1 credit per results page; a failed call costs nothing.',
  }),
  op({
    id: 'placesSearch',
    method: 'POST',
    path: '/v1/places/search',
    tag: 'Search',
    summary: 'Places search',
    body: PlacesSearchBody,
    description:
      'Lists places of a kind in an area from OpenStreetMap: the area (`location`, or "… in X" / "… near X" in `query`) is resolved with Nominatim (NOMINATIM_URL), then Overpass (OVERPASS_URL) lists every place matching `query` in it (a category such as `cafes` or `dentists` by its OpenStreetMap tags, else by name). ' +
      'Each place has `name`, `category`, `address`, `coordinates`, `phone`, `website`, `openingHours`, `osm` (`{type, id}`) and `osmUrl`; `data.attribution` carries the ODbL notice (© OpenStreetMap contributors) in every answer and must be shown with the data. ' +
      'Nominatim is asked at most once a second across the whole instance, with a real User-Agent, and answers are cached. A question that names no place is 422. ' +
      'Costs 1 credit per call, whatever it finds; a failed call costs nothing.',
  }),
] as const satisfies readonly Operation[];
