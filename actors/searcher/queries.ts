/**
 * The questions of SearchRequested events, read back from their JSON (`query`, the request
 * body the gateway validated, schemas/api/search.ts) with the schema's defaults for what is
 * missing: a web search and a SERP page become one SearchQuery (pipeline/clients/web-search.ts).
 */
import { parseJsonObject } from '../../pipeline/runtime/json.js';
import { timeRangeOf, type SearchQuery } from '../../pipeline/clients/web-search.js';

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const count = (v: unknown, min: number, max: number, fallback: number): number => (typeof v === 'number' && Number.isInteger(v) ? Math.min(max, Math.max(min, v)) : fallback);

function queryOf(o: Record<string, unknown>, num: number, page: number): SearchQuery | null {
  const query = text(o.query);
  if (!query) return null;
  const tbs = text(o.tbs);
  return {
    query,
    num,
    page,
    lang: text(o.lang),
    country: text(o.country)?.toLowerCase() ?? null,
    location: text(o.location),
    tbs,
    timeRange: timeRangeOf(tbs),
    filter: text(o.filter),
    device: o.device === 'mobile' ? 'mobile' : 'desktop',
  };
}

/** POST /v1/search: `limit` results (default 5), first page; null when unreadable. */
export function webQueryOf(json: string): SearchQuery | null {
  const o = parseJsonObject(json);
  return o ? queryOf(o, count(o.limit, 1, 100, 5), 1) : null;
}

/** POST /v1/serp: `num` results (default 10) of page `page` (default 1); null when unreadable. */
export function serpQueryOf(json: string): SearchQuery | null {
  const o = parseJsonObject(json);
  return o ? queryOf(o, count(o.num, 1, 100, 10), count(o.page, 1, 10, 1)) : null;
}
