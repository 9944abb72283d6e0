/**
 * Nominatim, OpenStreetMap's geocoder (NOMINATIM_URL, NOMINATIM_EMAIL): turns a place's name
 * into OSM objects with `GET <base>/search?q=…&format=jsonv2&addressdetails=1&limit=…
 * [&countrycodes=…][&accept-language=…][&email=…]`. Places search (pipeline/search/places.ts)
 * resolves its WHERE with it.
 *
 * The public instance's usage policy is kept by every process together:
 * - at most one request a second in total: before each request a token is taken from the
 *   bucket `nominatim:requests` (capacity 1, one a second) in coordination state, which may
 *   be Redis shared by many processes; without one, the client waits the bucket's
 *   `retryAfterMs` and tries again, until the call's `timeoutMs` would be passed: then it is a
 *   `rate_limited` ServiceError carrying the wait;
 * - a real User-Agent (service-http.ts sends ours, never a library default);
 * - answers are cached in coordination state for 24 h under `nominatim:cache:<sha256 of the
 *   normalised request>` (trimmed, spaces collapsed, the query in lower case as Nominatim
 *   reads it), so a question asked again (by any process) never reaches Nominatim.
 *   The raw answer is stored and read through the same parser as a fresh one.
 * Answers are read defensively: a body that is not a list is `unreadable`; a result without a
 * type, id or readable coordinates is left out. `lat`, `lon` and `boundingbox` come as
 * strings and are turned into numbers.
 */
import { createHash } from 'node:crypto';
import type { HttpFetcher } from '../runtime/net/http.js';
import { sleep } from '../runtime/retry.js';
import type { State } from '../runtime/state/state.js';
import { isOsmType, type OsmType } from './overpass.js';
import { record, text } from './json-shapes.js';
import { getJson, serviceFetcher, ServiceError, shownEndpoint } from './service-http.js';

export const NOMINATIM_URL = 'https://nominatim.openstreetmap.org';

export interface NominatimOptions {
  /** NOMINATIM_URL: the instance's base URL, with its path prefix if any. */
  readonly baseUrl?: string;
  /** Where the shared rate limiter and the cache live. */
  readonly state: State;
  readonly fetcher?: HttpFetcher;
  /** NOMINATIM_EMAIL: a contact address sent as `email=`; null or unset sends none. */
  readonly email?: string | null;
}

export interface NominatimQuery {
  /** Free-form query: `Austin, TX`. */
  readonly q: string;
  /** Comma-separated ISO 3166-1 alpha-2 codes (`us,ca`). */
  readonly countrycodes?: string;
  /** The language names are given in (`de`, `en-US`). */
  readonly acceptLanguage?: string;
  /** Results wanted, 1 to 40 (Nominatim's cap); default 5. */
  readonly limit?: number;
}

export interface NominatimContext {
  /** Time for the whole call: waiting for a turn and the request. */
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/** `boundingbox` [minlat, maxlat, minlon, maxlon] as numbers. */
export interface BoundingBox {
  readonly south: number;
  readonly north: number;
  readonly west: number;
  readonly east: number;
}

export interface NominatimPlace {
  readonly placeId: number | null;
  readonly osmType: OsmType;
  readonly osmId: number;
  readonly lat: number;
  readonly lon: number;
  /** jsonv2 `category` (`boundary`, `place`, `amenity`, …). */
  readonly category: string | null;
  /** The value of that key (`administrative`, `city`, `cafe`, …). */
  readonly type: string | null;
  readonly placeRank: number | null;
  readonly importance: number | null;
  readonly addressType: string | null;
  readonly name: string | null;
  readonly displayName: string;
  /** `addressdetails`: `road`, `city`, `state`, `postcode`, `country`, `country_code`, … */
  readonly address: Readonly<Record<string, string>>;
  readonly boundingBox: BoundingBox | null;
  /** The ODbL notice Nominatim puts on each result. */
  readonly licence: string | null;
}

const SERVICE = 'nominatim';
export const NOMINATIM_BUCKET = 'nominatim:requests';
const BUCKET_RULE = { capacity: 1, refillPerSecond: 1 } as const;
const CACHE_PREFIX = 'nominatim:cache:';
export const NOMINATIM_CACHE_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_LIMIT = 40;
const DEFAULT_LIMIT = 5;

export class NominatimClient {
  /** The endpoint answers come from (cache keys of callers include it). */
  readonly endpoint: string;
  private readonly base: URL;
  private readonly state: State;
  private readonly fetcher: HttpFetcher;
  private readonly email: string | null;

  constructor(options: NominatimOptions) {
    this.base = new URL(options.baseUrl ?? NOMINATIM_URL);
    this.endpoint = shownEndpoint(this.base);
    this.state = options.state;
    this.fetcher = options.fetcher ?? serviceFetcher();
    this.email = options.email ?? null;
  }

  async search(params: NominatimQuery, ctx: NominatimContext): Promise<NominatimPlace[]> {
    const query = normalised(params);
    const cacheKey = CACHE_PREFIX + sha256(JSON.stringify([this.endpoint, { ...query, q: query.q.toLowerCase() }]));
    const cached = await this.fromCache(cacheKey);
    if (cached) return cached;
    const deadline = Date.now() + ctx.timeoutMs;
    await this.waitForTurn(deadline, ctx.signal);
    const url = searchUrl(this.base, query, this.email);
    const answer = await getJson(SERVICE, { url, timeoutMs: Math.max(1, deadline - Date.now()), signal: ctx.signal }, this.fetcher);
    const places = placesOf(answer.json, url, answer.status);
    await this.state.set(cacheKey, JSON.stringify(answer.json), NOMINATIM_CACHE_TTL_MS);
    return places;
  }

  private async fromCache(key: string): Promise<NominatimPlace[] | null> {
    const raw = await this.state.get(key);
    if (raw === null) return null;
    try {
      return placesOf(JSON.parse(raw), this.base, 200);
    } catch {
      return null;
    }
  }

  /** Takes the shared one-a-second token, waiting for it while the deadline allows. */
  private async waitForTurn(deadline: number, signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      const turn = await this.state.takeToken(NOMINATIM_BUCKET, BUCKET_RULE);
      if (turn.allowed) return;
      if (Date.now() + turn.retryAfterMs >= deadline) {
        throw new ServiceError(SERVICE, 'rate_limited', `the usage policy's one request a second is in use; the next turn is in ${turn.retryAfterMs} ms, past the time allowed`, turn.retryAfterMs);
      }
      await sleep(turn.retryAfterMs, signal);
    }
  }
}

/** The request as it is sent and cached: trimmed, spaces collapsed, codes in lower case. */
function normalised(params: NominatimQuery): Required<NominatimQuery> {
  const limit = Math.trunc(params.limit ?? DEFAULT_LIMIT);
  return {
    q: params.q.trim().replace(/\s+/g, ' '),
    countrycodes: (params.countrycodes ?? '').toLowerCase().replace(/\s+/g, ''),
    acceptLanguage: (params.acceptLanguage ?? '').trim(),
    limit: Math.min(MAX_LIMIT, Math.max(1, Number.isFinite(limit) ? limit : DEFAULT_LIMIT)),
  };
}

function searchUrl(base: URL, query: Required<NominatimQuery>, email: string | null): URL {
  const url = new URL(base.href);
  let prefix = url.pathname;
  while (prefix.endsWith('/')) prefix = prefix.slice(0, -1);
  url.pathname = `${prefix}/search`;
  url.search = '';
  url.hash = '';
  const params = url.searchParams;
  params.set('q', query.q);
  params.set('format', 'jsonv2');
  params.set('addressdetails', '1');
  params.set('limit', String(query.limit));
  if (query.countrycodes) params.set('countrycodes', query.countrycodes);
  if (query.acceptLanguage) params.set('accept-language', query.acceptLanguage);
  if (email) params.set('email', email);
  return url;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

// ---- reading jsonv2 ----------------------------------------------------------------------

/** A number, or a string holding one (Nominatim writes coordinates as strings). */
function numberOf(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
}

function placesOf(json: unknown, url: URL, status: number): NominatimPlace[] {
  if (!Array.isArray(json)) throw new ServiceError(SERVICE, 'unreadable', `${shownEndpoint(url)} answered JSON that is not a list of places`, null, status);
  return json.map(placeOf).filter((p): p is NominatimPlace => p !== null);
}

function placeOf(item: unknown): NominatimPlace | null {
  const r = record(item);
  const lat = numberOf(r?.lat);
  const lon = numberOf(r?.lon);
  const osmId = numberOf(r?.osm_id);
  if (!r || !isOsmType(r.osm_type) || osmId === null || lat === null || lon === null || Math.abs(lat) > 90 || Math.abs(lon) > 180) return null;
  return {
    placeId: numberOf(r.place_id),
    osmType: r.osm_type,
    osmId,
    lat,
    lon,
    category: text(r.category) ?? text(r.class),
    type: text(r.type),
    placeRank: numberOf(r.place_rank),
    importance: numberOf(r.importance),
    addressType: text(r.addresstype),
    name: text(r.name),
    displayName: text(r.display_name) ?? text(r.name) ?? '',
    address: addressOf(r.address),
    boundingBox: boundingBoxOf(r.boundingbox),
    licence: text(r.licence),
  };
}

function addressOf(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record(v) ?? {})) {
    const s = text(value);
    if (s !== null) out[key] = s;
  }
  return out;
}

function boundingBoxOf(v: unknown): BoundingBox | null {
  if (!Array.isArray(v) || v.length !== 4) return null;
  const [south, north, west, east] = v.map(numberOf);
  if (south == null || north == null || west == null || east == null || south > north) return null;
  return { south, north, west, east };
}
