/**
 * Firecrawl's extract and crawl params preview bodies and answers, translated to and from our
 * POST /v1/extract (the rest of the edge's translation is translate.ts).
 */
import { FirecrawlRefusal, isObject, scrapeOptionsOf, type Json, type Version } from './translate.js';

/** A Firecrawl extract body as ours. */
export function extractBodyOf(given: Json, version: Version): Json {
  if (!Array.isArray(given.urls) || given.urls.length === 0) {
    throw new FirecrawlRefusal('extract needs `urls`: this service reads the pages you name (it does not search the web for them)');
  }
  if (given.enableWebSearch === true) throw new FirecrawlRefusal('`enableWebSearch` is not offered: name the pages in `urls`');
  if (isObject(given.agent)) throw new FirecrawlRefusal('the FIRE-1 agent is a Firecrawl cloud feature this service does not offer');
  if (given.webhook !== undefined && given.webhook !== null) throw new FirecrawlRefusal('extract webhooks are not offered: poll GET /extract/{id}');
  const wildcard = given.urls.find((u) => typeof u === 'string' && u.endsWith('/*'));
  if (wildcard) throw new FirecrawlRefusal(`wildcard URLs (${String(wildcard)}) are not offered: map the site first (POST /map) and pass its URLs`);
  const body: Json = { urls: given.urls };
  if (isObject(given.schema)) body.schema = given.schema;
  const prompt = [given.systemPrompt, given.prompt].filter((p) => typeof p === 'string' && p.trim() !== '').join('\n\n');
  if (prompt) body.prompt = prompt;
  if (isObject(given.scrapeOptions)) {
    const { options } = scrapeOptionsOf(given.scrapeOptions, version, { formats: null, maxAge: false });
    delete options.formats;
    if (Object.keys(options).length) body.scrapeOptions = options;
  }
  return body;
}

/**
 * Our per-URL extract results as Firecrawl's one answer: the data of every page that gave some,
 * merged (lists joined, the first value of each other field kept), and the sources of each
 * field when asked.
 */
export function extractAnswerOf(results: Json[], showSources: boolean): { data: Json | null; sources?: Json; warning?: string; error?: string } {
  const ok = results.filter((r) => isObject(r.data));
  const failed = results.filter((r) => isObject(r.error));
  if (!ok.length) {
    const first = failed[0]?.error as Json | undefined;
    return { data: null, error: typeof first?.message === 'string' ? first.message : 'no page gave any data' };
  }
  const data: Json = {};
  const sources: Record<string, string[]> = {};
  for (const r of ok) {
    for (const [field, value] of Object.entries(r.data as Json)) {
      if (value === null || value === undefined) continue;
      if (Array.isArray(value)) data[field] = [...(Array.isArray(data[field]) ? (data[field] as unknown[]) : []), ...value];
      else if (data[field] === undefined || data[field] === null) data[field] = value;
      else continue;
      (sources[field] ??= []).push(String(r.url));
    }
  }
  const warning = failed.length ? `${failed.length} of ${results.length} pages could not be read: ${failed.map((f) => `${String(f.url)} (${String((f.error as Json).message ?? (f.error as Json).code)})`).join('; ')}` : undefined;
  return { data, ...(showSources ? { sources } : {}), ...(warning ? { warning } : {}) };
}

/**
 * Firecrawl's crawl params preview (`POST /v2/crawl/params-preview` `{url, prompt}`): the crawl
 * options a model writes for a plain-language prompt, asked of our POST /v1/extract (the start
 * page read and given to the operator's model with this schema, so the page, the model and the
 * charge are the operation's own) and then checked here: the path patterns must run in RE2
 * (linear time) and every figure must be one POST /v1/crawl takes; anything else is left out.
 */
export const PARAMS_PREVIEW_SCHEMA = {
  type: 'object',
  properties: {
    includePaths: { type: ['array', 'null'], items: { type: 'string' }, description: 'Regexes (RE2) on the URL path and query: only matching pages are crawled. Null when the prompt names no section.' },
    excludePaths: { type: ['array', 'null'], items: { type: 'string' }, description: 'Regexes (RE2) on the URL path and query: matching pages are skipped.' },
    limit: { type: ['integer', 'null'], description: 'Most pages to crawl, when the prompt says how many.' },
    maxDiscoveryDepth: { type: ['integer', 'null'], description: 'Link depth from the start page, when the prompt limits it.' },
    crawlEntireDomain: { type: ['boolean', 'null'], description: 'True to crawl pages outside the start URL\'s path.' },
    allowExternalLinks: { type: ['boolean', 'null'], description: 'True to follow links to other sites.' },
  },
  required: ['includePaths', 'excludePaths', 'limit', 'maxDiscoveryDepth', 'crawlEntireDomain', 'allowExternalLinks'],
  additionalProperties: false,
} as const;

export const PARAMS_PREVIEW_PROMPT =
  'Write the options of a web crawl that starts at this page and does what the user asks below. Path patterns are regular expressions (RE2 syntax) matched against the URL path and query, for example "^/blog/". Use the links of the page to choose them. Leave an option null when the request does not call for it.';

/** The model's crawl options, kept only where POST /v1/crawl would take them. */
export function paramsPreviewOf(raw: Json, isLinear: (pattern: string) => boolean): Json {
  const patterns = (value: unknown): string[] | undefined => {
    if (!Array.isArray(value)) return undefined;
    const kept = value.filter((p): p is string => typeof p === 'string' && p.length > 0 && p.length <= 1000 && isLinear(p)).slice(0, 100);
    return kept.length ? kept : undefined;
  };
  const whole = (value: unknown, min: number, max: number): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : undefined);
  const flag = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);
  const out: Json = {};
  const set = (field: string, value: unknown) => {
    if (value !== undefined) out[field] = value;
  };
  set('includePaths', patterns(raw.includePaths));
  set('excludePaths', patterns(raw.excludePaths));
  set('limit', whole(raw.limit, 1, 100_000));
  set('maxDiscoveryDepth', whole(raw.maxDiscoveryDepth, 0, 20));
  set('crawlEntireDomain', flag(raw.crawlEntireDomain));
  set('allowExternalLinks', flag(raw.allowExternalLinks));
  return out;
}

