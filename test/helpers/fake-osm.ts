/**
 * Local stand-ins for OpenStreetMap's APIs (/work/shared/design/reference-shapes-wave2.md §4),
 * node:http servers on 127.0.0.1 (a free port) speaking the real paths, parameters and JSON:
 *
 * - `startFakeNominatim()`: `GET /search?q&format=jsonv2|json&addressdetails&limit&countrycodes
 *   &accept-language` over a small gazetteer (GAZETTEER: Austin TX and Austin MN relations,
 *   the town of Marfa as a node, Berlin, Central Park as a way). A result matches when every
 *   word of `q` is one of its words; results keep the gazetteer's order (importance), filtered
 *   by `countrycodes`, named in the `accept-language`'s first language when it has that name.
 *   `limit` above 40 gives 40. As the public instance does, a request without a User-Agent or
 *   with a library's default one (node-fetch, axios, python-requests, curl, …) is refused
 *   403 "Access blocked"; a missing `q` is 400 `{error: {code, message}}`.
 * - `startFakeOverpass()`: `GET /api/interpreter?data=<ql>` and `POST` (form `data=` or the QL
 *   as the body). A small QL reader takes what pipeline/search/places-query.ts writes: settings
 *   (`[out:json]` required, `[timeout:n]`), `area(<id>)->.a;`, a union of `nwr|node|way|
 *   relation` statements with tag filters (`["k"="v"]`, `["k"~"<pattern>"(,i)]`) and a
 *   `(area.a)` or `(around:r,lat,lon)` filter, and `out [center] [tags] [n];`. Patterns are
 *   read, never run: `^(a|b)$` (one of), `(^|;) *(a|b) *(;|$)` (an item of a `;` list) and a
 *   literal (every metacharacter backslash-escaped: a substring); any other pattern, or QL
 *   it cannot read, is answered 400 with Overpass's HTML error page. Elements come from
 *   OSM_ELEMENTS (nodes, and ways with a centre, some unnamed), sorted by type then id, at
 *   most `n`, with `version`, `generator` and `osm3s{timestamp_osm_base, timestamp_areas_base,
 *   copyright}`.
 *
 * Modes (`setMode`): both `ok`, `rate_limited` (429), `error` (Nominatim 500, Overpass 504 as
 * when it is overloaded), `hang` (no answer until the client gives up or `close()`);
 * Nominatim `garbage` (200 with a JSON object, not a list); Overpass `remark_timeout` (200,
 * no elements, remark "runtime error: Query timed out …"), `remark_memory` (likewise, out of
 * memory) and `remark_partial` (the elements and a timeout remark). Every request is
 * recorded with its User-Agent and arrival time (ms); `requests` is that list.
 */
import type http from 'node:http';
import { startStandIn, type StandInAnswer, type StandInReply } from './stand-in.js';

export interface FakeOsmRequest {
  readonly method: string;
  /** The path without its query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: http.IncomingHttpHeaders;
  readonly userAgent: string | null;
  /** Arrival, `Date.now()`. */
  readonly atMs: number;
  /** Overpass: the QL received (`data=` of the query or the form, or the body). */
  readonly ql: string | null;
}

export type FakeNominatimMode = 'ok' | 'rate_limited' | 'error' | 'hang' | 'garbage';
export type FakeOverpassMode = 'ok' | 'rate_limited' | 'error' | 'hang' | 'remark_timeout' | 'remark_memory' | 'remark_partial';

interface FakeServer<Mode> {
  /** Nominatim: the base URL (NOMINATIM_URL). Overpass: the server's root; see interpreterUrl. */
  readonly url: string;
  readonly requests: FakeOsmRequest[];
  setMode(mode: Mode): void;
  /** Stops the server, ending hung requests. */
  close(): Promise<void>;
}

export type FakeNominatim = FakeServer<FakeNominatimMode>;
export interface FakeOverpass extends FakeServer<FakeOverpassMode> {
  /** `<url>/api/interpreter` (OVERPASS_URL). */
  readonly interpreterUrl: string;
}

// ---- the gazetteer ----------------------------------------------------------------------------

export const NOMINATIM_LICENCE = 'Data © OpenStreetMap contributors, ODbL 1.0. http://osm.org/copyright';

export interface GazetteerEntry {
  readonly osmType: 'node' | 'way' | 'relation';
  readonly osmId: number;
  readonly lat: string;
  readonly lon: string;
  readonly category: string;
  readonly type: string;
  readonly placeRank: number;
  readonly importance: number;
  readonly addressType: string;
  /** Names by language; `default` is the local name. */
  readonly names: Readonly<Record<string, string>> & { readonly default: string };
  readonly displayNames: Readonly<Record<string, string>> & { readonly default: string };
  readonly address: Readonly<Record<string, string>>;
  /** [minlat, maxlat, minlon, maxlon], as strings. */
  readonly boundingbox: readonly [string, string, string, string];
  /** Words a query may use. */
  readonly words: readonly string[];
}

export const GAZETTEER: readonly GazetteerEntry[] = [
  {
    osmType: 'relation', osmId: 113314, lat: '30.2711286', lon: '-97.7436995', category: 'boundary', type: 'administrative', placeRank: 16, importance: 0.7819, addressType: 'city',
    names: { default: 'Austin' }, displayNames: { default: 'Austin, Travis County, Texas, United States' },
    address: { city: 'Austin', county: 'Travis County', state: 'Texas', 'ISO3166-2-lvl4': 'US-TX', country: 'United States', country_code: 'us' },
    boundingbox: ['30.0986648', '30.5166255', '-97.9367663', '-97.5605823'],
    words: ['austin', 'travis', 'county', 'texas', 'tx', 'united', 'states', 'usa', 'us'],
  },
  {
    osmType: 'relation', osmId: 136573, lat: '43.6666296', lon: '-92.9746367', category: 'boundary', type: 'administrative', placeRank: 16, importance: 0.5411, addressType: 'city',
    names: { default: 'Austin' }, displayNames: { default: 'Austin, Mower County, Minnesota, United States' },
    address: { city: 'Austin', county: 'Mower County', state: 'Minnesota', 'ISO3166-2-lvl4': 'US-MN', country: 'United States', country_code: 'us' },
    boundingbox: ['43.6361349', '43.7046432', '-93.0126428', '-92.9345069'],
    words: ['austin', 'mower', 'county', 'minnesota', 'mn', 'united', 'states', 'usa', 'us'],
  },
  {
    osmType: 'node', osmId: 151436914, lat: '30.3093655', lon: '-104.0206839', category: 'place', type: 'town', placeRank: 18, importance: 0.4124, addressType: 'town',
    names: { default: 'Marfa' }, displayNames: { default: 'Marfa, Presidio County, Texas, 79843, United States' },
    address: { town: 'Marfa', county: 'Presidio County', state: 'Texas', 'ISO3166-2-lvl4': 'US-TX', postcode: '79843', country: 'United States', country_code: 'us' },
    boundingbox: ['30.2693655', '30.3493655', '-104.0606839', '-103.9806839'],
    words: ['marfa', 'presidio', 'county', 'texas', 'tx', 'united', 'states', 'usa', 'us'],
  },
  {
    osmType: 'relation', osmId: 62422, lat: '52.5173885', lon: '13.3951309', category: 'boundary', type: 'administrative', placeRank: 8, importance: 0.8875, addressType: 'city',
    names: { default: 'Berlin', ru: 'Берлин' }, displayNames: { default: 'Berlin, Deutschland', en: 'Berlin, Germany', ru: 'Берлин, Германия' },
    address: { city: 'Berlin', 'ISO3166-2-lvl4': 'DE-BE', country: 'Deutschland', country_code: 'de' },
    boundingbox: ['52.3382448', '52.6755087', '13.0883450', '13.7611609'],
    words: ['berlin', 'germany', 'deutschland', 'de', 'берлин'],
  },
  {
    osmType: 'way', osmId: 427818536, lat: '40.7827725', lon: '-73.9653627', category: 'leisure', type: 'park', placeRank: 24, importance: 0.6713, addressType: 'park',
    names: { default: 'Central Park' }, displayNames: { default: 'Central Park, Manhattan, New York County, New York, United States' },
    address: { park: 'Central Park', suburb: 'Manhattan', county: 'New York County', city: 'New York', state: 'New York', country: 'United States', country_code: 'us' },
    boundingbox: ['40.7642499', '40.8003081', '-73.9818359', '-73.9493861'],
    words: ['central', 'park', 'manhattan', 'new', 'york', 'ny', 'nyc'],
  },
];

// ---- the map -----------------------------------------------------------------------------------

export interface FixtureElement {
  readonly type: 'node' | 'way' | 'relation';
  readonly id: number;
  /** A node's position, or a way's centre. */
  readonly lat: number;
  readonly lon: number;
  /** Overpass area ids the element lies in. */
  readonly areas: readonly number[];
  readonly tags: Readonly<Record<string, string>>;
}

export const AUSTIN_AREA = 3_600_113_314;
export const BERLIN_AREA = 3_600_062_422;
export const CENTRAL_PARK_AREA = 2_827_818_536;
/** A bar in Austin whose name is written to break a query that does not escape it. */
export const HOSTILE_NAME = 'a.*(b|c)"]; out;';

export const OSM_ELEMENTS: readonly FixtureElement[] = [
  {
    type: 'node', id: 1001, lat: 30.2813, lon: -97.7221, areas: [AUSTIN_AREA],
    tags: { amenity: 'cafe', name: 'Bennu Coffee', 'addr:housenumber': '2001', 'addr:street': 'East Martin Luther King Jr Boulevard', 'addr:city': 'Austin', 'addr:state': 'TX', 'addr:postcode': '78702', phone: '+1 512-478-4700', website: 'https://www.bennucoffee.com/', opening_hours: '24/7', wheelchair: 'yes', cuisine: 'coffee_shop' },
  },
  { type: 'node', id: 1002, lat: 30.2672, lon: -97.7431, areas: [AUSTIN_AREA], tags: { amenity: 'cafe' } },
  {
    type: 'node', id: 1003, lat: 30.2491, lon: -97.7495, areas: [AUSTIN_AREA],
    tags: { amenity: 'restaurant', name: 'Home Slice Pizza', cuisine: 'italian;pizza', 'addr:housenumber': '1415', 'addr:street': 'South Congress Avenue', 'addr:city': 'Austin', 'addr:postcode': '78704', 'contact:website': 'https://homeslicepizza.com/', 'contact:phone': '+1 512-444-7437' },
  },
  { type: 'node', id: 1004, lat: 30.2590, lon: -97.7506, areas: [AUSTIN_AREA], tags: { amenity: 'fast_food', name: "P. Terry's Burger Stand", brand: "P. Terry's", cuisine: 'burger', url: 'https://www.pterrys.com/' } },
  { type: 'node', id: 1005, lat: 30.2705, lon: -97.7420, areas: [AUSTIN_AREA], tags: { amenity: 'pharmacy', healthcare: 'pharmacy', name: 'Walgreens', brand: 'Walgreens', 'contact:email': 'store@walgreens.example' } },
  { type: 'node', id: 1006, lat: 30.2669, lon: -97.7390, areas: [AUSTIN_AREA], tags: { amenity: 'bar', name: `The ${HOSTILE_NAME} Lounge` } },
  { type: 'node', id: 1007, lat: 30.2660, lon: -97.7385, areas: [AUSTIN_AREA], tags: { amenity: 'bar', name: 'Abc Bar' } },
  { type: 'node', id: 1008, lat: 30.2707, lon: -97.7521, areas: [AUSTIN_AREA], tags: { shop: 'books', name: 'BookPeople', 'addr:housenumber': '603', 'addr:street': 'North Lamar Boulevard', 'addr:city': 'Austin', 'addr:postcode': '78703' } },
  { type: 'node', id: 1009, lat: 30.2652, lon: -97.7470, areas: [AUSTIN_AREA], tags: { amenity: 'parking' } },
  { type: 'way', id: 2001, lat: 30.2748, lon: -97.7404, areas: [AUSTIN_AREA], tags: { amenity: 'cafe', name: 'Houndstooth Coffee', 'contact:website': 'https://houndstoothcoffee.com/', building: 'yes' } },
  { type: 'way', id: 2002, lat: 30.2669, lon: -97.7729, areas: [AUSTIN_AREA], tags: { leisure: 'park', name: 'Zilker Park' } },
  { type: 'way', id: 2003, lat: 30.2600, lon: -97.7300, areas: [AUSTIN_AREA], tags: { amenity: 'cafe', building: 'yes' } },
  { type: 'node', id: 3001, lat: 30.3097, lon: -104.0213, areas: [], tags: { amenity: 'cafe', name: 'Do Your Thing', 'addr:street': 'West San Antonio Street', 'addr:housenumber': '201' } },
  { type: 'node', id: 3002, lat: 30.6000, lon: -104.5000, areas: [], tags: { amenity: 'cafe', name: 'Far Away Cafe' } },
  {
    type: 'node', id: 4001, lat: 52.5024, lon: 13.3563, areas: [BERLIN_AREA],
    tags: { amenity: 'cafe', name: 'Café Einstein Stammhaus', 'name:en': 'Cafe Einstein', 'addr:street': 'Kurfürstenstraße', 'addr:housenumber': '58', 'addr:postcode': '10785', 'addr:city': 'Berlin', 'addr:country': 'DE', opening_hours: 'Mo-Su 08:00-22:00' },
  },
  { type: 'node', id: 5001, lat: 40.7711, lon: -73.9742, areas: [CENTRAL_PARK_AREA], tags: { amenity: 'cafe', name: 'Le Pain Quotidien' } },
];

// ---- the server -------------------------------------------------------------------------------

type Answer = StandInAnswer;
type Reply = StandInReply;

const json = (status: number, value: unknown): Answer => ({ status, body: JSON.stringify(value), headers: { 'content-type': 'application/json; charset=utf-8' } });
const html = (status: number, body: string): Answer => ({ status, body, headers: { 'content-type': 'text/html; charset=utf-8' } });

async function startServer<Mode>(initial: Mode, route: (request: FakeOsmRequest, mode: Mode) => Reply): Promise<FakeServer<Mode>> {
  const read = (req: http.IncomingMessage, url: URL, body: string, atMs: number): FakeOsmRequest => ({
    method: req.method ?? 'GET',
    path: url.pathname,
    query: url.searchParams,
    headers: req.headers,
    userAgent: req.headers['user-agent'] ?? null,
    atMs,
    ql: qlOf(req, url.searchParams, body),
  });
  const { base, ...server } = await startStandIn<Mode, FakeOsmRequest>(initial, read, route);
  return { url: base, ...server };
}

/** Overpass's query: `data=` in the URL, in a form body, or the body itself. */
function qlOf(req: http.IncomingMessage, query: URLSearchParams, body: string): string | null {
  if (req.method !== 'POST') return query.get('data');
  const form = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
  return form ? new URLSearchParams(body).get('data') : body || null;
}

// ---- Nominatim ----------------------------------------------------------------------------------

/** User agents of HTTP libraries, which the public instance refuses. */
const LIBRARY_AGENTS = ['node-fetch', 'node', 'undici', 'axios', 'got', 'python-requests', 'python-urllib', 'curl', 'wget', 'go-http-client', 'java', 'okhttp', 'libwww-perl'];

/** `extra`: gazetteer entries beside GAZETTEER (a test's own places, after the shipped ones). */
export function startFakeNominatim(extra: readonly GazetteerEntry[] = []): Promise<FakeNominatim> {
  const gazetteer = [...GAZETTEER, ...extra];
  return startServer<FakeNominatimMode>('ok', (request, mode) => nominatimReply(request, mode, gazetteer));
}

const TOO_MANY = '<html><head><title>429 Too Many Requests</title></head><body><h1>Too Many Requests</h1><p>You have sent too many requests. See https://operations.osmfoundation.org/policies/nominatim/</p></body></html>';
const BLOCKED = '<html><head><title>Access blocked</title></head><body><h1>Access blocked</h1><p>You have been blocked because you have violated the usage policy of OSM\'s Nominatim geocoding service. Please be aware that OSM\'s resources are limited and shared between many users. The usage policy is there to ensure that the service remains usable for everybody.</p></body></html>';

function nominatimError(message: string): Answer {
  return json(400, { error: { code: 400, message } });
}

function nominatimReply(request: FakeOsmRequest, mode: FakeNominatimMode, gazetteer: readonly GazetteerEntry[]): Reply {
  if (request.path !== '/search') return nominatimError('Nominatim API: unknown endpoint');
  if (mode === 'hang') return 'hang';
  if (mode === 'rate_limited') return html(429, TOO_MANY);
  if (mode === 'error') return html(500, '<html><body><h1>Internal Server Error</h1></body></html>');
  if (mode === 'garbage') return json(200, { error: 'not a list' });
  const agent = (request.userAgent ?? '').toLowerCase();
  if (!agent || LIBRARY_AGENTS.some((lib) => agent.startsWith(lib))) return html(403, BLOCKED);
  const q = request.query.get('q')?.trim();
  if (!q) return nominatimError("Nominatim API: Parameter 'q' is missing or empty.");
  const format = request.query.get('format') ?? 'jsonv2';
  if (format !== 'jsonv2' && format !== 'json') return nominatimError(`Nominatim API: the stand-in answers format=jsonv2 or json, not '${format}'.`);
  const limit = Number(request.query.get('limit') ?? '10');
  if (!Number.isInteger(limit) || limit < 1) return nominatimError("Nominatim API: Parameter 'limit' must be a positive integer.");
  const codes = (request.query.get('countrycodes') ?? '').toLowerCase().split(',').filter(Boolean);
  const lang = (request.query.get('accept-language') ?? '').split(',')[0]?.split(';')[0]?.split('-')[0]?.trim().toLowerCase() ?? '';
  const words = wordsOf(q);
  const found = gazetteer.filter((e) => words.every((w) => e.words.includes(w)) && (codes.length === 0 || codes.includes(e.address.country_code ?? '')));
  const details = request.query.get('addressdetails') === '1';
  return json(200, found.slice(0, Math.min(limit, 40)).map((e, i) => nominatimResult(e, i, lang, format === 'jsonv2', details)));
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

function nominatimResult(e: GazetteerEntry, index: number, lang: string, v2: boolean, details: boolean): Record<string, unknown> {
  return {
    place_id: 300000 + index + e.osmId % 1000,
    licence: NOMINATIM_LICENCE,
    osm_type: e.osmType,
    osm_id: e.osmId,
    lat: e.lat,
    lon: e.lon,
    ...(v2 ? { category: e.category } : { class: e.category }),
    type: e.type,
    place_rank: e.placeRank,
    importance: e.importance,
    addresstype: e.addressType,
    name: e.names[lang] ?? e.names.default,
    display_name: e.displayNames[lang] ?? e.displayNames.default,
    ...(details ? { address: e.address } : {}),
    boundingbox: e.boundingbox,
  };
}

// ---- Overpass ------------------------------------------------------------------------------------

export const OVERPASS_COPYRIGHT = 'The data included in this document is from www.openstreetmap.org. The data is made available under ODbL.';
export const OVERPASS_TIMESTAMP = '2025-01-15T12:34:56Z';
const AREAS_TIMESTAMP = '2025-01-15T10:11:12Z';
const TIMEOUT_REMARK = 'runtime error: Query timed out in "query" at line 4 after 2 seconds.';
const MEMORY_REMARK = 'runtime error: Query run out of memory using about 2048 MB of RAM.';

/** `extra`: elements beside OSM_ELEMENTS (a test's own map). */
export async function startFakeOverpass(extra: readonly FixtureElement[] = []): Promise<FakeOverpass> {
  const elements = [...OSM_ELEMENTS, ...extra];
  const server = await startServer<FakeOverpassMode>('ok', (request, mode) => overpassReply(request, mode, elements));
  return { ...server, interpreterUrl: `${server.url}/api/interpreter` };
}

const overpassPage = (status: number, title: string, message: string) =>
  html(status, `<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE html>\n<html><head><title>OSM3S Response</title></head><body>\n<p>${title}</p>\n<p><strong style="color:#FF0000">Error</strong>: ${escapeHtml(message)}</p>\n</body></html>`);

function overpassReply(request: FakeOsmRequest, mode: FakeOverpassMode, elements: readonly FixtureElement[]): Reply {
  if (request.path !== '/api/interpreter') return overpassPage(404, 'Not Found', 'unknown path');
  if (mode === 'hang') return 'hang';
  if (mode === 'rate_limited') return overpassPage(429, 'Too Many Requests', 'rate_limited: the server has no query slot free for you. Please check /api/status for the quota of your IP address.');
  if (mode === 'error') return overpassPage(504, 'Gateway Timeout', 'runtime error: open64: 0 Success /osm3s_osm_base Dispatcher_Client::request_read_and_idx::timeout. The server is probably too busy to handle your request.');
  if (!request.ql) return overpassPage(400, 'Bad Request', 'line 1: parse error: no query given');
  let query: ParsedQuery;
  try {
    query = parseQl(request.ql);
  } catch (error) {
    return overpassPage(400, 'Bad Request', error instanceof Error ? error.message : String(error));
  }
  const found = mode === 'remark_timeout' || mode === 'remark_memory' ? [] : answerQuery(query, elements);
  const remark = mode === 'remark_memory' ? MEMORY_REMARK : mode === 'remark_timeout' || mode === 'remark_partial' ? TIMEOUT_REMARK : null;
  return json(200, {
    version: 0.6,
    generator: 'Overpass API 0.7.62.5 1bd436f1',
    osm3s: { timestamp_osm_base: OVERPASS_TIMESTAMP, ...(query.areaId !== null ? { timestamp_areas_base: AREAS_TIMESTAMP } : {}), copyright: OVERPASS_COPYRIGHT },
    elements: found.map((e) => printed(e, query.out)),
    ...(remark ? { remark } : {}),
  });
}

function printed(e: FixtureElement, out: OutStatement): Record<string, unknown> {
  const geometry = e.type === 'node' ? (out.center || out.verbosity === 'body' ? { lat: e.lat, lon: e.lon } : {}) : out.center ? { center: { lat: e.lat, lon: e.lon } } : {};
  return { type: e.type, id: e.id, ...geometry, tags: e.tags };
}

const TYPE_ORDER = { node: 0, way: 1, relation: 2 } as const;

function answerQuery(query: ParsedQuery, elements: readonly FixtureElement[]): FixtureElement[] {
  const hits = elements.filter((e) => query.statements.some((s) => statementMatches(s, e, query.areaId)));
  hits.sort((a, b) => TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || a.id - b.id);
  return query.out.limit === null ? hits : hits.slice(0, query.out.limit);
}

function statementMatches(s: Statement, e: FixtureElement, areaId: number | null): boolean {
  if (s.types !== 'nwr' && s.types !== e.type) return false;
  if (s.spatial.kind === 'area' ? areaId === null || !e.areas.includes(areaId) : metresBetween(e, s.spatial) > s.spatial.radiusM) return false;
  return s.filters.every((f) => filterMatches(f, e.tags[f.key]));
}

function metresBetween(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * 6_371_000 * Math.asin(Math.sqrt(h));
}

function filterMatches(f: Filter, value: string | undefined): boolean {
  if (value === undefined) return false;
  const fold = (s: string) => (f.caseInsensitive ? s.toLowerCase() : s);
  const m = f.match;
  switch (m.kind) {
    case 'equals':
      return value === m.value;
    case 'oneOf':
      return m.values.some((v) => fold(v) === fold(value));
    case 'listItem':
      return value.split(';').some((item) => m.values.some((v) => fold(v) === fold(item.trim())));
    case 'contains':
      return fold(value).includes(fold(m.text));
  }
}

// ---- a small Overpass QL reader ----------------------------------------------------------------------

type Spatial = { kind: 'area' } | { kind: 'around'; radiusM: number; lat: number; lon: number };
type ValueMatch = { kind: 'equals'; value: string } | { kind: 'oneOf'; values: string[] } | { kind: 'listItem'; values: string[] } | { kind: 'contains'; text: string };
interface Filter {
  key: string;
  match: ValueMatch;
  caseInsensitive: boolean;
}
interface Statement {
  types: 'nwr' | 'node' | 'way' | 'relation';
  filters: Filter[];
  spatial: Spatial;
}
interface OutStatement {
  verbosity: 'body' | 'tags';
  center: boolean;
  limit: number | null;
}
export interface ParsedQuery {
  timeoutS: number | null;
  areaId: number | null;
  statements: Statement[];
  out: OutStatement;
}

type Token = { kind: 'string'; text: string } | { kind: 'word'; text: string } | { kind: 'number'; text: string } | { kind: 'punct'; text: string };

const PUNCT_2 = ['->', '!='];
const PUNCT_1 = '[](){};:,.~=';

const isDigit = (ch: string) => ch >= '0' && ch <= '9';
const isWordChar = (ch: string) => (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch === '_' || isDigit(ch);

/** Overpass's string escapes: `\n`, `\t`, `\uXXXX`, and `\x` for any other x. */
function readString(ql: string, start: number): { text: string; end: number } {
  const quote = ql[start];
  let text = '';
  let i = start + 1;
  while (i < ql.length && ql[i] !== quote) {
    if (ql[i] === '\\') {
      const next = ql[i + 1] ?? '';
      if (next === 'u') {
        text += String.fromCharCode(parseInt(ql.slice(i + 2, i + 6), 16));
        i += 6;
        continue;
      }
      text += next === 'n' ? '\n' : next === 't' ? '\t' : next;
      i += 2;
      continue;
    }
    text += ql[i];
    i++;
  }
  if (i >= ql.length) throw new Error('line 1: parse error: unterminated string');
  return { text, end: i + 1 };
}

function tokenize(ql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < ql.length) {
    const ch = ql[i] as string;
    if (ch === ' ' || ch === '\n' || ch === '\t' || ch === '\r') {
      i++;
    } else if (ch === '"' || ch === "'") {
      const { text, end } = readString(ql, i);
      tokens.push({ kind: 'string', text });
      i = end;
    } else if (isDigit(ch) || (ch === '-' && isDigit(ql[i + 1] ?? ''))) {
      let j = i + 1;
      while (j < ql.length && (isDigit(ql[j] as string) || ql[j] === '.')) j++;
      tokens.push({ kind: 'number', text: ql.slice(i, j) });
      i = j;
    } else if (isWordChar(ch)) {
      let j = i + 1;
      while (j < ql.length && isWordChar(ql[j] as string)) j++;
      tokens.push({ kind: 'word', text: ql.slice(i, j) });
      i = j;
    } else if (PUNCT_2.includes(ql.slice(i, i + 2))) {
      tokens.push({ kind: 'punct', text: ql.slice(i, i + 2) });
      i += 2;
    } else if (PUNCT_1.includes(ch)) {
      tokens.push({ kind: 'punct', text: ch });
      i++;
    } else {
      throw new Error(`line 1: parse error: unexpected character '${ch}'`);
    }
  }
  return tokens;
}

class Reader {
  private at = 0;
  constructor(private readonly tokens: Token[]) {}
  peek(offset = 0): Token | undefined {
    return this.tokens[this.at + offset];
  }
  next(): Token {
    const token = this.tokens[this.at++];
    if (!token) throw new Error('line 1: parse error: unexpected end of input');
    return token;
  }
  expect(text: string): void {
    const token = this.next();
    if (token.text !== text || token.kind === 'string') throw new Error(`line 1: parse error: '${text}' expected - '${token.text}' found.`);
  }
  isPunct(text: string): boolean {
    const token = this.peek();
    return token?.kind === 'punct' && token.text === text;
  }
  number(): number {
    const token = this.next();
    if (token.kind !== 'number') throw new Error(`line 1: parse error: number expected - '${token.text}' found.`);
    return Number(token.text);
  }
  text(): string {
    const token = this.next();
    if (token.kind === 'punct') throw new Error(`line 1: parse error: string expected - '${token.text}' found.`);
    return token.text;
  }
  get done(): boolean {
    return this.at >= this.tokens.length;
  }
}

/** Reads the QL places search writes; throws (→ 400) on anything else. */
export function parseQl(ql: string): ParsedQuery {
  const r = new Reader(tokenize(ql));
  const query: ParsedQuery = { timeoutS: null, areaId: null, statements: [], out: { verbosity: 'body', center: false, limit: null } };
  let json = false;
  while (r.isPunct('[')) {
    r.expect('[');
    const name = r.text();
    r.expect(':');
    const value = r.text();
    r.expect(']');
    if (name === 'out') json = value === 'json';
    if (name === 'timeout') query.timeoutS = Number(value);
  }
  if (!json) throw new Error('the stand-in answers [out:json] only');
  r.expect(';');
  let sawOut = false;
  while (!r.done) {
    const token = r.peek() as Token;
    if (token.text === 'area' && token.kind === 'word') query.areaId = readAreaDef(r);
    else if (token.kind === 'punct' && token.text === '(') query.statements.push(...readUnion(r));
    else if (token.text === 'out' && token.kind === 'word') {
      query.out = readOut(r);
      sawOut = true;
    } else query.statements.push(readStatement(r));
  }
  if (!sawOut) throw new Error('the query has no out statement');
  return query;
}

function readAreaDef(r: Reader): number {
  r.expect('area');
  r.expect('(');
  const id = r.number();
  r.expect(')');
  r.expect('->');
  r.expect('.');
  if (r.text() !== 'a') throw new Error('the stand-in reads the area set `.a` only');
  r.expect(';');
  return id;
}

function readUnion(r: Reader): Statement[] {
  r.expect('(');
  const statements: Statement[] = [];
  while (!r.isPunct(')')) statements.push(readStatement(r));
  r.expect(')');
  r.expect(';');
  return statements;
}

function readStatement(r: Reader): Statement {
  const types = r.text();
  if (types !== 'nwr' && types !== 'node' && types !== 'way' && types !== 'relation') throw new Error(`line 1: parse error: unknown statement '${types}'`);
  const filters: Filter[] = [];
  while (r.isPunct('[')) filters.push(readFilter(r));
  const spatial = readSpatial(r);
  r.expect(';');
  return { types, filters, spatial };
}

function readFilter(r: Reader): Filter {
  r.expect('[');
  const key = r.text();
  const op = r.next();
  const value = r.text();
  let caseInsensitive = false;
  if (r.isPunct(',')) {
    r.expect(',');
    r.expect('i');
    caseInsensitive = true;
  }
  r.expect(']');
  if (op.text === '=') return { key, match: { kind: 'equals', value }, caseInsensitive };
  if (op.text === '~') return { key, match: readPattern(value), caseInsensitive };
  throw new Error(`the stand-in reads = and ~ filters only, not '${op.text}'`);
}

function readSpatial(r: Reader): Spatial {
  r.expect('(');
  const head = r.text();
  if (head === 'area') {
    r.expect('.');
    if (r.text() !== 'a') throw new Error('the stand-in reads (area.a) only');
    r.expect(')');
    return { kind: 'area' };
  }
  if (head !== 'around') throw new Error(`the stand-in reads (area.a) and (around:…) only, not '${head}'`);
  r.expect(':');
  const radiusM = r.number();
  r.expect(',');
  const lat = r.number();
  r.expect(',');
  const lon = r.number();
  r.expect(')');
  return { kind: 'around', radiusM, lat, lon };
}

function readOut(r: Reader): OutStatement {
  r.expect('out');
  const out: OutStatement = { verbosity: 'body', center: false, limit: null };
  while (!r.isPunct(';')) {
    const token = r.next();
    if (token.kind === 'number') out.limit = Number(token.text);
    else if (token.text === 'center') out.center = true;
    else if (token.text === 'tags' || token.text === 'body') out.verbosity = token.text;
    else throw new Error(`the stand-in reads out [center] [tags|body] [n] only, not '${token.text}'`);
  }
  r.expect(';');
  return out;
}

// ---- patterns, read as data ----------------------------------------------------------------------------

const ERE_SPECIAL = '\\^$.|?*+()[]{}';

/** A backslash-escaped literal's text; a metacharacter left bare is a pattern the stand-in cannot run. */
function literalOf(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '\\') {
      out += pattern[i + 1] ?? '';
      i++;
    } else if (ERE_SPECIAL.includes(ch)) {
      throw new Error(`the stand-in reads literal patterns only; '${ch}' is not escaped in "${pattern}"`);
    } else {
      out += ch;
    }
  }
  return out;
}

/** Splits at `|` not escaped by a backslash. */
function alternatives(inner: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    if (inner[i] === '\\') i++;
    else if (inner[i] === '|') {
      out.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  out.push(inner.slice(start));
  return out.map(literalOf);
}

const ONE_OF = { head: '^(', tail: ')$' };
const LIST_ITEM = { head: '(^|;) *(', tail: ') *(;|$)' };

function readPattern(pattern: string): ValueMatch {
  const inside = (form: { head: string; tail: string }) =>
    pattern.startsWith(form.head) && pattern.endsWith(form.tail) ? pattern.slice(form.head.length, pattern.length - form.tail.length) : null;
  const listed = inside(LIST_ITEM);
  if (listed !== null) return { kind: 'listItem', values: alternatives(listed) };
  const oneOf = inside(ONE_OF);
  if (oneOf !== null) return { kind: 'oneOf', values: alternatives(oneOf) };
  return { kind: 'contains', text: literalOf(pattern) };
}

const escapeHtml = (s: string) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
