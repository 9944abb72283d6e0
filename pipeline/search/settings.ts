/**
 * The settings of the search family (POST /v1/search, /v1/serp, /v1/places/search; the
 * searcher actor, actors/searcher/): where each provider is reached and with which key.
 * This family's part of the one settings table:
 * pipeline/service/settings.ts assembles the parts, pipeline/runtime/config.ts parses them
 * (`satisfies SettingsTable` checks each entry here); README.md's "Configuration" lists them.
 *
 * Provider endpoints are operator configuration: they may be private addresses (a SearXNG on
 * the same network). Result URLs that are then read go through the fetcher's SSRF guard.
 */
import type { ConfigOf, SettingsTable } from '../runtime/config.js';

export const SEARCH_SETTINGS = {
  searchProviders: {
    env: 'SEARCH_PROVIDERS',
    type: 'string',
    default: null,
    description:
      'Web search providers in the order they are asked, comma-separated: `searxng`, `brave`, `serpapi`, `local` (this instance\'s own index of the pages it has read). On a provider\'s failure (timeout, 429, 5xx, an answer it cannot read) the next is asked. Unset: every configured provider in the order SearXNG, Brave, SERP API, then the local index. A provider named here must be configured.',
  },
  searxngUrl: {
    env: 'SEARXNG_URL',
    type: 'string',
    default: null,
    description: "Base URL of a SearXNG instance (e.g. `http://127.0.0.1:8888`); its `search.formats` in settings.yml must include `json` (otherwise it answers 403). Unset: SearXNG is not asked.",
  },
  braveSearchApiKey: {
    env: 'BRAVE_SEARCH_API_KEY',
    type: 'string',
    default: null,
    secret: true,
    description: 'Brave Search API subscription token (sent as `X-Subscription-Token`). Unset: Brave is not asked.',
  },
  braveSearchUrl: {
    env: 'BRAVE_SEARCH_URL',
    type: 'string',
    default: 'https://api.search.brave.com',
    description: 'Where the Brave Search API is reached (`/res/v1/web/search` below it).',
  },
  serpApiKey: {
    env: 'SERP_API_KEY',
    type: 'string',
    default: null,
    secret: true,
    description: "API key of a SERP API in SerpApi's shape (`/search.json?engine=google&q=…&api_key=…`, answering `organic_results`). Unset: no SERP API is asked.",
  },
  serpApiUrl: {
    env: 'SERP_API_URL',
    type: 'string',
    default: 'https://serpapi.com',
    description: "Where the SERP API is reached, replacing `https://serpapi.com` (`/search.json` below it).",
  },
  searchTimeoutMs: {
    env: 'SEARCH_TIMEOUT_MS',
    type: 'integer',
    default: 10000,
    min: 500,
    max: 120000,
    description: "How long one provider may take to answer before the next is asked (never past the request's own `timeout`).",
  },
  nominatimUrl: {
    env: 'NOMINATIM_URL',
    type: 'string',
    default: 'https://nominatim.openstreetmap.org',
    description: "Where Nominatim is reached (places search resolves the area with it). The public instance's policy is kept: at most one request a second across every process (a limiter in coordination state), a real User-Agent, answers cached for 24 h.",
  },
  nominatimEmail: {
    env: 'NOMINATIM_EMAIL',
    type: 'string',
    default: null,
    description: "A contact address sent with Nominatim requests (`email=`), as its usage policy asks of heavy users. Unset: none is sent.",
  },
  overpassUrl: {
    env: 'OVERPASS_URL',
    type: 'string',
    default: 'https://overpass-api.de/api/interpreter',
    description: 'The Overpass API interpreter endpoint places search lists places with.',
  },
} as const satisfies SettingsTable;

/** The values of this part, as pipeline/runtime/config.ts parses them. */
export type SearchConfig = ConfigOf<typeof SEARCH_SETTINGS>;
